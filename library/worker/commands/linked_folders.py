"""Linked folders: `linked-folder.list`, `.create`, `.reconnect`, `.unlink`, `.update-rules`,
`.refresh`; the sync job the folder watcher queues; starting the watcher.

Runs in the worker process. A linked folder is a folder on disk whose files (filtered by its
rules) are copied into the library like any import, into a library folder of its own, and
kept in step: the watcher (`linkwatch`) queues a sync when files appear or change, and
`refresh` syncs at once (see `linksync` for what a sync does; a disk folder that is gone
answers PATH_NOT_FOUND with the linked folder's id, and the folder shows as `missing`).
Disk subfolders are mirrored as library folders under the linked folder's, renamed and moved
along with the disk (`linkmirror`, `linkwatch`). `list` runs on a reader thread; the
commands that sync run on the writer thread as `task`s (cancellable, with progress). Each
command is one undo step with the sync it ran (`linkedstate`): undoing a link removes the
linked folder and its library folders and trashes what it imported; undoing an unlink,
reconnect or rules change puts the linked folder back as it was. The watcher's own syncs
are not steps. A command sent again after its worker died goes on where it stopped (what
its first transaction did is in its ledger record, `ctx.link.progress`). Files on disk are
never changed or deleted by Serpent.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from library import pathrules, private_paths
from library.errors import (
    ALREADY_EXISTS,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PATH_FORBIDDEN,
    PATH_INVALID,
    PATH_NOT_FOUND,
    VERSION_CONFLICT,
    LibraryError,
)
from library.schemas import (
    Empty,
    LinkedFolder,
    LinkedFolderCreateIn,
    LinkedFolderListOut,
    LinkedFolderReconnectIn,
    LinkedFolderRefreshIn,
    LinkedFolderRefreshOut,
    LinkedFolderRules,
    LinkedFolderUnlinkIn,
    LinkedFolderUpdateRulesIn,
)
from library.worker.commands import background
from library.worker.commands.analysis import queue_analysis
from library.worker.context import ReadContext, TaskContext
from library.worker.linked import linkwatch, watching
from library.worker.linked.linkrules import wanted
from library.worker.linked.linksync import Syncer, SyncResult, held, rules_json
from library.worker.rows import assetrows
from library.worker.store.identity import new_id, to_datetime
from library.worker.store.layout import enclosing_library
from library.worker.store.transaction import WriteTx
from library.worker.tasks.taskrunner import JobContext, job

background(linkwatch.start)


# -- reading --------------------------------------------------------------------------------
def linked_folder(conn: sqlite3.Connection, linked_id: str) -> LinkedFolder:
    row = _row(conn, linked_id)
    count = conn.execute(
        "SELECT count(DISTINCT lf.asset_id) FROM linked_files lf JOIN assets a ON "
        "a.id = lf.asset_id AND a.trashed = 0 WHERE lf.linked_folder_id = ?",
        (linked_id,)).fetchone()[0]
    return LinkedFolder(
        id=row["id"], path=row["path"], folder_id=row["folder_id"],
        rules=LinkedFolderRules.model_validate_json(row["rules"]), status=row["status"],
        asset_count=count, version=row["version"],
        last_refreshed_at=to_datetime(row["last_refreshed_at"])
        if row["last_refreshed_at"] else None)


def _row(conn: sqlite3.Connection, linked_id: str) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM linked_folders WHERE id = ?", (linked_id,)).fetchone()
    if row is None:
        raise LibraryError(NOT_FOUND, "There is no linked folder with this id.",
                           field="linkedFolderId", linkedFolderId=linked_id)
    found: sqlite3.Row = row
    return found


# -- the commands ------------------------------------------------------------------------------
def list_linked(ctx: ReadContext, args: Empty) -> LinkedFolderListOut:
    ids = [row[0] for row in ctx.conn.execute(
        "SELECT id FROM linked_folders ORDER BY path, id")]
    return LinkedFolderListOut(items=[linked_folder(ctx.conn, i) for i in ids])


def create(ctx: TaskContext, args: LinkedFolderCreateIn) -> LinkedFolder:
    conn = ctx.conn
    if ctx.services.kind == "studio":  # a folder on one machine's disk: not for the team
        raise LibraryError(INVALID_ARGUMENT, "Linked folders are not supported in a studio "
                           "library yet (docs/studio.md).", field="path",
                           reason="studio-library")
    made = conn.execute("SELECT id, path FROM linked_folders WHERE id = ?",
                        (ctx.link.progress.get("linkedFolderId"),)).fetchone()
    if made is not None:  # sent again: it was linked, its sync goes on (in the same step)
        ctx.link.summary = _linked_summary(Path(made["path"]))
        _sync(ctx, made["id"])
        return linked_folder(conn, made["id"])
    path = _disk_folder(args.path)
    _not_linked_yet(conn, path)
    if args.parent_id and not conn.execute("SELECT 1 FROM folders WHERE id = ?",
                                           (args.parent_id,)).fetchone():
        raise LibraryError(NOT_FOUND, "That parent folder does not exist.", field="parentId")
    ctx.link.summary = _linked_summary(path)
    with ctx.transaction() as tx:
        folder_id = new_id("fld")
        name = _free_folder_name(tx.conn, args.parent_id, path.name or str(path))
        tx.conn.execute("INSERT INTO folders (id, name, parent_id, created_at) "
                        "VALUES (?, ?, ?, ?)", (folder_id, name, args.parent_id, tx.now))
        linked_id = new_id("lnk")
        tx.conn.execute("INSERT INTO linked_folders (id, path, folder_id, rules, status, "
                        "created_at) VALUES (?, ?, ?, ?, 'connected', ?)",
                        (linked_id, str(path), folder_id, rules_json(args.rules), tx.now))
        tx.created("folder", [folder_id])
        tx.created("linked-folder", [linked_id])
        ctx.link.progress["linkedFolderId"] = linked_id
    _sync(ctx, linked_id)
    return linked_folder(conn, linked_id)


def refresh(ctx: TaskContext, args: LinkedFolderRefreshIn) -> LinkedFolderRefreshOut:
    row = _row(ctx.conn, args.linked_folder_id)
    ctx.link.summary = f"Synced the linked folder {Path(row['path']).name}"
    result = _sync(ctx, args.linked_folder_id)
    if not result.connected:  # marked missing by the sync; its assets stay
        raise LibraryError(PATH_NOT_FOUND, "The linked folder's disk folder is not there "
                           "(moved, renamed, deleted, or its drive is disconnected). Point it "
                           "at its new place with linked-folder.reconnect.",
                           field="linkedFolderId", linkedFolderId=args.linked_folder_id,
                           path=row["path"], status="missing")
    return LinkedFolderRefreshOut(
        linked_folder=linked_folder(ctx.conn, args.linked_folder_id), added=result.added,
        updated=result.updated, missing=result.missing, failed=result.failed,
        cancelled=result.cancelled)


def reconnect(ctx: TaskContext, args: LinkedFolderReconnectIn) -> LinkedFolder:
    row = _row(ctx.conn, args.linked_folder_id)
    if ctx.link.progress.get("changed"):  # sent again: reconnected, its sync goes on
        ctx.link.summary = _reconnected_summary(Path(row["path"]))
        _sync(ctx, row["id"])
        return linked_folder(ctx.conn, row["id"])
    path = _disk_folder(args.path)
    _not_linked_yet(ctx.conn, path, besides=row["id"])
    ctx.link.summary = _reconnected_summary(path)
    with ctx.transaction() as tx:
        tx.track("linked-folder", [row["id"]])
        tx.conn.execute("UPDATE linked_folders SET path = ?, status = 'connected', "
                        "version = version + 1 WHERE id = ?", (str(path), row["id"]))
        ctx.link.progress["changed"] = True
    _sync(ctx, row["id"])
    return linked_folder(ctx.conn, row["id"])


def update_rules(ctx: TaskContext, args: LinkedFolderUpdateRulesIn) -> LinkedFolder:
    row = _row(ctx.conn, args.linked_folder_id)
    ctx.link.summary = f"Changed the rules of the linked folder {Path(row['path']).name}"
    if ctx.link.progress.get("changed"):  # sent again: the rules changed, the sync goes on
        _sync(ctx, row["id"])
        return linked_folder(ctx.conn, row["id"])
    if args.expected_version is not None and args.expected_version != row["version"]:
        raise LibraryError(VERSION_CONFLICT, "The linked folder changed since you read it.",
                           currentVersion=row["version"], field="expectedVersion")
    with ctx.transaction() as tx:
        tx.track("linked-folder", [row["id"]])
        tx.conn.execute("UPDATE linked_folders SET rules = ?, version = version + 1 "
                        "WHERE id = ?", (rules_json(args.rules), row["id"]))
        dropped = [r[0] for r in tx.conn.execute(
            "SELECT relative_path FROM linked_files WHERE linked_folder_id = ?", (row["id"],))
            if not wanted(r[0], args.rules)]
        for part in assetrows.chunks(dropped):  # their assets stay, just no longer synced
            tx.conn.execute(f"DELETE FROM linked_files WHERE linked_folder_id = ? AND "
                            f"relative_path IN ({assetrows.marks(len(part))})",
                            (row["id"], *part))
        ctx.link.progress["changed"] = True
    _sync(ctx, row["id"])
    return linked_folder(ctx.conn, row["id"])


def unlink(tx: WriteTx, args: LinkedFolderUnlinkIn) -> LinkedFolder:
    before = linked_folder(tx.conn, args.linked_folder_id)
    tx.track("linked-folder", [args.linked_folder_id])
    trashed: list[str] = []
    if not args.keep_assets:
        trashed = [r[0] for r in tx.conn.execute(
            "SELECT DISTINCT lf.asset_id FROM linked_files lf JOIN assets a ON a.id = "
            "lf.asset_id AND a.trashed = 0 WHERE lf.linked_folder_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM linked_files other WHERE other.asset_id = lf.asset_id AND "
            "other.linked_folder_id != lf.linked_folder_id)", (args.linked_folder_id,))]
        tx.track("asset", trashed)
        for part in assetrows.chunks(trashed):
            tx.conn.execute(f"UPDATE assets SET trashed = 1, trashed_at = ? WHERE id IN "
                            f"({assetrows.marks(len(part))})", (tx.now, *part))
        assetrows.mark_modified(tx.conn, trashed, tx.now, tx.actor_json)
        if trashed:
            tx.touch("asset", trashed)
            tx.touch("trash")
            tx.touch("tag")
    tx.conn.execute("DELETE FROM linked_folders WHERE id = ?", (args.linked_folder_id,))
    tx.summary = (f"Unlinked a folder; {len(trashed)} of its assets moved to the trash"
                  if trashed else "Unlinked a folder; its assets stay")
    tx.after_commit(lambda: watching.reload(tx.layout.root))
    return before


# -- the job the watcher queues --------------------------------------------------------------
@job(linkwatch.SYNC_KIND, "linked-folder.refresh")
def sync_job(ctx: JobContext) -> None:
    services = ctx.services
    syncer = Syncer(services, "", ctx.meta, lock=lambda: services.write_lock,
                    cancelled=ctx.should_stop, progress=_job_progress(ctx), quiet=True,
                    task_kind=ctx.kind)
    result = syncer.run(str(ctx.params.get("linkedFolderId", "")))
    ctx.result.update({"added": result.added, "updated": result.updated,
                       "missing": result.missing, "failed": result.failed})
    def record(tx: WriteTx) -> None:
        queue_analysis(tx, result.new_asset_ids)

    ctx.commit(record, message="Synced", outcome=ctx.outcome() if ctx.should_stop() else "done")


def _job_progress(ctx: JobContext):  # type: ignore[no-untyped-def]
    def progress(done: int, total: int, message: str) -> None:
        ctx.done, ctx.total = done, total
        ctx.progress(message)
    return progress


# -- helpers ---------------------------------------------------------------------------------
def _linked_summary(path: Path) -> str:
    return f"Linked the folder {path.name or path} on disk"


def _reconnected_summary(path: Path) -> str:
    return f"Reconnected a linked folder to {path.name or path}"


def _sync(ctx: TaskContext, linked_id: str) -> SyncResult:
    try:
        result = Syncer(ctx.services, ctx.scope.command, ctx.scope.meta, lock=held,
                        history=ctx.history, link=ctx.link, cancelled=ctx.cancelled,
                        progress=lambda done, total, message: ctx.progress(done, total,
                                                                           message)
                        ).run(linked_id)
    finally:
        watching.reload(ctx.layout.root)
    if result.new_asset_ids:  # analysed in the background, like any import
        with ctx.transaction() as tx:
            queue_analysis(tx, result.new_asset_ids)
    return result


def _disk_folder(text: str) -> Path:
    path = Path(pathrules.parse_user_path(text, field="path"))
    if not path.exists():
        raise LibraryError(PATH_NOT_FOUND, "There is no folder at that path.", field="path")
    if not path.is_dir():
        raise LibraryError(PATH_INVALID, "That is a file, not a folder.", field="path")
    real = Path(os.path.realpath(path))
    if enclosing_library(real) is not None:
        raise LibraryError(PATH_FORBIDDEN, "A folder inside a Serpent library cannot be "
                           "linked.", field="path")
    private_paths.check_source(real, field="path")
    return real


def _not_linked_yet(conn: sqlite3.Connection, path: Path, besides: str | None = None) -> None:
    for other_id, other in conn.execute("SELECT id, path FROM linked_folders"):
        if other_id == besides:
            continue
        if pathrules.is_within(path, other) or pathrules.is_within(other, path):
            raise LibraryError(ALREADY_EXISTS, "This folder (or one inside or around it) is "
                               "linked already.", field="path", linkedFolderId=other_id)


def _free_folder_name(conn: sqlite3.Connection, parent_id: str | None, name: str) -> str:
    base = " ".join(name.split())[:240] or "Linked folder"
    for number in range(1, 1000):
        candidate = base if number == 1 else f"{base} ({number})"
        if not conn.execute("SELECT 1 FROM folders WHERE coalesce(parent_id, '') = ? AND "
                            "name = ? COLLATE NOCASE", (parent_id or "", candidate)).fetchone():
            return candidate
    raise LibraryError(ALREADY_EXISTS, "Too many folders with this name.", field="path")
