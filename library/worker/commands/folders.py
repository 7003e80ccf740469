"""`folder.create` and `folder.list`. Folders are virtual: an asset may be in several.

Runs in the worker process: create on the writer thread (undoable), list on a reader thread.
Sibling folder names are unique, case-insensitively.
"""

from __future__ import annotations

from library.errors import ALREADY_EXISTS, NOT_FOUND, LibraryError
from library.schemas import Folder, FolderCreateIn, FolderListIn, FolderListOut
from library.worker.context import ReadContext
from library.worker.rows.folderrows import FOLDER_ROWS, folder_by_id, folder_out, subtree_totals
from library.worker.store.identity import new_id
from library.worker.store.transaction import WriteTx


def create(tx: WriteTx, args: FolderCreateIn) -> Folder:
    conn = tx.conn
    if args.parent_id is not None and not conn.execute(
            "SELECT 1 FROM folders WHERE id = ?", (args.parent_id,)).fetchone():
        raise LibraryError(NOT_FOUND, "The parent folder does not exist.", field="parentId")
    clash = conn.execute("SELECT id FROM folders WHERE coalesce(parent_id, '') = ? AND "
                         "name = ? COLLATE NOCASE", (args.parent_id or "", args.name)).fetchone()
    if clash:
        raise LibraryError(ALREADY_EXISTS, f"A folder called {args.name!r} is already there.",
                           field="name", folderId=clash["id"])
    folder_id = new_id("fld")
    conn.execute("INSERT INTO folders (id, name, parent_id, created_at) VALUES (?, ?, ?, ?)",
                 (folder_id, args.name, args.parent_id, tx.now))
    tx.created("folder", [folder_id])
    tx.summary = f"Created the folder {args.name}"
    return folder_by_id(conn, folder_id)


def list_folders(ctx: ReadContext, args: FolderListIn) -> FolderListOut:
    if args.parent_id is None:
        rows = ctx.conn.execute(f"{FOLDER_ROWS} ORDER BY f.name COLLATE NOCASE, f.id")
    else:
        if not ctx.conn.execute("SELECT 1 FROM folders WHERE id = ?",
                                (args.parent_id,)).fetchone():
            raise LibraryError(NOT_FOUND, "That folder does not exist.", field="parentId")
        rows = ctx.conn.execute(f"{FOLDER_ROWS} WHERE f.parent_id = ? "
                                f"ORDER BY f.name COLLATE NOCASE, f.id", (args.parent_id,))
    found = rows.fetchall()
    totals = subtree_totals(ctx.conn) if any(r["child_count"] for r in found) else {}
    return FolderListOut(items=[folder_out(r, totals.get(r["id"])) for r in found])
