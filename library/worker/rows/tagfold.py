"""Tag names compare with full Unicode case folding: "été", "Été" and "ÉTÉ" are one tag.

Runs in the worker process (any thread). SQLite's NOCASE folds ASCII letters only, so every
tag row keeps its folded name in `tags.folded` (unique), and every lookup by name goes
through `fold` here and compares `folded` in SQL. Migration 6 fills the column and merges
tags that only differed by non-ASCII case (`merge_folded`): the oldest spelling stays, the
assets of the others move onto it.
"""

from __future__ import annotations

import sqlite3
import unicodedata


def fold(name: str) -> str:
    """The key a tag name is compared by: casefolded (ß → ss, É → é), NFC-normalized."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def find(conn: sqlite3.Connection, name: str) -> sqlite3.Row | None:
    """The tag row (id, name) this name means, in any case."""
    row: sqlite3.Row | None = conn.execute("SELECT id, name FROM tags WHERE folded = ?",
                                           (fold(name),)).fetchone()
    return row


def merge_folded(conn: sqlite3.Connection) -> list[str]:
    """Migration step: fill `tags.folded`, merge tags that fold to the same name (the oldest
    one stays), then make the folded name unique. Answers the assets whose tags changed
    (their search text is the migration's to refresh)."""
    keepers: dict[str, int] = {}
    touched: set[str] = set()
    for tag_id, name in conn.execute("SELECT id, name FROM tags ORDER BY id").fetchall():
        key = fold(name)
        keeper = keepers.get(key)
        if keeper is None:
            keepers[key] = tag_id
            conn.execute("UPDATE tags SET folded = ? WHERE id = ?", (key, tag_id))
            continue
        touched.update(r[0] for r in conn.execute(
            "SELECT asset_id FROM asset_tags WHERE tag_id = ?", (tag_id,)))
        conn.execute("INSERT OR IGNORE INTO asset_tags (asset_id, tag_id) SELECT asset_id, ? "
                     "FROM asset_tags WHERE tag_id = ?", (keeper, tag_id))
        conn.execute("DELETE FROM asset_tags WHERE tag_id = ?", (tag_id,))
        conn.execute("DELETE FROM tags WHERE id = ?", (tag_id,))
    conn.execute("CREATE UNIQUE INDEX tags_by_folded ON tags (folded)")
    return sorted(touched)
