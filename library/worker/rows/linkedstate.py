"""Undo state of a linked folder (history kind `linked-folder`), for the linked-folder commands.

Runs in the worker process, writer thread. A linked folder's state is the disk folder it
follows, its rules, the library folder it fills, the library folders that mirror its disk
subfolders, the files it has seen there (with the asset each became) and when it was last
synced, so a linked folder put back by undo or redo is exactly the one that was: same
assets, same count, no file copied again. Its status (connected or missing) says what the
disk is like now, not what a person did: applying a state looks at the disk again. `None` means
it does not exist (undo of a link, redo of an unlink). Applying bumps its version and tells
the folder watcher once the transaction is committed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from library import pathrules
from library.errors import HISTORY_CONFLICT, LibraryError
from library.worker.linked import watching
from library.worker.rows.assetrows import chunks, marks

if TYPE_CHECKING:
    from library.worker.store.transaction import WriteTx

State = dict[str, Any]


def snapshot(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, State]:
    states: dict[str, State] = {}
    for part in chunks(list(ids)):
        where = f"IN ({marks(len(part))})"
        for row in conn.execute(f"SELECT id, path, folder_id, rules, last_refreshed_at FROM "
                                f"linked_folders WHERE id {where}", part):
            states[row["id"]] = {"path": row["path"], "folderId": row["folder_id"],
                                 "rules": json.loads(row["rules"]),
                                 "refreshedAt": row["last_refreshed_at"], "dirs": {},
                                 "files": []}
        for linked_id, relative_dir, folder_id in conn.execute(
                f"SELECT linked_folder_id, relative_dir, folder_id FROM linked_dirs WHERE "
                f"linked_folder_id {where} ORDER BY relative_dir", part):
            states[linked_id]["dirs"][relative_dir] = folder_id
        for linked_id, *seen in conn.execute(
                f"SELECT linked_folder_id, relative_path, size, mtime_ns, asset_id FROM "
                f"linked_files WHERE linked_folder_id {where} ORDER BY relative_path", part):
            states[linked_id]["files"].append(seen)
    return states


def versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for part in chunks(list(ids)):
        found.update(conn.execute(f"SELECT id, version FROM linked_folders WHERE id IN "
                                  f"({marks(len(part))})", part).fetchall())
    return found


def apply(tx: WriteTx, linked_id: str, target: State | None, other: State | None) -> None:
    conn = tx.conn
    tx.after_commit(lambda: watching.reload(tx.layout.root))
    if target is None:
        conn.execute("DELETE FROM linked_folders WHERE id = ?", (linked_id,))
        return
    if not conn.execute("SELECT 1 FROM folders WHERE id = ?", (target["folderId"],)).fetchone():
        raise LibraryError(HISTORY_CONFLICT, "The library folder the linked folder filled no "
                           "longer exists.", entityIds=[linked_id])
    for other_id, other_path in conn.execute("SELECT id, path FROM linked_folders WHERE "
                                             "id != ?", (linked_id,)):
        if pathrules.is_within(target["path"], other_path) or \
                pathrules.is_within(other_path, target["path"]):
            raise LibraryError(HISTORY_CONFLICT, "That disk folder (or one inside or around "
                               "it) is linked again since.", entityIds=[linked_id, other_id])
    status = "connected" if os.path.isdir(target["path"]) else "missing"
    rules = json.dumps(target["rules"], sort_keys=True)
    values = (target["path"], target["folderId"], rules, status, target["refreshedAt"])
    updated = conn.execute("UPDATE linked_folders SET path = ?, folder_id = ?, rules = ?, "
                           "status = ?, last_refreshed_at = ?, version = version + 1 "
                           "WHERE id = ?", (*values, linked_id))
    if updated.rowcount == 0:
        conn.execute("INSERT INTO linked_folders (path, folder_id, rules, status, "
                     "last_refreshed_at, id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (*values, linked_id, tx.now))
    conn.execute("DELETE FROM linked_dirs WHERE linked_folder_id = ?", (linked_id,))
    conn.executemany("INSERT INTO linked_dirs (linked_folder_id, relative_dir, folder_id) "
                     "SELECT ?, ?, id FROM folders WHERE id = ?",
                     [(linked_id, d, f) for d, f in target["dirs"].items()])
    conn.execute("DELETE FROM linked_files WHERE linked_folder_id = ?", (linked_id,))
    conn.executemany("INSERT INTO linked_files (linked_folder_id, relative_path, size, "
                     "mtime_ns, asset_id) VALUES (?, ?, ?, ?, (SELECT id FROM assets WHERE "
                     "id = ?))", [(linked_id, *seen) for seen in target["files"]])
