"""History: `history.list`, `history.undo`, `history.redo` over the per-library journal.

Runs in the worker process (list on a reader thread, undo/redo on the writer). The journal
(`transaction.WriteTx`) keeps, per step, the before and after state of every entity the step
changed and the version each was left at. Undo takes only the newest done step, redo only
the oldest undone one; either refuses with HISTORY_CONFLICT when any entity moved on since
(its version differs, or it is gone), and with HISTORY_EMPTY when there is nothing to take.
Undo and redo are writes themselves: they bump the change sequence and notify, but are not
journaled as steps of their own. A new step clears the redo side.
"""

from __future__ import annotations

import json
import sqlite3

from library.errors import HISTORY_CONFLICT, HISTORY_EMPTY, LibraryError
from library.schemas import Empty, HistoryEntry, HistoryListIn, HistoryListOut, HistoryStepOut
from library.worker import assetrows, entitystate
from library.worker.commands import command
from library.worker.context import ReadContext
from library.worker.identity import to_datetime
from library.worker.transaction import WriteTx


def _entry(row: sqlite3.Row) -> HistoryEntry:
    return HistoryEntry(id=row["id"], command=row["command"], summary=row["summary"],
                        actor=json.loads(row["actor"]), at=to_datetime(row["at"]),
                        undone=row["state"] == "undone", change_sequence=row["change_sequence"])


@command("history.list", HistoryListIn, mode="read")
def list_history(ctx: ReadContext, args: HistoryListIn) -> HistoryListOut:
    rows = ctx.conn.execute("SELECT * FROM history ORDER BY id DESC LIMIT ?",
                            (args.limit,)).fetchall()
    can_undo, can_redo = ctx.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM history WHERE state = 'done'), "
        "EXISTS (SELECT 1 FROM history WHERE state = 'undone')").fetchone()
    return HistoryListOut(items=[_entry(r) for r in rows], can_undo=bool(can_undo),
                          can_redo=bool(can_redo))


@command("history.undo", Empty, mode="write")
def undo(tx: WriteTx, args: Empty) -> HistoryStepOut:
    row = tx.conn.execute("SELECT * FROM history WHERE state = 'done' ORDER BY id DESC "
                          "LIMIT 1").fetchone()
    if row is None:
        raise LibraryError(HISTORY_EMPTY, "There is nothing to undo.")
    return _step(tx, row, undoing=True)


@command("history.redo", Empty, mode="write")
def redo(tx: WriteTx, args: Empty) -> HistoryStepOut:
    row = tx.conn.execute("SELECT * FROM history WHERE state = 'undone' ORDER BY id ASC "
                          "LIMIT 1").fetchone()
    if row is None:
        raise LibraryError(HISTORY_EMPTY, "There is nothing to redo.")
    return _step(tx, row, undoing=False)


def _step(tx: WriteTx, entry: sqlite3.Row, *, undoing: bool) -> HistoryStepOut:
    tx.journal = False
    conn = tx.conn
    items = conn.execute("SELECT kind, entity_id, before_state, after_state, expected_version "
                         "FROM history_items WHERE entry_id = ?", (entry["id"],)).fetchall()
    by_kind: dict[str, list[sqlite3.Row]] = {}
    for item in items:
        by_kind.setdefault(item["kind"], []).append(item)
    moved_on = []
    for kind, kind_items in by_kind.items():
        ids = [i["entity_id"] for i in kind_items]
        current = entitystate.versions(conn, kind, ids)
        moved_on += [i["entity_id"] for i in kind_items
                     if i["expected_version"] != current.get(i["entity_id"])]
    if moved_on:
        verb = "undone" if undoing else "redone"
        raise LibraryError(HISTORY_CONFLICT, f"“{entry['summary']}” cannot be {verb}: "
                           f"{len(moved_on)} of its items changed since.",
                           entityIds=moved_on[:100], historyId=entry["id"])
    # Undo puts entities back in reverse order of kinds (assets before the folders they use).
    order = sorted(by_kind, key=lambda k: list(entitystate.KINDS).index(k), reverse=not undoing)
    for kind in order:
        for item in by_kind[kind]:
            before = None if item["before_state"] is None else json.loads(item["before_state"])
            after = json.loads(item["after_state"])
            target, other = (before, after) if undoing else (after, before)
            entitystate.apply(tx, kind, item["entity_id"], target, other)
        tx.touch(kind, [i["entity_id"] for i in by_kind[kind]])
        new_versions = entitystate.versions(conn, kind, [i["entity_id"] for i in by_kind[kind]])
        conn.executemany("UPDATE history_items SET expected_version = ? WHERE entry_id = ? AND "
                         "kind = ? AND entity_id = ?",
                         [(new_versions.get(i["entity_id"]), entry["id"], kind, i["entity_id"])
                          for i in by_kind[kind]])
    if "asset" in by_kind:
        assetrows.drop_unused_tags(conn)
        tx.touch("tag")
    tx.touch("history")
    conn.execute("UPDATE history SET state = ? WHERE id = ?",
                 ("undone" if undoing else "done", entry["id"]))
    tx.summary = f"{'Undid' if undoing else 'Redid'}: {entry['summary']}"
    row = conn.execute("SELECT * FROM history WHERE id = ?", (entry["id"],)).fetchone()
    return HistoryStepOut(entry=_entry(row))
