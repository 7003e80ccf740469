"""Big benchmark libraries (10k-500k assets), built once with SQL inserts and cached.

Runs in the benchmark process. A library is created by the real worker (schema, identity),
then filled with direct SQL (`bench_search.fill`: assets, 2,000 tags, the text index through
its triggers), then opened and closed once by the worker so it carries a clean-close marker.
It lives in a user data folder (settings remember it as the library to open, MCP auto-start
off) under the cache folder, never in the repository: `$SERPENT_BENCH_CACHE`, default
`<tmp>/serpent-bench-cache/assets-<N>/`. Only the 60 newest assets get a real (tiny) file,
so the window's first page has pictures; the rest are rows without files, which is what
the benchmarks measure (opening, searching, counting), not file reconciliation.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_search import fill  # noqa: E402
from benchdata import tiny_png  # noqa: E402

TAGS = 2000
WITH_FILES = 60
LIBRARY_NAME = "My Library"
DONE = "built.ok"


def cache_root() -> Path:
    default = Path(tempfile.gettempdir()) / "serpent-bench-cache"
    return Path(os.environ.get("SERPENT_BENCH_CACHE", default))


def user_data_for(count: int) -> Path:
    return cache_root() / f"assets-{count}"


def library_path(user_data: Path) -> Path:
    return user_data / "data" / "Libraries" / f"{LIBRARY_NAME}.serpent"


def ensure(count: int, *, log=print) -> Path:
    """The user data folder of a cached `count`-asset library (built if absent)."""
    user_data = user_data_for(count)
    library = library_path(user_data)
    if (user_data / DONE).is_file() and library.is_dir():
        _repair(library)
        return user_data
    shutil.rmtree(user_data, ignore_errors=True)
    library.parent.mkdir(parents=True)
    started = time.perf_counter()
    log(f"building the {count:,}-asset library in {user_data} (cached for later runs)…")
    from library.client import LibraryHost

    os.environ["SERPENT_USER_DATA_PATH"] = str(user_data)
    host = LibraryHost()
    try:
        ref = host.create(library.parent, LIBRARY_NAME).result(120)
        host.close(ref["libraryId"]).result(120)
        fill(library / "library.sqlite", count, TAGS)
        _write_newest_files(library)
        ref = host.open(library).result(600)       # quick check once, then a clean close
        host.close(ref["libraryId"]).result(600)
    finally:
        host.shutdown()
    from serpent_tk.settings import SettingsStore

    SettingsStore(user_data / "config" / "settings.json").update(
        lambda s: (s.remember_library(library, LIBRARY_NAME),
                   setattr(s.mcp, "auto_start", False)))
    (user_data / DONE).write_text("ok\n")
    log(f"  built in {time.perf_counter() - started:.1f} s")
    return user_data


def _write_newest_files(library: Path) -> None:
    db = sqlite3.connect(library / "library.sqlite", isolation_level=None)
    try:
        rows = db.execute("SELECT rowid, sha256 FROM assets ORDER BY added_at DESC "
                          "LIMIT ?", (WITH_FILES,)).fetchall()
        for rowid, sha256 in rows:
            data = tiny_png(rowid)
            target = library / "files" / sha256[:2] / f"{sha256}.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            db.execute("UPDATE assets SET ext = 'png', kind = 'image', mime = 'image/png', "
                       "size = ?, width = 4, height = 4 WHERE rowid = ?", (len(data), rowid))
    finally:
        db.close()


def _repair(library: Path) -> None:
    """A run that ended uncleanly makes recovery flag the file-less rows missing: undo that,
    so every run measures the same library (the next open then checks it once); tags built
    without their folded name get it; statistics older than the schema are measured again."""
    db = sqlite3.connect(library / "library.sqlite", isolation_level=None)
    try:
        if db.execute("SELECT 1 FROM assets WHERE missing = 1 LIMIT 1").fetchone():
            db.execute("UPDATE assets SET missing = 0 WHERE missing = 1")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        # built by a `fill` that left `tags.folded` empty: no tag could be found by name, and
        # "search one tag" measured a search that matched nothing (bench names: ASCII)
        if db.execute("SELECT 1 FROM tags WHERE folded IS NULL LIMIT 1").fetchone():
            db.execute("UPDATE tags SET folded = lower(name) WHERE folded IS NULL")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        # the library was built (and ANALYZEd) at an older schema: a migration's new index
        # has no statistics, and the planner then prefers it to every measured one
        # (a 100k first page took 380 ms through `assets_by_taken` and a sort)
        measured = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'"
                              ).fetchone()
        unmeasured = measured and db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'assets' "
            "AND name NOT IN (SELECT idx FROM sqlite_stat1 WHERE tbl = 'assets')").fetchall()
        if unmeasured:
            db.execute("ANALYZE")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
