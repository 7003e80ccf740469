"""Benchmark: a local (SQLite) library, on this checkout against the same library code before
studio libraries were added (issue 28: "local SQLite libraries must not get slower, bench
within 10 %"), same run, rounds interleaved.

Each side runs in a process of its own with its checkout first on the path (its worker too):
it makes a library through `library.client`, imports the same small pictures, then asks
`asset.search` pages of 50 (four shapes), tags single assets (a write each) and counts a
smart collection's rules, and prints its timings. The baseline is the commit before the first
studio change (`--baseline`, default f3a168b), checked out by `git worktree` into a temporary
folder: it shares none of the code it judges.

Run: `.venv/bin/python bench/studio/bench_local_unchanged.py [--rounds 3] [--assets 300]
[--calls 120] [--baseline f3a168b]` (apart from `run_all.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchdata import record, write_small_images  # noqa: E402

# What one side runs (its checkout first on the path); prints one JSON line.
SIDE = r"""
import json, sys, time
from pathlib import Path
from library.client import LibraryHost

parent, pictures, calls = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
host = LibraryHost()
T = 600
try:
    library = host.create(parent, "Bench").result(T)["libraryId"]
    started = time.perf_counter()
    items = host.call(library, "file.import", {"sourcePaths": [pictures]}).result(T)["items"]
    imported = time.perf_counter() - started
    ids = [item["assetId"] for item in items]
    shapes = [{}, {"sort": "name-asc"}, {"text": "small 01"},
              {"kind": ["image"], "sort": "size-desc"}]
    search, tag, count = [], [], []
    rules = {"match": "any", "rules": [{"field": "tag", "op": "is", "value": "t1"},
                                        {"field": "tag", "op": "is", "value": "t3"}]}
    for n in range(calls):
        at = time.perf_counter()
        host.call(library, "asset.search", {**shapes[n % 4], "limit": 50}).result(T)
        search.append(time.perf_counter() - at)
        at = time.perf_counter()
        host.call(library, "asset.tag", {"assetIds": [ids[n % len(ids)]],
                                         "tags": [f"t{n % 7}"]}).result(T)
        tag.append(time.perf_counter() - at)
        at = time.perf_counter()
        host.call(library, "asset.search", {"rules": rules, "limit": 1}).result(T)
        count.append(time.perf_counter() - at)
    import library
    print(json.dumps({"import": imported, "search": search, "tag": tag, "count": count,
                      "code": library.__file__}))
finally:
    host.shutdown()
"""


def run_side(checkout: Path, work: Path, pictures: Path, calls: int) -> dict[str, Any]:
    work.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(checkout),
           "SERPENT_USER_DATA_PATH": str(work / "data")}
    done = subprocess.run([sys.executable, "-c", SIDE, str(work), str(pictures), str(calls)],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=1800,
                          check=False)
    if done.returncode:
        raise RuntimeError(f"{checkout}: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["code"].startswith(str(checkout)):  # the side ran the code it should
        raise RuntimeError(f"{checkout}: ran {result['code']}")
    shutil.rmtree(work, ignore_errors=True)
    return result


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--assets", type=int, default=300)
    parser.add_argument("--calls", type=int, default=120)
    parser.add_argument("--baseline", default="f3a168b")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-local-"))
    baseline = work / "baseline"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline),
                    args.baseline], check=True, capture_output=True)
    try:
        pictures = work / "pictures"
        write_small_images(pictures, args.assets)
        sides: dict[str, list[dict[str, Any]]] = {"before": [], "now": []}
        print(f"load at start {os.getloadavg()[0]:.1f}", flush=True)
        for number in range(args.rounds):
            order = [("before", baseline), ("now", ROOT)]
            for name, checkout in order if number % 2 == 0 else order[::-1]:
                sides[name].append(run_side(checkout, work / f"{name}-{number}", pictures,
                                            args.calls))
            print(f"round {number + 1}: " + ", ".join(
                f"{name} search p50 {median_ms(runs[-1]['search']):.2f} ms"
                for name, runs in sides.items()), flush=True)
        print(f"load at end {os.getloadavg()[0]:.1f}")
        print(f"{'figure':36} {'before':>10} {'now':>10} {'ratio':>7}")
        for figure, unit in (("import", "s"), ("search", "ms"), ("tag", "ms"),
                             ("count", "ms")):
            values = {}
            for name, runs in sides.items():
                if figure == "import":
                    values[name] = min(run["import"] for run in runs)
                else:
                    values[name] = median_ms([v for run in runs for v in run[figure]])
            ratio = values["now"] / values["before"]
            label = {"import": f"import {args.assets} small pictures (best)",
                     "search": "asset.search page of 50 (p50)",
                     "tag": "asset.tag one asset (p50)",
                     "count": "smart-collection rules count (p50)"}[figure]
            print(f"{label:36} {values['before']:>8.2f}{unit:>2} {values['now']:>8.2f}{unit:>2} "
                  f"{ratio:>6.2f}x")
            record(f"local library, {label}: now against before studio libraries",
                   values["now"], unit, baseline=values["before"], target="<= 1.10x")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                        str(baseline)], check=False, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
