"""A linked folder's disk subfolders mirrored as library folders, kept in step.

Runs in the worker process, inside a sync's write transaction (writer connection, write
lock held). The linked folder itself is its library folder (`linked_folders.folder_id`);
each disk subfolder gets a library folder of its name under its parent's (`linked_dirs`, by
the subfolder's path relative to the linked folder; a library folder of that name already
there is adopted). `apply_moves` follows what the folder watcher saw renamed or moved on
disk: a renamed or moved subfolder renames or moves its library folder (its assets stay in
it), a moved file keeps its asset (renamed along when the asset still has the file's old
name). `reconcile` then puts every linked file's asset in the folder of the subfolder the
file is in (and out of the other mirrored folders), mirrors empty subfolders too, and
removes mirrored folders whose disk subfolder is gone once they hold nothing. Every folder
and asset is declared to the transaction before it changes (`track`/`created`: undo and the
live counts rely on it).
"""

from __future__ import annotations

import posixpath
import sqlite3
from dataclasses import dataclass, field

from library.worker.rows import assetrows, folderrows
from library.worker.rows.assetrows import chunks, marks
from library.worker.store.transaction import WriteTx


def dir_of(relative_path: str) -> str:
    return posixpath.dirname(relative_path)


def _stem(relative_path: str) -> str:
    name = posixpath.basename(relative_path)
    stem, dot, _ext = name.rpartition(".")
    return stem if dot and stem else name


@dataclass
class Mirror:
    tx: WriteTx
    linked_id: str
    root_folder: str
    folders: dict[str, str] = field(default_factory=dict)  # relative dir -> folder id
    touched: set[str] = field(default_factory=set)  # folders made, renamed, moved, emptied

    @classmethod
    def of(cls, tx: WriteTx, row: sqlite3.Row) -> Mirror:
        mirror = cls(tx, row["id"], row["folder_id"])
        mirror.folders = {r[0]: r[1] for r in tx.conn.execute(
            "SELECT ld.relative_dir, ld.folder_id FROM linked_dirs ld JOIN folders f ON "
            "f.id = ld.folder_id WHERE ld.linked_folder_id = ?", (row["id"],))}
        return mirror

    @property
    def conn(self) -> sqlite3.Connection:
        return self.tx.conn

    def folder_for(self, relative_dir: str) -> str:
        """The library folder of a disk subfolder (made, with its parents, if missing)."""
        if relative_dir in ("", "."):
            return self.root_folder
        found = self.folders.get(relative_dir)
        if found is not None:
            return found
        parent = self.folder_for(dir_of(relative_dir))
        name = folderrows.disk_name(posixpath.basename(relative_dir))
        folder_id, made = folderrows.child(self.conn, parent, name, self.tx.now)
        if made:
            self.tx.created("folder", [folder_id])
        self.conn.execute("INSERT OR REPLACE INTO linked_dirs (linked_folder_id, relative_dir, "
                          "folder_id) VALUES (?, ?, ?)", (self.linked_id, relative_dir, folder_id))
        self.folders[relative_dir] = folder_id
        if made:
            self.touched.add(folder_id)
        return folder_id

    # -- renames and moves on disk ---------------------------------------------------------
    def apply_moves(self, moves: list[tuple[str, str, bool]]) -> list[str]:
        """Follow (source, destination, is a folder) moves inside the linked folder; returns
        the assets renamed along."""
        renamed: list[str] = []
        for source, target, is_dir in moves:
            if not source or not target or source == target:
                continue
            if is_dir:
                self._move_dir(source, target)
            else:
                renamed += self._move_file(source, target)
        return renamed

    def _move_dir(self, source: str, target: str) -> None:
        conn = self.conn
        prefix = source + "/"
        for (path,) in conn.execute("SELECT relative_path FROM linked_files WHERE "
                                    "linked_folder_id = ? AND substr(relative_path, 1, ?) = ?",
                                    (self.linked_id, len(prefix), prefix)).fetchall():
            self._rekey(path, target + path[len(source):])
        moved = {d: f for d, f in self.folders.items() if d == source or d.startswith(prefix)}
        for old in moved:
            conn.execute("DELETE FROM linked_dirs WHERE linked_folder_id = ? AND "
                         "relative_dir = ?", (self.linked_id, old))
            del self.folders[old]
        folder_id = moved.get(source)
        if folder_id is None:
            return  # never mirrored: the scan makes it
        for old in [d for d in self.folders if d == target or d.startswith(target + "/")]:
            self._fold_into(self.folders.pop(old), moved.get(source + old[len(target):]))
        parent = self.folder_for(dir_of(target))
        name = _free_name(conn, parent, folderrows.disk_name(posixpath.basename(target)),
                          folder_id)
        self.tx.track("folder", [folder_id])
        conn.execute("UPDATE folders SET name = ?, parent_id = ?, version = version + 1 "
                     "WHERE id = ?", (name, parent, folder_id))
        self.touched.add(folder_id)
        for old, moved_id in moved.items():
            new = target + old[len(source):]
            conn.execute("INSERT OR REPLACE INTO linked_dirs (linked_folder_id, relative_dir, "
                         "folder_id) VALUES (?, ?, ?)", (self.linked_id, new, moved_id))
            self.folders[new] = moved_id

    def _fold_into(self, newer: str, kept: str | None) -> None:
        """A sync that ran while the disk folder moved mirrored its new place already: the
        folder that was there before (`kept`) stays, what went into the newer one joins it."""
        conn = self.conn
        conn.execute("DELETE FROM linked_dirs WHERE linked_folder_id = ? AND folder_id = ?",
                     (self.linked_id, newer))
        if kept is None or kept == newer:
            return
        self.tx.track("asset", [r[0] for r in conn.execute(
            "SELECT asset_id FROM asset_folders WHERE folder_id = ?", (newer,))])
        self.tx.track("folder", [newer])
        conn.execute("INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) SELECT "
                     "asset_id, ? FROM asset_folders WHERE folder_id = ?", (kept, newer))
        conn.execute("DELETE FROM asset_folders WHERE folder_id = ?", (newer,))
        if not conn.execute("SELECT 1 FROM folders WHERE parent_id = ?", (newer,)).fetchone():
            conn.execute("DELETE FROM folders WHERE id = ?", (newer,))
        self.touched.update((newer, kept))

    def _move_file(self, source: str, target: str) -> list[str]:
        row = self.conn.execute("SELECT asset_id FROM linked_files WHERE linked_folder_id = ? "
                                "AND relative_path = ?", (self.linked_id, source)).fetchone()
        if row is None:
            return []
        self._rekey(source, target)
        asset_id = row[0]
        if asset_id is None or _stem(source) == _stem(target):
            return []
        self.tx.track("asset", [asset_id])
        renamed = self.conn.execute("UPDATE assets SET name = ? WHERE id = ? AND name = ?",
                                    (folderrows.disk_name(_stem(target)), asset_id,
                                     _stem(source))).rowcount
        return [asset_id] if renamed else []

    def _rekey(self, source: str, target: str) -> None:
        conn = self.conn
        conn.execute("DELETE FROM linked_files WHERE linked_folder_id = ? AND relative_path = ?",
                     (self.linked_id, target))
        conn.execute("UPDATE linked_files SET relative_path = ? WHERE linked_folder_id = ? AND "
                     "relative_path = ?", (target, self.linked_id, source))

    # -- keeping memberships in step ---------------------------------------------------------
    def reconcile(self, disk_dirs: set[str] | None) -> list[str]:
        """Every linked file's asset in its subfolder's folder only (among the mirrored
        ones); empty subfolders mirrored; folders of vanished subfolders removed once empty.
        `disk_dirs`: the subfolders on disk (None: unknown, nothing made or removed).
        Returns the assets whose folders changed."""
        conn = self.conn
        if disk_dirs is not None:
            self._follow_vanished(disk_dirs)
        for relative_dir in sorted(disk_dirs or ()):
            self.folder_for(relative_dir)
        expected: set[tuple[str, str]] = set()
        linked: set[str] = set()
        for path, asset_id in conn.execute("SELECT relative_path, asset_id FROM linked_files "
                                           "WHERE linked_folder_id = ? AND asset_id IS NOT "
                                           "NULL", (self.linked_id,)).fetchall():
            expected.add((asset_id, self.folder_for(dir_of(path))))
            linked.add(asset_id)
        mirrored = [self.root_folder, *self.folders.values()]
        current: set[tuple[str, str]] = set()
        for part in chunks(mirrored):
            current.update((a, f) for a, f in conn.execute(
                f"SELECT asset_id, folder_id FROM asset_folders WHERE folder_id IN "
                f"({marks(len(part))})", part))
        adding = expected - current
        dropping = {(a, f) for a, f in current - expected if a in linked}
        self.tx.track("asset", sorted({a for a, _f in adding | dropping}))
        conn.executemany("INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) VALUES "
                         "(?, ?)", sorted(adding))
        conn.executemany("DELETE FROM asset_folders WHERE asset_id = ? AND folder_id = ?",
                         sorted(dropping))
        self.touched.update(f for _a, f in adding | dropping)
        if disk_dirs is not None:
            self._prune(disk_dirs)
        changed = sorted({a for a, _f in adding | dropping})
        assetrows.mark_modified(conn, changed, self.tx.now, self.tx.actor_json)
        return changed

    def _follow_vanished(self, disk_dirs: set[str]) -> None:
        """A mirrored subfolder gone from disk whose files all turned up in one other
        subfolder was moved or renamed (the watcher did not say so, or a sync saw it first):
        its library folder follows, instead of a new one being made and the old one
        removed."""
        conn = self.conn
        for gone in sorted((d for d in self.folders if d not in disk_dirs), key=len):
            folder_id = self.folders.get(gone)
            if folder_id is None:
                continue  # it moved along with a parent already
            members = {r[0] for r in conn.execute(
                "SELECT asset_id FROM asset_folders WHERE folder_id = ?", (folder_id,))}
            if not members:
                continue
            homes = {dir_of(r[0]) for part in chunks(sorted(members)) for r in conn.execute(
                f"SELECT relative_path FROM linked_files WHERE linked_folder_id = ? AND "
                f"asset_id IN ({marks(len(part))})", (self.linked_id, *part))}
            homes = {h for h in homes if h and h in disk_dirs and h != gone}
            if len(homes) != 1:
                continue
            [target] = homes
            there = self.folders.get(target)
            if there is not None and not {r[0] for r in conn.execute(
                    "SELECT asset_id FROM asset_folders WHERE folder_id = ?",
                    (there,))} <= members:
                continue  # the target holds other things: not simply this folder, moved
            self._move_dir(gone, target)

    def _prune(self, disk_dirs: set[str]) -> None:
        conn = self.conn
        for relative_dir in sorted(set(self.folders) - disk_dirs, key=len, reverse=True):
            folder_id = self.folders[relative_dir]
            busy = conn.execute("SELECT EXISTS (SELECT 1 FROM asset_folders af JOIN assets a "
                                "ON a.id = af.asset_id WHERE af.folder_id = ? AND "
                                "a.trashed = 0) OR EXISTS (SELECT 1 FROM folders WHERE "
                                "parent_id = ?)", (folder_id, folder_id)).fetchone()[0]
            if busy:
                continue
            self.tx.track("folder", [folder_id])
            conn.execute("DELETE FROM folders WHERE id = ?", (folder_id,))
            del self.folders[relative_dir]
            self.touched.add(folder_id)


def _free_name(conn: sqlite3.Connection, parent: str, name: str, itself: str) -> str:
    for number in range(1, 1000):
        candidate = name if number == 1 else f"{name} ({number})"
        clash = conn.execute("SELECT id FROM folders WHERE coalesce(parent_id, '') = ? AND "
                             "name = ? COLLATE NOCASE AND id != ?",
                             (parent, candidate, itself)).fetchone()
        if clash is None:
            return candidate
    return f"{name} ({itself[-6:]})"
