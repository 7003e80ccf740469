"""Undo state of a tag's spelling (history kind `tag`), for tag.rename.

Runs in the worker process, writer thread. Which assets carry a tag is journaled on the
assets themselves (kind `asset`); this kind only puts a tag's *name* back, which the asset
snapshots cannot do for a case-only rename ("sky" -> "Sky" -> "sky"). Keyed by tag id.
Applying is lenient: when the tag row was replaced meanwhile (untagged everywhere, then
tagged again: a new id) the tag is found by its other spelling. Tags carry no version that
could conflict: the history stack order and the assets' versions guard the step.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from library.worker.rows import assetrows, tagfold
from library.worker.rows.assetrows import chunks, marks

if TYPE_CHECKING:
    from library.worker.store.transaction import WriteTx

State = dict[str, Any]


def snapshot(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, State]:
    states: dict[str, State] = {}
    for part in chunks(list(ids)):
        for row in conn.execute(f"SELECT id, name FROM tags WHERE id IN ({marks(len(part))})",
                                [int(i) for i in part]):
            states[str(row["id"])] = {"name": row["name"]}
    return states


def versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    return {}  # never conflicts by itself


def apply(tx: WriteTx, tag_id: str, target: State | None, other: State | None) -> None:
    if target is None:
        return  # a tag exists while assets carry it: unused tags are dropped after the step
    conn = tx.conn
    row = conn.execute("SELECT id, name FROM tags WHERE id = ?", (int(tag_id),)).fetchone()
    if row is None and other is not None:
        row = tagfold.find(conn, other["name"])
    if row is None or row["name"] == target["name"]:
        return
    if conn.execute("SELECT 1 FROM tags WHERE folded = ? AND id != ?",
                    (tagfold.fold(target["name"]), row["id"])).fetchone():
        return  # another tag holds that spelling now; the assets' own states decide
    rename(tx, row["id"], target["name"])


def rename(tx: WriteTx, tag_id: int, name: str) -> list[str]:
    """Give a tag a new spelling everywhere; returns the assets carrying it."""
    conn = tx.conn
    conn.execute("UPDATE tags SET name = ?, folded = ?, version = version + 1 WHERE id = ?",
                 (name, tagfold.fold(name), tag_id))
    carriers = [r[0] for r in conn.execute("SELECT asset_id FROM asset_tags WHERE tag_id = ?",
                                           (tag_id,))]
    assetrows.refresh_search_text(conn, carriers)
    tx.touch("tag")
    tx.touch("asset", carriers)
    return carriers
