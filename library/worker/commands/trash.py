"""Trash: `asset.trash`, `asset.restore`, `trash.list` (undoable, recoverable), and the
permanent `asset.delete-permanently` and `trash.empty` with their read-only plans.

Runs in the worker process. A plan (risk report) lists the targets with ids, names,
versions and sizes and a `stateToken` over all of them; execution recomputes it inside its
transaction and refuses with STALE_PLAN if anything moved on. Permanent deletes remove the
rows in the transaction and the files and thumbnails after the commit (a crash in between
leaves only orphan files, which recovery moves to `.orphans/`, and stale thumbnails, which
`library.refresh` removes). They cannot be undone: one that deleted something leaves a
barrier in the history (`catalogue.HistoryRule` "irreversible"), which undo refuses with
HISTORY_IRREVERSIBLE instead of taking back an older change.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from typing import Any

from library.errors import NOT_FOUND, STALE_PLAN, LibraryError
from library.schemas import (
    AssetBatchOut,
    AssetDeletePermanentlyIn,
    AssetRestoreIn,
    AssetSearchIn,
    AssetTrashIn,
    DeleteOut,
    RiskReport,
    RiskTarget,
    TrashEmptyIn,
    TrashListIn,
)
from library.units import human_size
from library.worker.commands.asset_edit import batch_result
from library.worker.commands.asset_search import search_page
from library.worker.context import ReadContext
from library.worker.files.thumbstore import store_for
from library.worker.rows import assetrows
from library.worker.rows.assetrows import chunks, marks
from library.worker.store.filestore import FileStore
from library.worker.store.transaction import WriteTx

MAX_LISTED_TARGETS = 1000


def _set_trashed(tx: WriteTx, asset_ids: list[str], trashed: bool) -> AssetBatchOut:
    conn = tx.conn
    found = assetrows.existing(conn, asset_ids)
    changed = [a for a, row in found.items() if bool(row["trashed"]) != trashed]
    tx.track("asset", changed)
    for part in chunks(changed):
        conn.execute(f"UPDATE assets SET trashed = ?, trashed_at = ? WHERE id IN "
                     f"({marks(len(part))})", (int(trashed), tx.now if trashed else None, *part))
    assetrows.mark_modified(conn, changed, tx.now, tx.actor_json)
    if changed:
        tx.touch("trash")
        tx.touch("tag")  # tag counts leave out the trash
    n = len(changed)
    tx.summary = (f"Moved {n} asset{'s' if n != 1 else ''} to the trash" if trashed
                  else f"Restored {n} asset{'s' if n != 1 else ''} from the trash")
    return batch_result(conn, asset_ids, found, set(changed))


def trash(tx: WriteTx, args: AssetTrashIn) -> AssetBatchOut:
    return _set_trashed(tx, args.asset_ids, True)


def restore(tx: WriteTx, args: AssetRestoreIn) -> AssetBatchOut:
    return _set_trashed(tx, args.asset_ids, False)


def list_trash(ctx: ReadContext, args: TrashListIn) -> dict[str, Any]:
    return search_page(ctx.conn, AssetSearchIn(trashed=True, limit=args.limit,
                                               cursor=args.cursor))


# -- permanent deletes -------------------------------------------------------------------
def _report(rows: list[sqlite3.Row], command_name: str, empty_text: str) -> RiskReport:
    rows = sorted(rows, key=lambda r: r["id"])
    token_source = command_name + "|" + "|".join(f"{r['id']}:{r['version']}" for r in rows)
    token = "st_" + hashlib.sha256(token_source.encode()).hexdigest()[:32]
    total = sum(r["size"] for r in rows)
    count = len(rows)
    summary = (f"Permanently delete {count} asset{'s' if count != 1 else ''} "
               f"({human_size(total)}). This cannot be undone." if rows else empty_text)
    return RiskReport(summary=summary, count=count, total_bytes=total, irreversible=True,
                      state_token=token, targets_truncated=count > MAX_LISTED_TARGETS,
                      targets=[RiskTarget(id=r["id"], name=r["name"], version=r["version"],
                                          size=r["size"]) for r in rows[:MAX_LISTED_TARGETS]])


def _delete_targets(conn: sqlite3.Connection, asset_ids: list[str]) -> list[sqlite3.Row]:
    found = assetrows.existing(conn, asset_ids)
    unknown = [a for a in dict.fromkeys(asset_ids) if a not in found]
    if unknown:
        raise LibraryError(NOT_FOUND, f"{len(unknown)} of the assets do not exist.",
                           field="assetIds", notFound=unknown[:100])
    return list(found.values())


def _trash_targets(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute("SELECT id, version, name, size, sha256, ext FROM assets "
                        "WHERE trashed = 1").fetchall()


def plan_delete(ctx: ReadContext, args: AssetDeletePermanentlyIn) -> RiskReport:
    return _report(_delete_targets(ctx.conn, args.asset_ids), "asset.delete-permanently", "")


def plan_empty(ctx: ReadContext, args: TrashEmptyIn) -> RiskReport:
    return _report(_trash_targets(ctx.conn), "trash.empty", "The trash is already empty.")


def delete_permanently(tx: WriteTx, args: AssetDeletePermanentlyIn) -> DeleteOut:
    rows = _delete_targets(tx.conn, args.asset_ids)
    _check_token(_report(rows, "asset.delete-permanently", ""), args.state_token)
    return _delete(tx, rows)


def empty_trash(tx: WriteTx, args: TrashEmptyIn) -> DeleteOut:
    rows = _trash_targets(tx.conn)
    _check_token(_report(rows, "trash.empty", ""), args.state_token)
    return _delete(tx, rows)


def _check_token(report: RiskReport, token: str | None) -> None:
    if token is not None and token != report.state_token:
        raise LibraryError(STALE_PLAN, "The assets changed since the plan was made; make a "
                           "new plan.", currentStateToken=report.state_token)


def _delete(tx: WriteTx, rows: list[sqlite3.Row]) -> DeleteOut:
    conn = tx.conn
    ids = [r["id"] for r in rows]
    for part in chunks(ids):
        conn.execute(f"DELETE FROM assets WHERE id IN ({marks(len(part))})", part)
    assetrows.drop_unused_tags(conn)
    tx.touch("asset", ids)
    tx.touch("trash")
    tx.touch("tag")
    tx.summary = f"Permanently deleted {len(ids)} asset{'s' if len(ids) != 1 else ''}"
    store = FileStore(tx.layout)
    files = [(r["sha256"], r["ext"]) for r in rows]

    def remove_files() -> None:
        for sha256, ext in files:
            with contextlib.suppress(OSError):  # left behind: recovery reports an orphan
                store.remove(sha256, ext)
        unused = [sha256 for sha256, _ext in files if not conn.execute(
            "SELECT 1 FROM assets WHERE sha256 = ?", (sha256,)).fetchone()]
        with contextlib.suppress(OSError):  # derived files: library.refresh removes the rest
            store_for(tx.layout).remove_many(unused)
    tx.after_commit(remove_files)
    return DeleteOut(deleted=len(ids), freed_bytes=sum(r["size"] for r in rows))
