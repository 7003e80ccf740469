"""History: `history.list`, `history.undo`, `history.redo` over the per-library journal.

Runs in the worker process (list on a reader thread, undo/redo on the writer). The journal
(`transaction.WriteTx`) keeps, per step, the before and after state of every entity the step
changed, with the entity's version before and after. Undo takes only the newest done step
and requires each entity to still be at its after-version; redo takes only the oldest
undone step and requires the before-version. Otherwise HISTORY_CONFLICT (something moved
on, or the entity is gone); HISTORY_EMPTY when there is nothing to take. A caller that names
the step it means (`historyId`, from history.list) gets HISTORY_CONFLICT when another one
is next, so a late or retried undo never takes back someone else's change. An irreversible
change (a permanent delete) is a barrier entry: undo refuses it with HISTORY_IRREVERSIBLE
and never reaches past it. Applying a state gives the entity a new version, so that state's
old version label is replaced by the new one in every journal item of that entity: older
steps stay undoable after newer ones were undone.
Undo and redo are writes themselves: they bump the change sequence and notify, but are not
journaled as steps of their own. A new step clears the redo side.
A studio library (several people at once) keeps one history, but undo and redo there are per
caller (`who.caller`: the same person at the same client): undo takes the caller's newest
done step, whatever others did since, and the versions refuse it (HISTORY_CONFLICT naming
the entities) when someone else changed the same things since; a new step clears only its
caller's redo side. A local library keeps one stack: undo takes its newest step, whoever
made it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from library.errors import (
    HISTORY_CONFLICT,
    HISTORY_EMPTY,
    HISTORY_IRREVERSIBLE,
    INVALID_ARGUMENT,
    LibraryError,
)
from library.protocol import CallMeta
from library.schemas import (
    HistoryEntry,
    HistoryListIn,
    HistoryListOut,
    HistoryStepIn,
    HistoryStepOut,
)
from library.schemas.common import Actor
from library.worker import who
from library.worker.context import ReadContext
from library.worker.rows import assetrows, entitystate
from library.worker.store.identity import to_datetime
from library.worker.store.transaction import WriteTx


def _entry(row: sqlite3.Row, machine: str | None) -> HistoryEntry:
    actor = Actor.model_validate(who.seen_from(json.loads(row["actor"]), machine))
    return HistoryEntry(id=row["id"], command=row["command"], summary=row["summary"],
                        actor=actor, at=to_datetime(row["at"]),
                        undone=row["state"] == "undone", undoable=bool(row["undoable"]),
                        change_sequence=row["change_sequence"])


def list_history(ctx: ReadContext, args: HistoryListIn) -> HistoryListOut:
    before = _read_cursor(args.cursor) if args.cursor else None
    rows = ctx.conn.execute("SELECT * FROM history WHERE id < ? ORDER BY id DESC LIMIT ?",
                            (before if before is not None else 2**62, args.limit + 1)).fetchall()
    more = len(rows) > args.limit
    rows = rows[:args.limit]
    mine = _caller(ctx.conn, ctx.scope.meta, ctx.layout.machine)
    top = _next(ctx.conn, mine, undoing=True)
    can_undo = top is not None and bool(top["undoable"])
    can_redo = _next(ctx.conn, mine, undoing=False) is not None
    machine = ctx.layout.machine
    return HistoryListOut(items=[_entry(r, machine) for r in rows], can_undo=bool(can_undo),
                          can_redo=bool(can_redo),
                          next_cursor=f"h{rows[-1]['id']}" if more else None)


def _read_cursor(cursor: str) -> int:
    if not (cursor.startswith("h") and cursor[1:].isdigit()):
        raise LibraryError(INVALID_ARGUMENT, "cursor: not a cursor of the history list",
                           field="cursor")
    return int(cursor[1:])


def undo(tx: WriteTx, args: HistoryStepIn) -> HistoryStepOut:
    mine = _caller(tx.conn, tx.meta, tx.layout.machine)
    return _step(tx, _take(tx.conn, args.history_id, mine, undoing=True), undoing=True)


def redo(tx: WriteTx, args: HistoryStepIn) -> HistoryStepOut:
    mine = _caller(tx.conn, tx.meta, tx.layout.machine)
    return _step(tx, _take(tx.conn, args.history_id, mine, undoing=False), undoing=False)


def _caller(conn: sqlite3.Connection, meta: CallMeta, machine: str | None) -> who.Caller | None:
    """Whose steps undo takes: the caller's on a studio library, anyone's (None) on a local
    one."""
    if getattr(conn, "dialect", "sqlite") != "postgres":
        return None
    return who.caller(who.actor_of(meta, machine))


def _next(conn: sqlite3.Connection, mine: who.Caller | None, *, undoing: bool
          ) -> sqlite3.Row | None:
    """The step undo (the newest done one) or redo (the oldest undone one) would take; of
    the caller `mine` only, when given."""
    query = ("SELECT * FROM history WHERE state = 'done' ORDER BY id DESC" if undoing else
             "SELECT * FROM history WHERE state = 'undone' ORDER BY id ASC")
    if mine is None:
        row: sqlite3.Row | None = conn.execute(f"{query} LIMIT 1").fetchone()
        return row
    for row in conn.execute(query).fetchall():  # at most HISTORY_KEEP rows
        if who.caller_of(row["actor"]) == mine:
            return row
    return None


def _take(conn: sqlite3.Connection, expected: int | None, mine: who.Caller | None, *,
          undoing: bool) -> sqlite3.Row:
    """The next step, if it is the one the caller means and it can be taken. On a studio
    library a step named by id is taken when it is the next of whoever made it (the window
    undoing what an AI client just did, from its toast)."""
    if expected is not None and mine is not None:
        named = conn.execute("SELECT actor FROM history WHERE id = ?", (expected,)).fetchone()
        mine = who.caller_of(named["actor"]) if named is not None else mine
    row = _next(conn, mine, undoing=undoing)
    verb = "undo" if undoing else "redo"
    if expected is not None and (row is None or row["id"] != expected):
        raise LibraryError(HISTORY_CONFLICT, f"{_expected_now(conn, expected, undoing)} "
                           f"{_next_said(row, verb)} Nothing was changed.",
                           expectedHistoryId=expected,
                           historyId=row["id"] if row is not None else None)
    if row is None:
        raise LibraryError(HISTORY_EMPTY, f"There is nothing to {verb}.")
    if not row["undoable"]:
        raise LibraryError(HISTORY_IRREVERSIBLE, f"The latest change, “{row['summary']}”, "
                           "cannot be undone, so undo stops there (the changes before it "
                           "stay as they are). Nothing was changed.", historyId=row["id"])
    return row


def _expected_now(conn: sqlite3.Connection, expected: int, undoing: bool) -> str:
    """What became of the step a caller meant to undo (redo)."""
    row = conn.execute("SELECT summary, state FROM history WHERE id = ?",
                       (expected,)).fetchone()
    if row is None:
        return f"The change {expected} is not in the history."
    said = f"“{row['summary']}” (historyId {expected})"
    if undoing and row["state"] == "undone":
        return f"{said} was undone already."
    if not undoing and row["state"] == "done":
        return f"{said} is done already."
    return f"{said} is not the next change to {'undo' if undoing else 'redo'}."


def _next_said(row: sqlite3.Row | None, verb: str) -> str:
    if row is None:
        return f"There is nothing to {verb} now."
    return f"Next to {verb} is “{row['summary']}” (historyId {row['id']})."


def _relabel(conn: sqlite3.Connection, entry_id: int, kind: str, item: sqlite3.Row,
             new_version: int | None, *, undoing: bool) -> None:
    """The entity is back in the state labelled by the old version: use the new one instead."""
    column = "before_version" if undoing else "after_version"
    old = item[column]
    if old is None:  # a created (or deleted) entity: only this step knows that label
        conn.execute(f"UPDATE history_items SET {column} = ? WHERE entry_id = ? AND kind = ? "
                     f"AND entity_id = ?", (new_version, entry_id, kind, item["entity_id"]))
        return
    conn.execute("UPDATE history_items SET "
                 "before_version = CASE WHEN before_version = ? THEN ? ELSE before_version END, "
                 "after_version = CASE WHEN after_version = ? THEN ? ELSE after_version END "
                 "WHERE kind = ? AND entity_id = ?",
                 (old, new_version, old, new_version, kind, item["entity_id"]))


def _step(tx: WriteTx, entry: sqlite3.Row, *, undoing: bool) -> HistoryStepOut:
    conn = tx.conn
    items = conn.execute("SELECT kind, entity_id, before_state, after_state, before_version, "
                         "after_version FROM history_items WHERE entry_id = ?",
                         (entry["id"],)).fetchall()
    expected_column = "after_version" if undoing else "before_version"
    by_kind: dict[str, list[sqlite3.Row]] = {}
    for item in items:
        by_kind.setdefault(item["kind"], []).append(item)
    moved_on = []
    for kind, kind_items in by_kind.items():
        ids = [i["entity_id"] for i in kind_items]
        current = entitystate.versions(conn, kind, ids)
        moved_on += [i["entity_id"] for i in kind_items
                     if i[expected_column] != current.get(i["entity_id"])]
    if moved_on:
        verb = "undone" if undoing else "redone"
        by = _changed_by(conn, entry["id"], moved_on, tx.layout.machine)
        said = ", ".join("you" if name == who.UI_LABEL else name for name in by)
        raise LibraryError(HISTORY_CONFLICT, f"“{entry['summary']}” cannot be {verb}: "
                           f"{len(moved_on)} of its items changed since"
                           f"{', by ' + said if said else ''}. Nothing was changed.",
                           entityIds=moved_on[:100], historyId=entry["id"], changedBy=by)
    for kind, kind_items in _in_order(by_kind, undoing=undoing):
        for item in kind_items:
            target, other = _states(item, undoing=undoing)
            entitystate.apply(tx, kind, item["entity_id"], target, other)
        tx.touch(kind, [i["entity_id"] for i in kind_items])
        new_versions = entitystate.versions(conn, kind, [i["entity_id"] for i in kind_items])
        for item in kind_items:
            _relabel(conn, entry["id"], kind, item, new_versions.get(item["entity_id"]),
                     undoing=undoing)
    if "asset" in by_kind:
        assetrows.drop_unused_tags(conn)
        tx.touch("tag")
    tx.touch("history")
    conn.execute("UPDATE history SET state = ? WHERE id = ?",
                 ("undone" if undoing else "done", entry["id"]))
    tx.summary = f"{'Undid' if undoing else 'Redid'}: {entry['summary']}"
    row = conn.execute("SELECT * FROM history WHERE id = ?", (entry["id"],)).fetchone()
    return HistoryStepOut(entry=_entry(row, tx.layout.machine))


def _changed_by(conn: sqlite3.Connection, entry_id: int, entity_ids: list[str],
                machine: str | None) -> list[str]:
    """Who made the steps after `entry_id` that changed any of `entity_ids` (as this machine
    names them), newest first: what a person is told when their undo is refused."""
    marks = ", ".join("?" * len(entity_ids[:100]))
    rows = conn.execute(f"SELECT DISTINCT h.id, h.actor FROM history h JOIN history_items i "
                        f"ON i.entry_id = h.id WHERE h.id > ? AND h.state = 'done' "
                        f"AND i.entity_id IN ({marks}) "
                        f"ORDER BY h.id DESC LIMIT 20", (entry_id, *entity_ids[:100])).fetchall()
    names = [who.seen_from(json.loads(row["actor"]), machine)["label"] for row in rows]
    return list(dict.fromkeys(str(name) for name in names))[:3]


def _states(item: sqlite3.Row, *, undoing: bool
            ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the state to put back, the other one) of a journal item."""
    before = None if item["before_state"] is None else json.loads(item["before_state"])
    after = json.loads(item["after_state"])
    return (before, after) if undoing else (after, before)


def _in_order(by_kind: dict[str, list[sqlite3.Row]], *, undoing: bool
              ) -> list[tuple[str, list[sqlite3.Row]]]:
    """Which items to apply first. Folders that come back go first, parents before
    children (assets and linked folders are put in them); folders that go away (an undone
    import's folder tree) go last, once the assets left them, children first. Undo takes the
    other kinds in reverse order, redo in order."""
    order = sorted(by_kind, key=lambda k: list(entitystate.KINDS).index(k), reverse=not undoing)
    folders = by_kind.get("folder", [])
    staying = [i for i in folders if _states(i, undoing=undoing)[0] is not None]
    going = [i for i in folders if _states(i, undoing=undoing)[0] is None]
    depth = _depths(folders, undoing=undoing)
    steps: list[tuple[str, list[sqlite3.Row]]] = []
    if staying:
        steps.append(("folder", sorted(staying, key=lambda i: depth[i["entity_id"]])))
    steps += [(kind, by_kind[kind]) for kind in order if kind != "folder"]
    if going:
        steps.append(("folder", sorted(going, key=lambda i: -depth[i["entity_id"]])))
    return steps


def _depths(items: list[sqlite3.Row], *, undoing: bool) -> dict[str, int]:
    """How deep each folder of the step sits among the step's own folders (0: top)."""
    parents: dict[str, str | None] = {}
    for item in items:
        target, other = _states(item, undoing=undoing)
        state = target or other or {}
        parents[item["entity_id"]] = state.get("parentId")
    depth: dict[str, int] = {}
    for folder_id in parents:
        level, seen, current = 0, {folder_id}, parents[folder_id]
        while current is not None and current in parents and current not in seen:
            seen.add(current)
            level, current = level + 1, parents[current]
        depth[folder_id] = level
    return depth
