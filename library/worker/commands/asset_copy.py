"""`asset.copy`: also show assets in another folder, keeping the folders they are in.

Runs in the worker process, writer thread, one undoable `WriteTx`. Folders are virtual, so
no file is copied: the asset gains a folder membership. Answers per asset (changed, or
unchanged when it already was in the folder, or not_found); only changed assets get a new
version.
"""

from __future__ import annotations

from library.errors import NOT_FOUND, LibraryError
from library.schemas import AssetBatchOut, AssetCopyIn
from library.worker.commands.asset_edit import batch_result
from library.worker.rows import assetrows
from library.worker.store.transaction import WriteTx


def copy(tx: WriteTx, args: AssetCopyIn) -> AssetBatchOut:
    conn = tx.conn
    folder = conn.execute("SELECT name FROM folders WHERE id = ?", (args.folder_id,)).fetchone()
    if folder is None:
        raise LibraryError(NOT_FOUND, "That folder does not exist.", field="folderId",
                           folderId=args.folder_id)
    found = assetrows.existing(conn, args.asset_ids)
    current = assetrows.folders_of(conn, list(found))
    changed = [a for a, folders in current.items() if args.folder_id not in folders]
    tx.track("asset", changed)
    conn.executemany("INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) VALUES (?, ?)",
                     [(asset_id, args.folder_id) for asset_id in changed])
    assetrows.mark_modified(conn, changed, tx.now, tx.actor_json)
    if changed:
        tx.touch("folder", [args.folder_id])
    count = len(changed)
    tx.summary = f"Added {count} asset{'s' if count != 1 else ''} to {folder['name']}"
    return batch_result(conn, args.asset_ids, found, set(changed))
