"""Reading folders as `Folder` records (with asset and subfolder counts).

Runs in the worker process (any thread with its own connection). Shared by the folder
commands (`commands.folders`, `commands.folder_admin`), so a folder reads the same
everywhere.
"""

from __future__ import annotations

import sqlite3

from library.schemas import Folder

FOLDER_ROWS = ("SELECT f.id, f.name, f.parent_id, f.version, "
               "(SELECT count(*) FROM asset_folders af JOIN assets a ON a.id = af.asset_id "
               "WHERE af.folder_id = f.id AND a.trashed = 0) AS asset_count, "
               "(SELECT count(*) FROM folders c WHERE c.parent_id = f.id) AS child_count "
               "FROM folders f")


def folder_out(row: sqlite3.Row) -> Folder:
    """A `Folder` from a row selected with FOLDER_ROWS."""
    return Folder(id=row["id"], name=row["name"], parent_id=row["parent_id"],
                  version=row["version"], asset_count=row["asset_count"],
                  child_count=row["child_count"])


def folder_by_id(conn: sqlite3.Connection, folder_id: str) -> Folder:
    """The folder with this id (it must exist)."""
    return folder_out(conn.execute(f"{FOLDER_ROWS} WHERE f.id = ?", (folder_id,)).fetchone())
