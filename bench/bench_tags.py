"""Benchmark: `tag.list` (the sidebar asks after every change) on a generated 100,000-asset
library with 2,000 tags, through `library.client` (pipe + worker + validation), against the
same page read by raw SQL on the same file and against the per-request COUNT that `tag.list`
ran before the counts were kept by triggers (schema migration 5), measured in the same run.

Run: `.venv/bin/python bench/bench_tags.py [--assets 100000] [--tags 2000] [--rounds 30]`.
Target: the default page (50) sorted by name and by count well under 50 ms.
The library is made like `bench_search.py` does (real worker, then direct SQL; the kept
counts fill through their triggers), and one change between rounds (tag an asset, trash
it, restore it) keeps the worker's caches honest.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_search import fill  # noqa: E402
from benchdata import percentile, record, summary  # noqa: E402

from library.client import LibraryHost  # noqa: E402

KEPT = ("SELECT t.name, t.version, t.live_count FROM tags t ORDER BY {order} LIMIT ?")
COUNTED = ("SELECT t.name, t.version, (SELECT count(*) FROM asset_tags at JOIN assets a "
           "ON a.id = at.asset_id WHERE at.tag_id = t.id AND a.trashed = 0) AS count "
           "FROM tags t ORDER BY {order} LIMIT ?")
ORDERS = {"name": "t.name COLLATE NOCASE ASC, t.id",
          "count": "{count} DESC, t.name COLLATE NOCASE ASC, t.id"}


def timed(run) -> tuple[float, object]:
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--assets", type=int, default=100_000)
    parser.add_argument("--tags", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-tags-"))
    host = LibraryHost()
    rng = random.Random(4)
    try:
        ref = host.create(work, "Big").result(60)
        host.close(ref["libraryId"]).result(60)
        db_path = Path(ref["path"]) / "library.sqlite"
        started = time.perf_counter()
        fill(db_path, args.assets, args.tags)
        print(f"generated {args.assets} assets, {args.tags} tags in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        library_id = host.open(ref["path"]).result(120)["libraryId"]
        raw = sqlite3.connect(db_path)
        raw.execute("PRAGMA query_only = ON")
        some = [i["id"] for i in host.call(library_id, "asset.search",
                                           {"limit": 200}).result(60)["items"]]
        times: dict[str, list[float]] = {}
        for round_number in range(args.rounds):
            asset = rng.choice(some)
            change = ("asset.tag", {"assetIds": [asset], "tags": [f"bench-{round_number}"]})
            if round_number % 3 == 1:
                change = ("asset.trash", {"assetIds": [asset]})
            elif round_number % 3 == 2:
                change = ("asset.restore", {"assetIds": [asset]})
            host.call(library_id, *change).result(60)
            for sort in ("name", "count"):
                for limit in (50, 500):
                    elapsed, result = timed(lambda s=sort, n=limit: host.call(
                        library_id, "tag.list", {"sort": s, "limit": n}).result(60))
                    times.setdefault(f"client {sort}, {limit}", []).append(elapsed)
                    order = ORDERS[sort].format(count="t.live_count")
                    raw_time, rows = timed(lambda o=order, n=limit: raw.execute(
                        KEPT.format(order=o), (n + 1,)).fetchall())
                    times.setdefault(f"raw    {sort}, {limit}", []).append(raw_time)
                    assert [(t["name"], t["count"]) for t in result["items"]] == [
                        (r[0], r[2]) for r in rows[:limit]], (sort, limit)
                    if round_number < 3:  # the old per-request count: slow, a few rounds
                        order = ORDERS[sort].format(count="count")
                        old_time, old = timed(lambda o=order, n=limit: raw.execute(
                            COUNTED.format(order=o), (n + 1,)).fetchall())
                        times.setdefault(f"COUNT  {sort}, {limit}", []).append(old_time)
                        assert [(r[0], r[2]) for r in old] == [(r[0], r[2]) for r in rows]
        raw.close()
        for label in sorted(times, key=lambda k: (k.split()[1], k.split()[2], k)):
            print(f"{label:20s} {summary(times[label])}")
        for sort in ("name", "count"):
            client = percentile(times[f"client {sort}, 50"], 50)
            old = percentile(times[f"COUNT  {sort}, 50"], 50)
            print(f"default page by {sort}: client p50 {client * 1000:.2f} ms (target < 50 "
                  f"ms); the per-request COUNT it replaced {old * 1000:.1f} ms "
                  f"({old / client:.0f}x)")
            raw_p50 = percentile(times[f"raw    {sort}, 50"], 50)
            record(f"tag.list default page by {sort} p50 ({args.assets:,} assets)",
                   client * 1000, "ms", baseline=raw_p50 * 1000, target="< 50 ms",
                   note=f"the per-request COUNT it replaced: {old * 1000:.1f} ms")
    finally:
        host.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
