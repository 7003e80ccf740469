"""Collection rows and their undo state (history kind `collection`).

Runs in the worker process (snapshots and `apply` on the writer thread; `collection_out` on
any thread with its own connection). A collection's state is its name, kind, rules, sidebar
position and, for a hand-picked one, its members in order. Putting a state back restores
the members that still exist (a permanently deleted asset stays gone); `None` means the
collection does not exist. Every applied state bumps the collection's version.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from library.schemas import Collection, RuleSet
from library.worker.rows import filters, livecounts
from library.worker.rows.assetrows import chunks, marks

if TYPE_CHECKING:
    from library.worker.store.transaction import WriteTx

State = dict[str, Any]
COLUMNS = "c.id, c.name, c.smart, c.rules, c.position, c.version"


def snapshot(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, State]:
    states: dict[str, State] = {}
    for part in chunks(list(ids)):
        for row in conn.execute(f"SELECT id, name, smart, rules, position FROM collections "
                                f"WHERE id IN ({marks(len(part))})", part):
            states[row["id"]] = {"name": row["name"], "smart": bool(row["smart"]),
                                 "rules": json.loads(row["rules"]) if row["rules"] else None,
                                 "position": row["position"], "members": []}
        for collection_id, asset_id in conn.execute(
                f"SELECT collection_id, asset_id FROM collection_assets WHERE collection_id "
                f"IN ({marks(len(part))}) ORDER BY collection_id, position, asset_id", part):
            states[collection_id]["members"].append(asset_id)
    return states


def versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for part in chunks(list(ids)):
        found.update(conn.execute(f"SELECT id, version FROM collections WHERE id IN "
                                  f"({marks(len(part))})", part).fetchall())
    return found


def apply(tx: WriteTx, collection_id: str, target: State | None, other: State | None) -> None:
    conn = tx.conn
    if target is None:
        conn.execute("DELETE FROM collections WHERE id = ?", (collection_id,))
        return
    rules_json = (json.dumps(target["rules"], separators=(",", ":"))  # as collections writes
                  if target["rules"] is not None else None)
    updated = conn.execute("UPDATE collections SET name = ?, smart = ?, rules = ?, position = ?,"
                           " version = version + 1 WHERE id = ?",
                           (target["name"], int(target["smart"]), rules_json,
                            target["position"], collection_id))
    if updated.rowcount == 0:
        conn.execute("INSERT INTO collections (id, name, smart, rules, position, version, "
                     "created_at) VALUES (?, ?, ?, ?, ?, 1, ?)",
                     (collection_id, target["name"], int(target["smart"]), rules_json,
                      target["position"], tx.now))
    set_members(conn, collection_id, target["members"])


def set_members(conn: sqlite3.Connection, collection_id: str, asset_ids: Sequence[str]) -> None:
    """Make exactly these (existing) assets the members, in this order."""
    conn.execute("DELETE FROM collection_assets WHERE collection_id = ?", (collection_id,))
    conn.executemany("INSERT OR IGNORE INTO collection_assets (collection_id, asset_id, "
                     "position) SELECT ?, id, ? FROM assets WHERE id = ?",
                     [(collection_id, position, asset_id)
                      for position, asset_id in enumerate(asset_ids)])


# -- reading -------------------------------------------------------------------------------
def rows(conn: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()
         ) -> list[sqlite3.Row]:
    return conn.execute(f"SELECT {COLUMNS} FROM collections c {where} ORDER BY c.position, "
                        f"c.name COLLATE NOCASE, c.id", params).fetchall()


def collection_out(conn: sqlite3.Connection, row: sqlite3.Row) -> Collection:
    """A row as the `Collection` model, with its asset count (trash left out)."""
    if row["smart"]:
        ruleset = RuleSet.model_validate_json(row["rules"])
        condition = filters.compile_rules(ruleset)
        count = livecounts.COUNTS.count(conn, f"a.trashed = 0 AND {condition.sql}",
                                        condition.params, follow=condition.timeless)
    else:
        ruleset = None
        count = conn.execute("SELECT count(*) FROM collection_assets ca JOIN assets a ON "
                             "a.id = ca.asset_id WHERE ca.collection_id = ? AND a.trashed = 0",
                             (row["id"],)).fetchone()[0]
    return Collection(id=row["id"], name=row["name"], smart=bool(row["smart"]), rules=ruleset,
                      asset_count=count, position=row["position"], version=row["version"])
