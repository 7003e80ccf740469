"""Reshaping the folder tree: `folder.rename`, `folder.move`, `folder.delete-empty`.

Runs in the worker process, writer thread; each command is one `WriteTx` and undoable (the
folders' name and parent are journaled). Sibling names are unique the way a Windows or
macOS disk sees names (`pathrules.casefold_collides`: case, Unicode form, trailing dots and
spaces), so a library folder can always be exported as a disk folder; a case-only rename of
the folder itself is allowed. A move under itself or one of its own subfolders is refused
with INVALID_ARGUMENT. `folder.delete-empty` is all-or-nothing: one target that holds an
asset (the trash included: deleting the folder would silently drop that membership) or a
subfolder refuses the whole batch with NOT_EMPTY naming every offender.
"""

from __future__ import annotations

import sqlite3

from library import pathrules
from library.errors import (
    ALREADY_EXISTS,
    INVALID_ARGUMENT,
    NOT_EMPTY,
    NOT_FOUND,
    VERSION_CONFLICT,
    LibraryError,
)
from library.schemas import (
    Folder,
    FolderDeleteEmptyIn,
    FolderDeleteEmptyOut,
    FolderMoveIn,
    FolderRenameIn,
)
from library.worker.rows.assetrows import chunks, marks
from library.worker.rows.folderrows import folder_by_id
from library.worker.store.transaction import WriteTx

MAX_LISTED_OFFENDERS = 100


def _get(conn: sqlite3.Connection, folder_id: str, field: str = "folderId") -> sqlite3.Row:
    row = conn.execute("SELECT id, name, parent_id, version FROM folders WHERE id = ?",
                       (folder_id,)).fetchone()
    if row is None:
        raise LibraryError(NOT_FOUND, "That folder does not exist.", field=field,
                           folderId=folder_id)
    found: sqlite3.Row = row
    return found


def _check_sibling_names(conn: sqlite3.Connection, name: str, parent_id: str | None,
                         folder_id: str) -> None:
    siblings = [r[0] for r in conn.execute(
        "SELECT name FROM folders WHERE coalesce(parent_id, '') = ? AND id != ?",
        (parent_id or "", folder_id))]
    clash = pathrules.casefold_collides(name, siblings)
    if clash is not None:
        where = "at the top level" if parent_id is None else "in that folder"
        raise LibraryError(ALREADY_EXISTS, f"A folder called {clash!r} is already {where}.",
                           field="name", existing=clash)


def _result(conn: sqlite3.Connection, folder_id: str) -> Folder:
    return folder_by_id(conn, folder_id)


def rename(tx: WriteTx, args: FolderRenameIn) -> Folder:
    conn = tx.conn
    row = _get(conn, args.folder_id)
    if args.expected_version is not None and args.expected_version != row["version"]:
        raise LibraryError(VERSION_CONFLICT, f"The folder changed meanwhile (it is at version "
                           f"{row['version']}, not {args.expected_version}).",
                           currentVersion=row["version"], folderId=args.folder_id)
    if row["name"] != args.name:
        _check_sibling_names(conn, args.name, row["parent_id"], args.folder_id)
        tx.track("folder", [args.folder_id])
        conn.execute("UPDATE folders SET name = ?, version = version + 1 WHERE id = ?",
                     (args.name, args.folder_id))
        tx.summary = f"Renamed the folder {row['name']} to {args.name}"
    return _result(conn, args.folder_id)


def move(tx: WriteTx, args: FolderMoveIn) -> Folder:
    conn = tx.conn
    row = _get(conn, args.folder_id)
    if args.parent_id is not None:
        parent = _get(conn, args.parent_id, "parentId")
        if args.parent_id == args.folder_id or _is_inside(conn, args.parent_id, args.folder_id):
            raise LibraryError(INVALID_ARGUMENT, f"A folder cannot go inside itself: "
                               f"{parent['name']!r} is {row['name']!r} or one of its "
                               f"subfolders.", field="parentId", reason="cycle")
    if row["parent_id"] != args.parent_id:
        _check_sibling_names(conn, row["name"], args.parent_id, args.folder_id)
        tx.track("folder", [args.folder_id])
        conn.execute("UPDATE folders SET parent_id = ?, version = version + 1 WHERE id = ?",
                     (args.parent_id, args.folder_id))
        where = "to the top level" if args.parent_id is None else f"into {parent['name']}"
        tx.summary = f"Moved the folder {row['name']} {where}"
    return _result(conn, args.folder_id)


def _is_inside(conn: sqlite3.Connection, folder_id: str, ancestor_id: str) -> bool:
    """Is `folder_id` somewhere below `ancestor_id`?"""
    return conn.execute("WITH RECURSIVE up(id) AS (SELECT parent_id FROM folders WHERE id = ? "
                        "UNION SELECT f.parent_id FROM folders f JOIN up ON f.id = up.id "
                        "WHERE f.parent_id IS NOT NULL) SELECT 1 FROM up WHERE id = ?",
                        (folder_id, ancestor_id)).fetchone() is not None


def delete_empty(tx: WriteTx, args: FolderDeleteEmptyIn) -> FolderDeleteEmptyOut:
    conn = tx.conn
    ids = list(dict.fromkeys(args.folder_ids))
    rows: dict[str, sqlite3.Row] = {}
    for part in chunks(ids):
        for row in conn.execute(
                f"SELECT f.id, f.name, "
                f"(SELECT count(*) FROM asset_folders af JOIN assets a ON a.id = af.asset_id "
                f"WHERE af.folder_id = f.id AND a.trashed = 0) AS assets, "
                f"(SELECT count(*) FROM asset_folders af JOIN assets a ON a.id = af.asset_id "
                f"WHERE af.folder_id = f.id AND a.trashed = 1) AS trashed, "
                f"(SELECT count(*) FROM folders c WHERE c.parent_id = f.id) AS subfolders "
                f"FROM folders f WHERE f.id IN ({marks(len(part))})", part):
            rows[row["id"]] = row
    unknown = [i for i in ids if i not in rows]
    if unknown:
        raise LibraryError(NOT_FOUND, f"{len(unknown)} of the folders do not exist; nothing "
                           f"was deleted.", field="folderIds", notFound=unknown[:100])
    offenders = [rows[i] for i in ids
                 if rows[i]["assets"] or rows[i]["trashed"] or rows[i]["subfolders"]]
    if offenders:
        names = ", ".join(repr(r["name"]) for r in offenders[:5])
        more = f" and {len(offenders) - 5} more" if len(offenders) > 5 else ""
        raise LibraryError(
            NOT_EMPTY, f"Not empty, so nothing was deleted: {names}{more}.", field="folderIds",
            offenders=[{"id": r["id"], "name": r["name"], "assets": r["assets"],
                        "trashedAssets": r["trashed"], "subfolders": r["subfolders"]}
                       for r in offenders[:MAX_LISTED_OFFENDERS]])
    tx.track("folder", ids)
    for part in chunks(ids):
        conn.execute(f"DELETE FROM folders WHERE id IN ({marks(len(part))})", part)
    tx.summary = (f"Deleted the folder {rows[ids[0]]['name']}" if len(ids) == 1
                  else f"Deleted {len(ids)} empty folders")
    return FolderDeleteEmptyOut(deleted=ids)
