"""Every row of a library from one database to another: a studio library's rows into a new
SQLite file (`library.export`), a local library's into an empty studio database (moving it
onto a studio server). Same ids, same library id, same import order.

Runs in the worker process, on the writer thread (nothing changes while it copies). Tables
go parent before child (the foreign keys hold at every step); assets in import order (a
SQLite file's rowid, a studio database's `rowid` column), tags and history with their ids.
The counts both schemas keep by triggers (the trash counts, each tag's count) are counted
afresh at the end, and a studio database's id sequences are moved past the ids copied.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

BATCH = 1000
# parent tables first; `tasks` last (a studio database: this machine's, via its view)
TABLES = ("library_state", "folders", "tags", "assets", "asset_tags", "asset_folders",
          "collections", "collection_assets", "change_log", "requests", "history",
          "history_items", "asset_analysis", "asset_colors", "asset_texts", "analyser_runs",
          "linked_folders", "linked_files", "linked_dirs", "tasks")
ORDER = {"assets": "rowid", "tags": "id", "history": "id", "change_log": "seq"}
# a studio database's tables with count triggers (pgschema): off while copying, counted afresh
COUNTED = ("assets", "asset_tags")
Progress = Callable[[str, int], None]  # (table, rows copied so far)


def columns(conn: Any, table: str) -> list[str]:
    """The table's columns in this database."""
    if getattr(conn, "dialect", "sqlite") == "sqlite":
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    return [row[0] for row in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = ? ORDER BY ordinal_position", (table,))]


def copy_rows(source: Any, target: Any, progress: Progress | None = None) -> dict[str, int]:
    """Copy every row of `TABLES` (the columns both have; the target's tables empty but for
    `asset_counts`, inside the caller's transaction on `target`). Returns rows per table."""
    copied: dict[str, int] = {}
    to_studio = getattr(target, "dialect", "sqlite") != "sqlite"
    if to_studio:
        # On, each copied asset updates the one `asset_counts` row, and inside one transaction
        # every update walks the row versions made before it: 10,000 assets took 11 s, 100,000
        # over 20 minutes (bench/studio/studio_setup.py's measurements). Off for this
        # transaction only (the tables are the mover's own: it installed the schema).
        for table in COUNTED:
            target.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    for table in TABLES:
        wanted = columns(target, table)
        have = columns(source, table)
        shared = [c for c in wanted if c in have]
        if table == "assets" and to_studio:
            shared.append("rowid")  # SQLite's implicit import order, kept as a column
        if table == "library_state":
            target.execute("DELETE FROM library_state")
        order = f" ORDER BY {ORDER[table]}" if table in ORDER else ""
        select = f"SELECT {', '.join(shared)} FROM {table}{order}"
        insert = (f"INSERT INTO {table} ({', '.join(shared)}) VALUES "
                  f"({', '.join('?' * len(shared))})")
        count = 0
        rows = source.execute(select).fetchall()
        for start in range(0, len(rows), BATCH):
            part = [tuple(row) for row in rows[start:start + BATCH]]
            target.executemany(insert, part)
            count += len(part)
            if progress is not None:
                progress(table, count)
        copied[table] = count
        if to_studio:
            # the planner sees the rows just copied (it would take the tables for empty, and
            # count the tags afresh by reading every asset once per tag: 6 minutes at 100,000)
            target.execute(f"ANALYZE {table}")
    _count_afresh(target)
    if to_studio:
        for table in COUNTED:
            target.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        for table, column in (("assets", "rowid"), ("tags", "id"), ("history", "id")):
            target.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                           f"coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)")
    return copied


def _count_afresh(conn: Any) -> None:
    conn.execute("UPDATE asset_counts SET n = (SELECT count(*) FROM assets a "
                 "WHERE a.trashed = asset_counts.trashed)")
    conn.execute("UPDATE tags SET live_count = (SELECT count(*) FROM asset_tags x JOIN assets "
                 "a ON a.id = x.asset_id WHERE x.tag_id = tags.id AND a.trashed = 0)")


def sqlite_snapshot(reader: Any, path: Path) -> dict[str, int]:
    """A SQLite library file at `path` holding every row `reader` (a studio library's read
    connection) sees in one snapshot: what `library.export` puts in the archive."""
    from library.worker.rows import assetrows
    from library.worker.store import schema
    from library.worker.store.database import connect

    target = connect(path)
    try:
        assetrows.register_functions(target)
        schema.check_and_migrate(target, path, fresh=True)
        reader.execute("BEGIN")  # one snapshot of the studio database for the whole copy
        target.execute("BEGIN IMMEDIATE")
        try:
            copied = copy_rows(reader, target)
            target.execute("UPDATE library_state SET clean_shutdown = 1")
            target.execute("COMMIT")
        except BaseException:
            target.execute("ROLLBACK")
            raise
        finally:
            reader.execute("COMMIT")
        target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        target.execute("PRAGMA journal_mode = DELETE")
    finally:
        target.close()
    return copied
