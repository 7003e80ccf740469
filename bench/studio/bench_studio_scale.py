"""Benchmark: a big studio library (PostgreSQL, docs/studio.md) against a local one (SQLite)
of the same size, in the same run, through `library.client` (pipe + worker): search pages,
a smart collection's count after a change, and an import into the big library.

Run: `.venv/bin/python bench/studio/bench_studio_scale.py [--sizes 10000,100000]` (apart
from `run_all.py`: it starts a PostgreSQL). Default: 10,000 assets, a few minutes.
How the libraries are built: the local one is `growth.py`'s cached library (`scalelib`:
made by the worker, filled with SQL inserts: assets, 2,000 tags, the text index); the studio
one is made by the worker in a new database, and that local library's rows are copied into
it by `library/worker/studio/transfer.py` (what moving a library onto a studio server does;
`studio_setup.build`). Making 100,000 assets through imports would take hours and measure
the import, not the library. Every measured call then goes through the real worker of each.
Baseline in the same run: the local library of the same size, its calls interleaved with the
studio's (local, studio, local, ...); the PostgreSQL is local too (loopback, fsync on): a
studio's network adds its round trips to every studio figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

import scalelib  # noqa: E402
import studio_setup  # noqa: E402
from benchdata import percentile, record, write_small_images  # noqa: E402

from library.client import LibraryHost  # noqa: E402

TIMEOUT = 600
WORDS = ("sun", "forest", "castle", "neon 12")
Pair = tuple[str, str]  # (local library id, studio library id)
Row = tuple[str, float, float, str]  # figure, studio ms, local ms, target


def timed(host: LibraryHost, library_id: str, method: str, args: dict[str, Any]
          ) -> float:
    started = time.perf_counter()
    host.call(library_id, method, args).result(TIMEOUT)
    return time.perf_counter() - started


def interleaved(host: LibraryHost, pair: Pair, runs: int,
                one: Callable[[str, int], float]) -> tuple[list[float], list[float]]:
    """`one(library_id, n)` timed `runs` times on each library, alternating."""
    local: list[float] = []
    studio: list[float] = []
    for n in range(runs):
        local.append(one(pair[0], n))
        studio.append(one(pair[1], n))
    return studio, local


def search(host: LibraryHost, pair: Pair, tag: str, count: int, runs: int) -> list[Row]:
    rows: list[Row] = []
    shapes: list[tuple[str, dict[str, Any]]] = [
        ("first page", {"limit": 50}), ("one tag", {"limit": 50, "tags": [tag]}),
        ("by name", {"limit": 50, "sort": "name-asc"})]
    for label, args in shapes:
        for library_id in pair:  # warmed once, as the window's first page warms it
            timed(host, library_id, "asset.search", args)
        studio, local = interleaved(host, pair, runs,
                                    lambda lib, _n, a=args: timed(host, lib, "asset.search", a))
        rows.append((f"search {label} p50 ({count:,})", percentile(studio, 50) * 1000,
                     percentile(local, 50) * 1000, ""))
    studio, local = interleaved(host, pair, len(WORDS), lambda lib, n: timed(
        host, lib, "asset.search", {"text": WORDS[n], "limit": 50}))
    rows.append((f"search text, first time, p50 of {len(WORDS)} words ({count:,})",
                 percentile(studio, 50) * 1000, percentile(local, 50) * 1000, "< 20 ms"))
    return rows


def smart(host: LibraryHost, pair: Pair, count: int, runs: int) -> list[Row]:
    """A smart collection's count on the first `collection.list` after an asset is rated,
    once the collection was counted (the sidebar lists it as soon as it exists)."""
    rules = {"match": "all", "rules": [{"field": "rating", "op": "gte", "value": 3}]}
    made, asset = {}, {}
    for library_id in pair:
        made[library_id] = host.call(library_id, "collection.create", {
            "name": f"bench rated {time.time_ns()}", "rules": rules}).result(TIMEOUT)["id"]
        asset[library_id] = host.call(library_id, "asset.search", {"limit": 1}
                                      ).result(TIMEOUT)["items"][0]["id"]
        host.call(library_id, "collection.list", {}).result(TIMEOUT)

    def one(library_id: str, n: int) -> float:
        host.call(library_id, "asset.update", {"assetId": asset[library_id],
                                               "rating": n % 6}).result(TIMEOUT)
        return timed(host, library_id, "collection.list", {})

    try:
        studio, local = interleaved(host, pair, runs, one)
    finally:
        for library_id in pair:
            host.call(library_id, "collection.delete",
                      {"collectionId": made[library_id]}).result(TIMEOUT)
    return [(f"smart collection count after a change p99 ({count:,})",
             percentile(studio, 99) * 1000, percentile(local, 99) * 1000, "<= 50 ms")]


def imports(host: LibraryHost, pair: Pair, count: int, files: int, work: Path) -> list[Row]:
    """`files` small PNGs new to both libraries, imported into each (the studio's go to its
    shared folder); moved to the trash and the trash emptied after, so the cached local
    library stays as it was built."""
    times: dict[str, float] = {}
    for n in range(len(pair)):
        sources = work / f"import-{n}"
        paths, _ = write_small_images(sources, files)
        stamp = f"{count}-{n}-{time.time_ns()}".encode()
        for path in paths:
            path.write_bytes(path.read_bytes() + stamp)
    os.sync()
    for n, library_id in enumerate(pair):
        started = time.perf_counter()
        result = host.call(library_id, "file.import",
                           {"sourcePaths": [str(work / f"import-{n}")]}).result(TIMEOUT)
        times[library_id] = time.perf_counter() - started
        ids = [i["assetId"] for i in result["items"] if i.get("assetId")]
        host.call(library_id, "asset.trash", {"assetIds": ids}).result(TIMEOUT)
        host.call(library_id, "trash.empty", {}).result(TIMEOUT)
    return [(f"import {files} small files ({count:,})", times[pair[1]] * 1000,
             times[pair[0]] * 1000, "")]


def measure(server: Any, count: int, work: Path, runs: int, files: int) -> list[Row]:
    user_data = scalelib.ensure(count)
    os.environ["SERPENT_USER_DATA_PATH"] = str(user_data)
    local = scalelib.library_path(user_data)
    with sqlite3.connect(f"file:{local / 'library.sqlite'}?mode=ro", uri=True) as db:
        tag = db.execute("SELECT name FROM tags ORDER BY id LIMIT 1 OFFSET 7").fetchone()[0]
    shared = work / f"shared-{count}"
    shared.mkdir()
    host = LibraryHost()
    try:
        made = studio_setup.build(host, local, shared, server.new_database(f"scale{count}"),
                                  f"Studio {count}")
        pair = (host.open(local).result(TIMEOUT)["libraryId"],
                host.open(made["path"]).result(TIMEOUT)["libraryId"])
        rows = search(host, pair, tag, count, runs)
        rows += smart(host, pair, count, max(5, runs // 2))
        rows += imports(host, pair, count, files, work)
        for library_id in pair:
            host.close(library_id).result(TIMEOUT)
    finally:
        host.shutdown()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="library sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=40, help="calls timed per search shape")
    parser.add_argument("--files", type=int, default=200, help="small files imported")
    options = parser.parse_args()
    print("load average at the start: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    sizes = [int(s) for s in options.sizes.split(",") if s.strip()]
    server = studio_setup.durable_server()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-studio-scale-"))
    rows: list[Row] = []
    try:
        for count in sizes:
            rows += measure(server, count, work, options.rounds, options.files)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'figure':<58} {'studio':>10} {'local':>10} {'ratio':>7}")
    for figure, studio, local, target in rows:
        print(f"{figure:<58} {studio:>8.2f}ms {local:>8.2f}ms {studio / local:>6.2f}x"
              + (f"  target {target}" if target else ""))
        record(f"studio {figure}", studio, "ms", baseline=local, target=target,
               note="local (SQLite) library of the same size as baseline")
    print("load average at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
