"""`library.refresh` (database check, full re-scan of the file store, missing thumbnails
rebuilt) and
`library.delete-from-disk` (dangerous: plan, then delete the whole folder when closed).

Runs in the worker process. Refresh is a `task` on the writer thread (no import can add
files while the store is scanned); it shows up as a `refresh` task and can be cancelled.
It first runs SQLite's `quick_check` (the check an open skips after a clean close): a damaged
database fails the refresh with `INTERNAL` / reason `corrupt` and nothing is changed.
Files without a record go to `.orphans/<time>/` and are reported, never deleted; records
whose file is gone are flagged `missing` (kept, reported) and unflagged when the file is
back (in a studio library, a file without a record that is younger than `IN_FLIGHT_SECONDS`
stays: another machine may be about to commit its record); a size that differs from the
record is reported as damaged. The flag changes are one
transaction that bumps the affected assets' versions (not undoable: it states what is on
disk). Then thumbnails missing for images are made again (two threads), and stale ones of
content no longer in the library are removed (derived files only).

Delete-from-disk's plan states what goes (the folder, its assets, its size on disk); the
confirmed command checks the plan is still current and requests the deletion, which
happens when the worker closes (see `library.deletion`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from library import deletion
from library.catalogue import task_kinds
from library.errors import STALE_PLAN, LibraryError
from library.schemas import (
    Empty,
    LibraryDeleteFromDiskIn,
    LibraryDeleteFromDiskOut,
    LibraryRefreshOut,
    RiskReport,
    RiskTarget,
)
from library.units import human_size
from library.worker.context import ReadContext, TaskContext
from library.worker.files import imageformats
from library.worker.files.thumbstore import NoThumbnail, store_for
from library.worker.rows.assetrows import chunks, marks
from library.worker.store.layout import Layout, stored_name
from library.worker.store.recovery import check_database, move_orphans
from library.worker.tasks.taskrunner import Tracked, tracked

MAX_REPORTED = 200
IN_FLIGHT_SECONDS = 600
THUMB_SIZE = 256
THUMB_THREADS = 2


# -- library.refresh ------------------------------------------------------------------------
def refresh(ctx: TaskContext, args: Empty) -> LibraryRefreshOut:
    rows = ctx.conn.execute("SELECT id, sha256, ext, size, kind, format, width, height, "
                            "missing FROM assets ORDER BY id").fetchall()
    out = LibraryRefreshOut(checked=0, missing_files=0, thumbnails_rebuilt=0, orphans_moved=0)
    with tracked(ctx, task_kinds.REFRESH, len(rows)) as task:
        out.task_id = task.task_id
        task.progress(0, task.total, "Checking the database")
        check_database(ctx.conn)
        out.integrity = "ok"
        gone = _check_files(ctx, task, rows, out)
        if not task.cancelled():
            _rebuild_thumbnails(ctx, task, rows, gone, out)
        out.cancelled = task.cancelled()
        task.result = out.model_dump(mode="json", by_alias=True,
                                     exclude={"missing_asset_ids", "damaged_asset_ids"})
        task.message = "Cancelled" if out.cancelled else "Refreshed"
    return out


def _check_files(ctx: TaskContext, task: Tracked, rows: list[sqlite3.Row],
                 out: LibraryRefreshOut) -> set[str]:
    """Compare the store with the records; returns the ids whose file is missing now."""
    layout = ctx.layout
    expected = {stored_name(r["sha256"], r["ext"]): r for r in rows}
    present, orphans = _scan_store(layout, expected)
    if ctx.services.kind == "studio":
        orphans = [path for path in orphans if not _in_flight(path)]
    missing, back, damaged = [], [], []
    for index, row in enumerate(rows):
        if task.cancelled():
            return set()  # nothing recorded: the next refresh starts over
        size = present.get(stored_name(row["sha256"], row["ext"]))
        if size is None:
            if not row["missing"]:
                missing.append(row["id"])
        else:
            if row["missing"]:
                back.append(row["id"])
            if size != row["size"]:
                damaged.append(row["id"])
        if index % 500 == 0:
            task.progress(index, task.total, "Checking files")
    out.checked = len(rows)
    task.progress(len(rows), task.total, "Checking files")
    if orphans:
        folder = move_orphans(layout, orphans)
        out.orphans_moved = len(orphans)
        out.orphans_folder = folder.relative_to(layout.root).as_posix()
    if missing or back:
        with ctx.transaction() as tx:
            for ids, flag in ((missing, 1), (back, 0)):
                for part in chunks(ids):
                    tx.conn.execute(f"UPDATE assets SET missing = ?, version = version + 1 "
                                    f"WHERE id IN ({marks(len(part))})", (flag, *part))
            tx.touch("asset", missing + back)
            tx.summary = (f"Refresh: {len(missing)} file(s) missing, {len(back)} back")
    out.missing_files = len(missing) + sum(1 for r in rows if r["missing"]) - len(back)
    out.missing_asset_ids = missing[:MAX_REPORTED]
    out.files_back = len(back)
    out.damaged_files = len(damaged)
    out.damaged_asset_ids = damaged[:MAX_REPORTED]
    back_ids = set(back)
    return set(missing) | {r["id"] for r in rows if r["missing"] and r["id"] not in back_ids}


def _in_flight(path: Path) -> bool:
    """Written (or renamed into place) lately: maybe another machine's import under way."""
    try:
        status = path.stat(follow_symlinks=False)
    except OSError:
        return True
    return time.time() - max(status.st_mtime, status.st_ctime) < IN_FLIGHT_SECONDS


def _scan_store(layout: Layout, expected: dict[str, sqlite3.Row]
                ) -> tuple[dict[str, int], list[Path]]:
    """Sizes of the files records point at, and everything else in `files/` (orphans)."""
    present: dict[str, int] = {}
    orphans: list[Path] = []
    if not layout.files.is_dir():
        return present, orphans
    for bucket in os.scandir(layout.files):
        if not bucket.is_dir(follow_symlinks=False):
            orphans.append(Path(bucket.path))
            continue
        for entry in os.scandir(bucket.path):
            if (entry.name in expected and entry.name[:2] == bucket.name
                    and entry.is_file(follow_symlinks=False)):
                present[entry.name] = entry.stat(follow_symlinks=False).st_size
            else:
                orphans.append(Path(entry.path))
    return present, orphans


def _rebuild_thumbnails(ctx: TaskContext, task: Tracked, rows: list[sqlite3.Row],
                        gone: set[str], out: LibraryRefreshOut) -> None:
    layout = ctx.layout
    store = store_for(layout)
    listings: dict[str, set[str]] = {}
    wanted: list[sqlite3.Row] = []
    for row in rows:
        sha256 = row["sha256"]
        names = listings.get(sha256[:2])
        if names is None:
            names = listings[sha256[:2]] = store.listing(sha256[:2])
        if (row["kind"] != "image" or row["id"] in gone
                or store.has_any(sha256, names) or not _decodable(row)):
            continue
        if f"{sha256}.failed" in names and store.failure(sha256) is not None:
            continue  # today's decoders already failed on it
        wanted.append(row)
    out.thumbnails_removed = _remove_stale(layout, {r["sha256"] for r in rows})
    base = len(rows)
    total = base + len(wanted)
    task.progress(base, total, "Making thumbnails")

    def make(row: sqlite3.Row) -> bool | None:
        if task.cancelled():
            return None
        try:
            store.get(layout.file_for(row["sha256"], row["ext"]), row["sha256"], row["ext"],
                      THUMB_SIZE, row["width"], row["height"])
            return True
        except (NoThumbnail, FileNotFoundError):
            return False

    with ThreadPoolExecutor(THUMB_THREADS, thread_name_prefix="refresh-thumbs") as pool:
        for index, made in enumerate(pool.map(make, wanted)):
            if made is True:
                out.thumbnails_rebuilt += 1
            elif made is False:
                out.thumbnails_failed += 1
            task.progress(base + index + 1, total, "Making thumbnails")


def _remove_stale(layout: Layout, known: set[str]) -> int:
    """Thumbnails (and failure markers) of content no longer in the library."""
    removed = 0
    if not layout.thumbs.is_dir():
        return 0
    for bucket in os.scandir(layout.thumbs):
        if not bucket.is_dir(follow_symlinks=False) or bucket.name.startswith("."):
            continue
        for entry in os.scandir(bucket.path):
            sha256 = entry.name.split("_", 1)[0].split(".", 1)[0]
            if sha256 not in known and entry.is_file(follow_symlinks=False):
                Path(entry.path).unlink(missing_ok=True)
                removed += 1
    return removed


def _decodable(row: sqlite3.Row) -> bool:
    if row["format"] is not None:
        return bool(row["format"] not in imageformats.NEVER_OPENED)
    return bool(row["ext"]) and imageformats.decodable_ext(row["ext"])


# -- library.delete-from-disk ------------------------------------------------------------------
def _deletion_report(conn: sqlite3.Connection, layout: Layout) -> RiskReport:
    state = conn.execute("SELECT library_id, name FROM library_state").fetchone()
    count, asset_bytes = conn.execute(
        "SELECT count(*), coalesce(sum(size), 0) FROM assets").fetchone()
    on_disk = _folder_size(layout.root)
    token_source = f"library.delete-from-disk|{state['library_id']}|{count}|{asset_bytes}"
    token = "st_" + hashlib.sha256(token_source.encode()).hexdigest()[:32]
    summary = (f"Delete the library “{state['name']}” from disk: the folder "
               f"{layout.root.name} with {count} asset{'s' if count != 1 else ''} "
               f"({human_size(on_disk)} on disk), trash and history included. This cannot "
               f"be undone.")
    return RiskReport(summary=summary, count=count, total_bytes=on_disk, irreversible=True,
                      state_token=token,
                      targets=[RiskTarget(id=state["library_id"], name=state["name"],
                                          version=count, size=on_disk)])


def plan_delete_from_disk(ctx: ReadContext, args: LibraryDeleteFromDiskIn) -> RiskReport:
    return _deletion_report(ctx.conn, ctx.layout)


def delete_from_disk(ctx: TaskContext, args: LibraryDeleteFromDiskIn
                     ) -> LibraryDeleteFromDiskOut:
    """Requests the deletion; it happens when the worker closes (the caller closes it)."""
    report = _deletion_report(ctx.conn, ctx.layout)
    if args.state_token is not None and args.state_token != report.state_token:
        raise LibraryError(STALE_PLAN, "The library changed since the plan was made; make a "
                           "new plan.", currentStateToken=report.state_token)
    deletion.check_deletable(ctx.layout.root)
    deletion.request(ctx.layout.root, ctx.services.library_id)
    return LibraryDeleteFromDiskOut(deleted=False, asset_count=report.count,
                                    freed_bytes=report.total_bytes)


def _folder_size(root: Path) -> int:
    total = 0
    for directory, subdirs, files in os.walk(root, followlinks=False):
        for name in files:
            with contextlib.suppress(OSError):  # gone meanwhile
                total += os.lstat(os.path.join(directory, name)).st_size
        subdirs[:] = [d for d in subdirs if not os.path.islink(os.path.join(directory, d))]
    return total
