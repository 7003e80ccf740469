"""Snapshots of undoable entity state, and putting a snapshot back (for history undo/redo).

Runs in the worker process, writer thread. One `Kind` per entity kind: how to read its
state, its version, and how to apply a state. A new undoable entity kind (collections, ...)
adds one `Kind` to `KINDS`. A state of `None` means "does not exist": undoing the creation
of an asset puts it in the trash instead (an import's undo), of a folder deletes it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from library.errors import HISTORY_CONFLICT, LibraryError
from library.worker.rows import assetrows, collectionstate, linkedstate, tagstate
from library.worker.rows.assetrows import chunks, marks

if TYPE_CHECKING:
    from library.worker.store.transaction import WriteTx

State = dict[str, Any]


@dataclass(frozen=True)
class Kind:
    snapshot: Callable[[sqlite3.Connection, Sequence[str]], dict[str, State]]
    versions: Callable[[sqlite3.Connection, Sequence[str]], dict[str, int]]
    apply: Callable[[WriteTx, str, State | None, State | None], None]  # (tx, id, target, other)


# -- assets ------------------------------------------------------------------------------
def _asset_snapshot(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, State]:
    states: dict[str, State] = {}
    for part in chunks(list(ids)):
        for row in conn.execute(f"SELECT id, name, notes, rating, source_url, trashed, "
                                f"trashed_at FROM assets WHERE id IN ({marks(len(part))})",
                                part):
            states[row["id"]] = {"name": row["name"], "notes": row["notes"],
                                 "rating": row["rating"], "sourceUrl": row["source_url"],
                                 "trashed": bool(row["trashed"]),
                                 "trashedAt": row["trashed_at"]}
    present = list(states)
    tags = assetrows.tags_of(conn, present)
    folders = assetrows.folders_of(conn, present)
    for asset_id, state in states.items():
        state["tags"] = sorted(tags[asset_id], key=str.casefold)
        state["folders"] = sorted(folders[asset_id])
    return states


def _asset_versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for part in chunks(list(ids)):
        found.update(conn.execute(f"SELECT id, version FROM assets WHERE id IN "
                                  f"({marks(len(part))})", part).fetchall())
    return found


def _asset_apply(tx: WriteTx, asset_id: str, target: State | None, other: State | None) -> None:
    if target is None:  # undo of an import: the asset goes to the trash, not away
        assert other is not None
        target = {**other, "trashed": True, "trashedAt": tx.now}
    conn = tx.conn
    conn.execute("UPDATE assets SET name = ?, notes = ?, rating = ?, source_url = ?, "
                 "trashed = ?, trashed_at = ? WHERE id = ?",
                 (target["name"], target["notes"], target["rating"], target["sourceUrl"],
                  int(target["trashed"]), target["trashedAt"] if target["trashed"] else None,
                  asset_id))
    assetrows.set_tags(conn, asset_id, target["tags"], tx.now)
    assetrows.set_folders(conn, asset_id, target["folders"])
    assetrows.mark_modified(conn, [asset_id], tx.now, tx.actor_json)


# -- folders -----------------------------------------------------------------------------
def _folder_snapshot(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, State]:
    states: dict[str, State] = {}
    for part in chunks(list(ids)):
        for row in conn.execute(f"SELECT id, name, parent_id FROM folders WHERE id IN "
                                f"({marks(len(part))})", part):
            states[row["id"]] = {"name": row["name"], "parentId": row["parent_id"]}
    return states


def _folder_versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for part in chunks(list(ids)):
        found.update(conn.execute(f"SELECT id, version FROM folders WHERE id IN "
                                  f"({marks(len(part))})", part).fetchall())
    return found


def _folder_apply(tx: WriteTx, folder_id: str, target: State | None, other: State | None) -> None:
    conn = tx.conn
    if target is None:  # trashed assets (an undone import's) just leave the folder
        busy = conn.execute("SELECT (SELECT count(*) FROM asset_folders af JOIN assets a ON "
                            "a.id = af.asset_id WHERE af.folder_id = ? AND a.trashed = 0) + "
                            "(SELECT count(*) FROM folders WHERE parent_id = ?)",
                            (folder_id, folder_id)).fetchone()[0]
        if busy:
            raise LibraryError(HISTORY_CONFLICT, "The folder is no longer empty, so creating "
                               "it cannot be undone.", entityIds=[folder_id])
        conn.execute("DELETE FROM folders WHERE id = ?", (folder_id,))
        return
    if target["parentId"] is not None and not conn.execute(
            "SELECT 1 FROM folders WHERE id = ?", (target["parentId"],)).fetchone():
        raise LibraryError(HISTORY_CONFLICT, "The parent folder no longer exists.",
                           entityIds=[folder_id])
    updated = conn.execute("UPDATE folders SET name = ?, parent_id = ?, version = version + 1 "
                           "WHERE id = ?", (target["name"], target["parentId"], folder_id))
    if updated.rowcount == 0:
        conn.execute("INSERT INTO folders (id, name, parent_id, version, created_at) "
                     "VALUES (?, ?, ?, 1, ?)",
                     (folder_id, target["name"], target["parentId"], tx.now))


# -- the library itself (display name) ---------------------------------------------------
def _library_snapshot(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, State]:
    row = conn.execute("SELECT library_id, name FROM library_state").fetchone()
    return {row["library_id"]: {"name": row["name"]}} if row["library_id"] in ids else {}


def _library_versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    return {}  # the display name has no version: its undo never conflicts


def _library_apply(tx: WriteTx, library_id: str, target: State | None, other: State | None
                   ) -> None:
    if target is not None:
        tx.conn.execute("UPDATE library_state SET name = ?", (target["name"],))


KINDS: dict[str, Kind] = {
    "asset": Kind(_asset_snapshot, _asset_versions, _asset_apply),
    "folder": Kind(_folder_snapshot, _folder_versions, _folder_apply),
    "library": Kind(_library_snapshot, _library_versions, _library_apply),
    "tag": Kind(tagstate.snapshot, tagstate.versions, tagstate.apply),
    "collection": Kind(collectionstate.snapshot, collectionstate.versions,
                       collectionstate.apply),
    "linked-folder": Kind(linkedstate.snapshot, linkedstate.versions, linkedstate.apply),
}


def snapshot_many(conn: sqlite3.Connection, kind: str, ids: Sequence[str]) -> dict[str, State]:
    return KINDS[kind].snapshot(conn, ids) if ids else {}


def versions(conn: sqlite3.Connection, kind: str, ids: Sequence[str]) -> dict[str, int]:
    return KINDS[kind].versions(conn, ids) if ids else {}


def apply(tx: WriteTx, kind: str, entity_id: str, target: State | None, other: State | None
          ) -> None:
    KINDS[kind].apply(tx, entity_id, target, other)
