"""What a library holds, as a person would compare it: its rows and its stored files.

Test helper, importable by other test packages. `read_state(root)` opens `library.sqlite`
read-only (the worker keeps writing through WAL; a reader sees one committed snapshot) and
returns every table a person's work lives in as sets of rows, leaving out bookkeeping that
changes on every write by design (versions, modification times, the change log, the history
itself, tasks, derived analysis and thumbnails). `difference` says what differs, readably.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

State = dict[str, frozenset[tuple[Any, ...]]]

# table -> the SELECT that reads what a person's work is in it
QUERIES = {
    "library": "SELECT name FROM library_state",
    "assets": "SELECT id, name, original_name, ext, size, sha256, rating, notes, source_url, "
              "trashed, missing, search_text FROM assets",
    "tags": "SELECT name, folded, live_count FROM tags",
    "asset_tags": "SELECT at.asset_id, t.name FROM asset_tags at JOIN tags t ON "
                  "t.id = at.tag_id",
    "folders": "SELECT id, name, parent_id FROM folders",
    "asset_folders": "SELECT asset_id, folder_id FROM asset_folders",
    "collections": "SELECT id, name, smart, rules, position FROM collections",
    "collection_assets": "SELECT collection_id, asset_id, position FROM collection_assets",
    "linked_folders": "SELECT id, path, folder_id, rules, status, last_refreshed_at FROM "
                      "linked_folders",
    "linked_dirs": "SELECT linked_folder_id, relative_dir, folder_id FROM linked_dirs",
    "linked_files": "SELECT linked_folder_id, relative_path, size, mtime_ns, asset_id FROM "
                    "linked_files",
}
ASSET_COLUMNS = {"asset_tags": 0, "asset_folders": 0, "collection_assets": 1,
                 "linked_files": 4}  # where each table names an asset


def read_state(root: Path, database: Path | None = None) -> State:
    """`database`: another SQLite file of the library's (the one a move set aside)."""
    uri = f"file:{database or root / 'library.sqlite'}?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        conn.execute("BEGIN")
        state = {table: frozenset(conn.execute(sql).fetchall())
                 for table, sql in QUERIES.items()}
        # what search matches: its words (their order is no one's business)
        state["assets"] = frozenset((*row[:-1], " ".join(sorted(row[-1].split())))
                                    for row in state["assets"])
        conn.execute("COMMIT")
    finally:
        conn.close()
    files = root / "files"
    state["files"] = frozenset((p.relative_to(files).as_posix(), p.stat().st_size)
                               for p in files.rglob("*") if p.is_file())
    return state


def without_assets(state: State, asset_ids: set[str]) -> State:
    """`state` as if these assets (and their files, tags, folders...) were not there."""
    gone_files = {f"{row[5][:2]}/{row[5]}.{row[3]}" if row[3] else f"{row[5][:2]}/{row[5]}"
                  for row in state["assets"] if row[0] in asset_ids}
    kept: State = {}
    for table, rows in state.items():
        if table == "assets":
            kept[table] = frozenset(r for r in rows if r[0] not in asset_ids)
        elif table in ASSET_COLUMNS:
            kept[table] = frozenset(r for r in rows if r[ASSET_COLUMNS[table]] not in asset_ids)
        elif table == "files":
            kept[table] = frozenset(r for r in rows if r[0] not in gone_files)
        else:
            kept[table] = rows
    carried = {name for _asset, name in kept["asset_tags"]}  # a tag exists while carried
    kept["tags"] = frozenset(r for r in state["tags"] if r[0] in carried)
    return kept


def without_search_text(state: State) -> State:
    """`state` without what search matches (derived: found text, analysis, names and tags)."""
    return {**state, "assets": frozenset(row[:-1] for row in state["assets"])}


def trashed_extra(now: State, before: State) -> set[str]:
    """Assets in the trash now that did not exist before (an undone import's)."""
    known = {row[0] for row in before["assets"]}
    return {row[0] for row in now["assets"] if row[0] not in known and row[9]}


def difference(expected: State, actual: State) -> str:
    """Readable: per table, the rows only one side has (empty when they agree)."""
    lines = []
    for table in expected:
        missing = expected[table] - actual[table]
        extra = actual[table] - expected[table]
        if missing or extra:
            lines.append(f"{table}: missing {sorted(missing, key=repr)[:5]}, "
                         f"unexpected {sorted(extra, key=repr)[:5]}")
    return "\n".join(lines)
