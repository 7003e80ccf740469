"""`library.export`: the whole library folder as one `.zip` archive at `targetPath`.

Runs in the worker process, writer thread (a `task`: nothing changes while it runs; reads
go on). The database goes in as a consistent snapshot made with SQLite's backup API (into
`.staging/`, removed afterwards; a studio library's rows are copied from one snapshot of its
PostgreSQL database into a new SQLite file, `studio.transfer`, so the archive is a library
of one file like any other); files, thumbnails and set-aside orphans go in as they are
(content-addressed: a file never changes under its name). The archive is written under a
temporary name beside the target and renamed when complete, so a cancel or a crash never
leaves a half-written archive under the real name (the hidden partial file of a crashed
export is removed when the library opens again). Shows up as an `export` task while it
runs (task.cancel stops it). An archive that cannot fit on the target's disk (or a snapshot
on the library's) is DISK_FULL before anything is written. An export sent again after its
worker died answers what it wrote (its ledger record says where, `ctx.link.progress`)
instead of refusing its own archive as already there.
"""

from __future__ import annotations

import secrets
import sqlite3
import stat
from pathlib import Path

from library import pathrules
from library.catalogue import task_kinds
from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX
from library.schemas import LibraryExportIn, LibraryExportOut
from library.worker.context import TaskContext
from library.worker.store import diskspace
from library.worker.store.archive import (
    Entry,
    export_target,
    library_entries,
    manifest_for,
    partial_path,
    remove_partial,
    write_archive,
)
from library.worker.store.filestore import SHARED_READ
from library.worker.tasks.taskrunner import CLEANUPS, tracked

KIND = task_kinds.EXPORT
CLEANUPS[KIND] = lambda params: remove_partial(Path(params["partialPath"]))


def export_library(ctx: TaskContext, args: LibraryExportIn) -> LibraryExportOut:
    root = ctx.layout.root
    progress = ctx.link.progress
    if progress.get("exported"):  # sent again: it had finished
        return LibraryExportOut.model_validate(progress["exported"])
    written = _written_before(ctx, progress.get("exportingTo"))
    if written is not None:
        return written
    state = ctx.conn.execute("SELECT library_id, name FROM library_state").fetchone()
    target = export_target(args.target_path, root, state["name"])
    top = root.name if root.name.endswith(LIBRARY_SUFFIX) else \
        f"{pathrules.safe_disk_name(state['name'], suffix=LIBRARY_SUFFIX)}{LIBRARY_SUFFIX}"
    entries = library_entries(root)
    studio = ctx.services.kind == "studio"
    database_size = _studio_size(ctx) if studio else ctx.layout.database.stat().st_size
    diskspace.ensure_room(ctx.layout.staging, database_size)  # the snapshot
    diskspace.ensure_room(target.parent, database_size + sum(e.size for e in entries),
                          where="the disk of targetPath", field="targetPath")
    asset_count = ctx.conn.execute("SELECT count(*) FROM assets").fetchone()[0]
    schema_version = ctx.conn.execute("SELECT max(number) FROM schema_migrations").fetchone()[0]
    total = len(entries) + 1
    temporary = partial_path(target)
    progress["exportingTo"] = str(target)  # recorded with the task's first transaction
    with tracked(ctx, KIND, total, {"targetPath": str(target),
                                    "partialPath": str(temporary)}) as task:
        task.progress(0, total, "Copying the database")
        snapshot = ctx.layout.staging / f"export-{secrets.token_hex(6)}.sqlite"
        try:
            if studio:  # its rows, from the studio database, into one SQLite file
                _studio_snapshot(ctx, snapshot)
            else:
                copy = sqlite3.connect(snapshot)
                try:
                    ctx.conn.backup(copy)
                finally:
                    copy.close()
            mode = (ctx.layout.studio_file if studio else ctx.layout.database).stat().st_mode
            database = Entry(DATABASE_NAME, snapshot, snapshot.stat().st_size,
                             stat.S_IMODE(mode))
            size = write_archive(
                target, temporary, top, database, entries,
                manifest_for(state["library_id"], state["name"], schema_version),
                cancelled=task.cancelled,
                progress=lambda done, name: task.progress(done + 1, total, name),
                readable=root.stat().st_mode & SHARED_READ)
        finally:
            snapshot.unlink(missing_ok=True)
        task.progress(total, total, "Exported")
        task.result = {"path": str(target), "assetCount": asset_count, "bytes": size}
        out = LibraryExportOut(path=str(target), asset_count=asset_count, bytes=size,
                               files=total, task_id=task.task_id)
        progress["exported"] = out.model_dump(mode="json", by_alias=True)  # with its last
    return out


def _written_before(ctx: TaskContext, target: str | None) -> LibraryExportOut | None:
    """The archive a first run of this call wrote before its worker died, if complete (it
    gets its real name only once whole; nothing changed in the library since: a task)."""
    if target is None or not Path(target).is_file() or partial_path(Path(target)).exists():
        return None
    count = ctx.conn.execute("SELECT count(*) FROM assets").fetchone()[0]
    return LibraryExportOut(path=target, asset_count=count, bytes=Path(target).stat().st_size,
                            files=len(library_entries(ctx.layout.root)) + 1)


def _studio_size(ctx: TaskContext) -> int:
    """About what a studio library's rows take as a SQLite file (room to check for)."""
    return int(ctx.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def _studio_snapshot(ctx: TaskContext, snapshot: Path) -> None:
    from library.worker.studio.transfer import sqlite_snapshot

    reader = ctx.services.reader()
    try:
        sqlite_snapshot(reader, snapshot)
    finally:
        reader.close()
