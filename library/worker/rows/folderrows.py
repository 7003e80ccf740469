"""Reading folders as `Folder` records (with asset and subfolder counts, and the assets of
the whole subtree), and finding or making the folder a disk folder's files go into (imports,
linked folders).

Runs in the worker process (any thread with its own connection; `child` only on the writer).
Shared by the folder commands (`commands.folders`, `commands.folder_admin`), so a folder
reads the same everywhere. Sibling names are unique case-insensitively: a disk folder
called like an existing library folder goes into that one.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections import Counter

from library.schemas import Folder
from library.worker.store.identity import new_id

MAX_NAME = 255

FOLDER_ROWS = ("SELECT f.id, f.name, f.parent_id, f.version, "
               "(SELECT count(*) FROM asset_folders af JOIN assets a ON a.id = af.asset_id "
               "WHERE af.folder_id = f.id AND a.trashed = 0) AS asset_count, "
               "(SELECT count(*) FROM folders c WHERE c.parent_id = f.id) AS child_count "
               "FROM folders f")


# assets in more than one folder: an asset filed twice under one folder counts once there
MULTI_FILED = ("SELECT af.asset_id, group_concat(af.folder_id, ' ') FROM asset_folders af "
               "WHERE af.asset_id IN (SELECT asset_id FROM asset_folders GROUP BY asset_id "
               "HAVING count(*) > 1) AND af.asset_id IN (SELECT id FROM assets "
               "WHERE trashed = 0) GROUP BY af.asset_id")


def folder_out(row: sqlite3.Row, total: int | None = None) -> Folder:
    """A `Folder` from a row selected with FOLDER_ROWS (`total`: its subtree's assets;
    its own count when not given)."""
    return Folder(id=row["id"], name=row["name"], parent_id=row["parent_id"],
                  version=row["version"], asset_count=row["asset_count"],
                  child_count=row["child_count"],
                  total_count=row["asset_count"] if total is None else total)


def folder_by_id(conn: sqlite3.Connection, folder_id: str) -> Folder:
    """The folder with this id (it must exist)."""
    row = conn.execute(f"{FOLDER_ROWS} WHERE f.id = ?", (folder_id,)).fetchone()
    return folder_out(row, subtree_totals(conn).get(folder_id) if row["child_count"] else None)


def subtree_totals(conn: sqlite3.Connection) -> dict[str, int]:
    """Every folder's assets with those of all folders under it, each asset once (trash
    excluded): the direct counts summed up the tree, less the repeats of assets filed in
    several folders of one subtree."""
    parents = {row[0]: row[1] for row in conn.execute("SELECT id, parent_id FROM folders")}

    def chain(folder_id: str) -> list[str]:
        found: list[str] = []
        current: str | None = folder_id
        while current is not None and current in parents and current not in found:
            found.append(current)
            current = parents[current]
        return found

    totals = dict.fromkeys(parents, 0)
    for folder_id, count in conn.execute(
            "SELECT af.folder_id, count(*) FROM asset_folders af JOIN assets a "
            "ON a.id = af.asset_id WHERE a.trashed = 0 GROUP BY af.folder_id"):
        for above in chain(folder_id):
            totals[above] += count
    for _asset, folders in conn.execute(MULTI_FILED):
        seen = Counter(above for folder_id in folders.split() for above in chain(folder_id))
        for above, times in seen.items():
            totals[above] -= times - 1
    return totals


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
