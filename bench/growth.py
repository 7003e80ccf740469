"""How cost grows with library size: open, search, smart collections, import, window.

Runs in the benchmark process (`bench/run_all.py` calls `measure`). Each figure is measured
on a cached library of the given size (`scalelib`) next to a baseline measured in the same
run that shares none of the code it judges: raw `sqlite3` on the same file (open, search,
count), a plain copy + sha-256 loop (import), a bare Tk window started the same way
(window). Returns rows for the table: (figure, value, unit, baseline, target).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import scalelib  # noqa: E402
from bench_search import raw_page  # noqa: E402
from benchdata import percentile, write_small_images  # noqa: E402

Row = tuple[str, float, str, float | None, str]
ORDER = "a.added_at DESC, a.rowid DESC"


def measure(count: int, *, quick: bool, window: bool) -> list[Row]:
    user_data = scalelib.ensure(count)
    os.environ["SERPENT_USER_DATA_PATH"] = str(user_data)
    library = scalelib.library_path(user_data)
    rows: list[Row] = []
    from library.client import LibraryHost

    host = LibraryHost()
    try:
        rows += _open(host, library, count, runs=2 if quick else 3)
        library_id = host.open(library).result(600)["libraryId"]
        rows += _search(host, library_id, library, count, runs=10 if quick else 40)
        rows += _smart(host, library_id, library, count, runs=5 if quick else 20)
        rows += _text_after_change(host, library_id, library, count, runs=5 if quick else 20)
        rows += _import(host, library_id, count, files=50 if quick else 200)
        host.close(library_id).result(600)
    finally:
        host.shutdown()
    if window:
        rows += _window(user_data, count, runs=1 if quick else 7)
    return rows


def _open(host, library: Path, count: int, runs: int) -> list[Row]:
    """Open after a clean close as a person feels it in the running app: `library.open`
    until the library answers its first page, the app's spare worker ready (the app keeps
    one); the same with a new worker process; and the part inside the worker. Baseline:
    raw sqlite opening the file and reading the same first page."""
    from library.client import LibraryHost
    from library.spare_worker import SpareWorkers

    spares = SpareWorkers(refill_after=3600)  # started by hand: no import runs meanwhile
    app_host = LibraryHost(spares=spares)
    felt, cold, inside, raw = [], [], [], []
    check = ""
    try:
        for _ in range(runs):
            spares.start()
            spares.wait_ready(120)
            felt.append(_open_until_first_page(app_host, library))
            spares.start()
            spares.wait_ready(120)
            cold.append(_open_until_first_page(host, library))
            ref = host.open(library).result(600)
            report = host.recovery_report(ref["libraryId"])
            check = report.get("check", "")
            inside.append(report.get("openMs", 0.0))
            host.close(ref["libraryId"]).result(600)
            started = time.perf_counter()
            db = sqlite3.connect(library / "library.sqlite")
            db.execute("SELECT * FROM library_state").fetchall()
            raw_page(db, "a.trashed = ?", [0], ORDER)
            db.close()
            raw.append(time.perf_counter() - started)
    finally:
        app_host.shutdown()
    base = statistics.median(raw) * 1000
    return [(f"open after clean close until the first page, running app ({count:,})",
             statistics.median(felt) * 1000, "ms", base, "<= 300 ms at 500k"),
            (f"open after clean close until the first page, new worker process ({count:,})",
             statistics.median(cold) * 1000, "ms", base, ""),
            (f"open after clean close, library part in the worker ({count:,}; {check})",
             statistics.median(inside), "ms", base, "")]


def _open_until_first_page(host, library: Path) -> float:
    started = time.perf_counter()
    ref = host.open(library).result(600)
    host.call(ref["libraryId"], "asset.search", {"limit": 50}).result(600)
    elapsed = time.perf_counter() - started
    host.close(ref["libraryId"]).result(600)
    return elapsed


def _search(host, library_id: str, library: Path, count: int, runs: int) -> list[Row]:
    db = sqlite3.connect(library / "library.sqlite")
    db.execute("PRAGMA query_only = ON")
    tag, tag_id = db.execute("SELECT name, id FROM tags ORDER BY id LIMIT 1 OFFSET 7").fetchone()
    shapes = [("first page", {"limit": 50}, "a.trashed = ?", [0]),
              ("one tag", {"limit": 50, "tags": [tag]},
               "a.trashed = ? AND a.id IN (SELECT asset_id FROM asset_tags WHERE tag_id = ?)",
               [0, tag_id])]
    rows: list[Row] = []
    for label, args, where, params in shapes:
        client, raw = [], []
        for _ in range(runs):
            started = time.perf_counter()
            host.call(library_id, "asset.search", args).result(60)
            client.append(time.perf_counter() - started)
            started = time.perf_counter()
            raw_page(db, where, params, ORDER)
            raw.append(time.perf_counter() - started)
        rows.append((f"search {label} p50 ({count:,})", percentile(client, 50) * 1000, "ms",
                     percentile(raw, 50) * 1000, "<= raw + 2 ms"))
    text = []
    for word in ("sun", "forest", "castle", "neon 12"):
        started = time.perf_counter()
        host.call(library_id, "asset.search", {"text": word, "limit": 50}).result(60)
        text.append(time.perf_counter() - started)
    rows.append((f"search text p50 ({count:,})", percentile(text, 50) * 1000, "ms", None,
                 "< 20 ms"))
    db.close()
    return rows


def _smart(host, library_id: str, library: Path, count: int, runs: int) -> list[Row]:
    """A smart collection's count on the first call after a change (an asset rated), once
    the collection was counted (the sidebar lists it as soon as it exists)."""
    rules = {"match": "all", "rules": [{"field": "rating", "op": "gte", "value": 3}]}
    created = host.call(library_id, "collection.create",
                        {"name": f"bench rated {time.time_ns()}", "rules": rules}).result(60)
    asset = host.call(library_id, "asset.search", {"limit": 1}).result(60)["items"][0]["id"]
    host.call(library_id, "collection.list", {}).result(60)  # the sidebar has shown it once
    db = sqlite3.connect(library / "library.sqlite")
    client, raw = [], []
    try:
        for n in range(runs):
            host.call(library_id, "asset.update", {"assetId": asset, "rating": n % 6}).result(60)
            started = time.perf_counter()
            host.call(library_id, "collection.list", {}).result(60)
            client.append(time.perf_counter() - started)
            started = time.perf_counter()
            db.execute("SELECT count(*) FROM assets WHERE trashed = 0 AND rating >= 3").fetchone()
            raw.append(time.perf_counter() - started)
    finally:
        db.close()
        host.call(library_id, "collection.delete",
                  {"collectionId": created["id"]}).result(60)
    return [(f"smart collection count after a change p99 ({count:,})",
             percentile(client, 99) * 1000, "ms", percentile(raw, 99) * 1000, "<= 50 ms")]


def _text_after_change(host, library_id: str, library: Path, count: int, runs: int
                       ) -> list[Row]:
    """A free-text search asked again after each change (an asset rated), as a grid showing
    a search does: its page and its exact total, once the same search was counted before.
    Baseline: SQLite counting the word's matches in the text index, as a fresh count must."""
    asset = host.call(library_id, "asset.search", {"limit": 1}).result(60)["items"][0]["id"]
    db = sqlite3.connect(library / "library.sqlite")
    db.execute("PRAGMA query_only = ON")
    rows: list[Row] = []
    try:
        for word, label in (("sun", "many matches"), ("castle 4711", "few matches")):
            args = {"text": word, "limit": 50}
            host.call(library_id, "asset.search", args).result(60)  # shown once already
            query = " ".join(f'"{w}"' for w in word.split() if len(w) >= 3)
            client, raw = [], []
            for n in range(runs):
                host.call(library_id, "asset.update",
                          {"assetId": asset, "rating": n % 6}).result(60)
                started = time.perf_counter()
                host.call(library_id, "asset.search", args).result(60)
                client.append(time.perf_counter() - started)
                started = time.perf_counter()
                db.execute("SELECT count(*) FROM assets_fts WHERE assets_fts MATCH ?",
                           (query,)).fetchone()
                raw.append(time.perf_counter() - started)
            rows.append((f"search text after a change p99, {label} ({count:,})",
                         percentile(client, 99) * 1000, "ms", percentile(raw, 99) * 1000,
                         "<= 50 ms"))
    finally:
        db.close()
    return rows


def _import(host, library_id: str, count: int, files: int) -> list[Row]:
    work = Path(tempfile.mkdtemp(prefix="serpent-growth-import-"))
    try:
        paths, _ = write_small_images(work / "sources", files)
        stamp = f"{count}-{time.time_ns()}".encode()
        for path in paths:  # content new to this (cached, reused) library
            path.write_bytes(path.read_bytes() + stamp)
        os.sync()
        started = time.perf_counter()
        target = work / "plain"
        target.mkdir()
        for path in paths:
            digest = hashlib.sha256()
            with open(path, "rb") as reader, open(target / (path.name + ".part"), "wb") as out:
                data = reader.read()
                digest.update(data)
                out.write(data)
            os.replace(target / (path.name + ".part"), target / digest.hexdigest())
        plain = time.perf_counter() - started
        os.sync()
        started = time.perf_counter()
        result = host.call(library_id, "file.import",
                           {"sourcePaths": [str(work / "sources")]}).result(600)
        elapsed = time.perf_counter() - started
        ids = [i["assetId"] for i in result["items"] if i.get("assetId")]
        host.call(library_id, "asset.trash", {"assetIds": ids}).result(600)
        host.call(library_id, "trash.empty", {}).result(600)  # the cached library stays as built
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [(f"import {files} small files ({count:,})", elapsed * 1000, "ms", plain * 1000,
             "<= 1.5x plain copy+hash")]


def _window(user_data: Path, count: int, runs: int) -> list[Row]:
    from bench_ui import compile_like_an_install, time_bare_tk, time_serpent

    compile_like_an_install()
    time_bare_tk()
    bare = statistics.median(time_bare_tk() for _ in range(runs))
    drawn, shown = [], []
    for _ in range(runs):
        d, s, _line = time_serpent(user_data)
        drawn.append(d)
        shown.append(s)
    target = "<= 600 ms at 100k" if count <= 100_000 else "<= 800 ms at 500k"
    return [(f"window drawn ({count:,})", statistics.median(drawn) * 1000, "ms", bare * 1000,
             ""),
            (f"window first grid page ({count:,})", statistics.median(shown) * 1000, "ms",
             bare * 1000, target)]
