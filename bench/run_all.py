"""Every benchmark of the project in one command, and one table of what it measured.

Run: `.venv/bin/python bench/run_all.py [--quick] [--sizes 10000,100000,500000] [--only
...]`. Part 1 runs each `bench/bench_*.py` script in its own process (smaller settings with
`--quick`); each script reports its figures through `benchdata.record` (a script that
records none shows its last output line). Part 2 (`growth.py`) measures open, search, smart
collections, import and the window on cached libraries of each size (`scalelib`, built once
with SQL inserts under `$SERPENT_BENCH_CACHE`, default `<tmp>/serpent-bench-cache`). Every
figure has a baseline measured in the same run; the table gives figure, baseline, ratio and
target. The window needs a display: without `$DISPLAY` an Xvfb is started for the run. Each
script's full output goes to `<cache>/logs/`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import scalelib  # noqa: E402

# script -> (quick arguments, full arguments)
SCRIPTS: dict[str, tuple[list[str], list[str]]] = {
    "bench_import.py": (["--count", "300", "--rounds", "1"], []),
    "bench_import.py --small": (["--small", "--rounds", "1"], ["--small"]),
    "bench_search.py": (["--assets", "10000", "--queries", "100"], []),
    "bench_tags.py": (["--assets", "10000", "--rounds", "5"], []),
    "bench_import_previews.py": (["--count", "100", "--rounds", "3", "--skip-duplicates"], []),
    "bench_thumbnails.py": (["--count", "40"], []),
    "bench_thumbnails.py --media": (["--media", "--count", "60", "--rounds", "1", "--ocr", "3"],
                                   ["--media"]),
    "bench_protocol.py": (["--rounds", "40"], []),
    "bench_catalogue.py": ([], []),
    "bench_mcp_roundtrip.py": (["--calls", "100", "--rounds", "2"], []),
    "bench_agent_looking.py": (["--assets", "200"], []),
    "bench_viewer.py": (["--runs", "1", "--images", "10"], []),
    "bench_ui.py": (["--assets", "10000", "--runs", "1", "--seconds", "5"],
                    ["--assets", "100000"]),
}
NEEDS_DISPLAY = {"bench_ui.py", "bench_viewer.py"}


def run_scripts(quick: bool, only: set[str] | None, logs: Path) -> list[dict]:
    rows: list[dict] = []
    for key, (quick_args, full_args) in SCRIPTS.items():
        script, *fixed = key.split()
        if only and script.removesuffix(".py") not in only and key not in only:
            continue
        record = logs / f"{key.replace(' ', '_')}.jsonl"
        record.unlink(missing_ok=True)
        env = {**os.environ, "SERPENT_BENCH_RECORD": str(record)}
        args = quick_args if quick else [*fixed, *full_args]
        started = time.perf_counter()
        print(f"running {script} {' '.join(args)} …", flush=True)
        with open(logs / f"{key.replace(' ', '_')}.log", "w") as log:
            done = subprocess.run([sys.executable, str(HERE / script), *args], env=env,
                                  stdout=subprocess.PIPE, stderr=log, text=True, check=False)
        log_text = done.stdout
        (logs / f"{key.replace(' ', '_')}.out").write_text(log_text)
        took = time.perf_counter() - started
        found = ([json.loads(line) for line in record.read_text().splitlines()]
                 if record.exists() else [])
        if done.returncode != 0 and not found:
            rows.append({"figure": f"{key}: FAILED (exit {done.returncode}, see logs)",
                         "value": None})
        elif done.returncode != 0:  # its figures are in: the exit status says a goal missed
            rows.append({"figure": f"{key}: a target missed (exit {done.returncode}), below",
                         "value": None})
        elif not found:
            last = [line for line in log_text.splitlines() if line.strip()]
            rows.append({"figure": f"{key}: {last[-1].strip() if last else 'no output'}",
                         "value": None})
        rows.extend(found)
        print(f"  {took:.0f} s", flush=True)
    return rows


def run_growth(sizes: list[int], quick: bool, window: bool) -> list[dict]:
    from growth import measure

    rows: list[dict] = []
    for size in sizes:
        print(f"growth at {size:,} assets …", flush=True)
        for figure, value, unit, baseline, target in measure(size, quick=quick, window=window):
            rows.append({"figure": figure, "value": value, "unit": unit,
                         "baseline": baseline, "target": target})
    return rows


def _number(value: float) -> str:
    """A count as a whole number (tokens, calls), a measurement with two decimals."""
    return f"{value:,}" if isinstance(value, int) else f"{value:.2f}"


def table(rows: list[dict]) -> str:
    lines = ["| figure | result | same-run baseline | ratio | target |",
             "|---|---|---|---|---|"]
    for row in rows:
        value, unit, baseline = row.get("value"), row.get("unit", ""), row.get("baseline")
        if value is None:
            lines.append(f"| {row['figure']} | | | | |")
            continue
        ratio = f"{value / baseline:.2f}x" if baseline else ""
        base = f"{_number(baseline)} {unit}" if baseline is not None else ""
        lines.append(f"| {row['figure']} | {_number(value)} {unit} | {base} | {ratio} | "
                     f"{row.get('target', '')} |")
    return "\n".join(lines)


def with_display() -> subprocess.Popen | None:
    if os.environ.get("DISPLAY") or not shutil.which("Xvfb"):
        return None
    display = f":{90 + os.getpid() % 100}"
    server = subprocess.Popen(["Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten",
                               "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.environ["DISPLAY"] = display
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # wait for the server's socket
        if Path(f"/tmp/.X11-unix/X{display[1:]}").exists():
            break
        time.sleep(0.05)
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller settings everywhere")
    parser.add_argument("--sizes", default="10000,100000,500000",
                        help="library sizes for the growth table (comma-separated)")
    parser.add_argument("--only", default="", help="comma-separated script names "
                        "(bench_search, ...) and/or 'growth'; default: everything")
    parser.add_argument("--no-window", action="store_true", help="skip window figures")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()} or None
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    logs = scalelib.cache_root() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TMPDIR", tempfile.gettempdir())
    server = None if args.no_window else with_display()
    started = time.perf_counter()
    try:
        rows: list[dict] = []
        if only is None or only - {"growth"}:
            rows += run_scripts(args.quick, only - {"growth"} if only else None, logs)
        if only is None or "growth" in only:
            rows += run_growth(sizes, args.quick, window=not args.no_window
                               and bool(os.environ.get("DISPLAY")))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    print(f"\n{len(rows)} figures in {time.perf_counter() - started:.0f} s (load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs); logs in {logs}\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
