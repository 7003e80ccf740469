"""Reading folders as `Folder` records (with asset and subfolder counts), and finding or
making the folder a disk folder's files go into (imports, linked folders).

Runs in the worker process (any thread with its own connection; `child` only on the writer).
Shared by the folder commands (`commands.folders`, `commands.folder_admin`), so a folder
reads the same everywhere. Sibling names are unique case-insensitively: a disk folder
called like an existing library folder goes into that one.
"""

from __future__ import annotations

import sqlite3
import unicodedata

from library.schemas import Folder
from library.worker.store.identity import new_id

MAX_NAME = 255

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


def disk_name(name: str) -> str:
    """A disk folder's name as a library folder name (printable, NFC, at most 255)."""
    name = unicodedata.normalize("NFC", name)
    cleaned = "".join(ch if ch.isprintable() else " " for ch in name).strip()
    return cleaned[:MAX_NAME].strip() or "Folder"


def child(conn: sqlite3.Connection, parent_id: str | None, name: str,
          now: str) -> tuple[str, bool]:
    """The folder called `name` (any case) under `parent_id`, made if missing; and whether it
    was made now."""
    row = conn.execute("SELECT id FROM folders WHERE coalesce(parent_id, '') = ? AND "
                       "name = ? COLLATE NOCASE", (parent_id or "", name)).fetchone()
    if row is not None:
        return str(row[0]), False
    folder_id = new_id("fld")
    conn.execute("INSERT INTO folders (id, name, parent_id, created_at) VALUES (?, ?, ?, ?)",
                 (folder_id, name, parent_id, now))
    return folder_id, True
