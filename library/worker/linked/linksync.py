"""Bringing one linked folder up to date: new and changed disk files are copied into the
store (de-duplicated by content), files gone from disk are let go.

Runs in the worker process: on the writer thread for the linked-folder commands (which
hold the write lock already) or on the task runner for syncs the folder watcher asked for
(which take the lock batch by batch, so other commands go on in between). The disk folder
is scanned without any lock; each batch of up to `BATCH` files is copied, made durable and
recorded in one transaction, so a crash or a cancel keeps whole batches and leaves at most
orphan files that recovery sets aside. A file that changed on disk becomes a new asset (the
store is content-addressed); its tags, folders, rating and notes carry over and the older
asset goes to the trash (restorable). Files no longer on disk, or no longer matching the
rules, keep their assets. A folder that cannot be listed is marked `missing`. Disk
subfolders are mirrored as library folders, renames and moves the watcher saw are followed,
and every linked file's asset sits in its subfolder's library folder (`linkmirror`). Every
asset, folder and the linked folder itself is declared (`track`/`created`) before it
changes, so a sync a linked-folder command ran is part of that command's undo step
(`history`, `link`); the watcher's syncs record no step.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from library.catalogue import HistoryRule
from library.protocol import CallMeta
from library.schemas import LinkedFolderRules
from library.worker.files import media
from library.worker.linked.linkmirror import Mirror, dir_of
from library.worker.linked.linkrules import DiskFile, scan_tree
from library.worker.rows import assetrows
from library.worker.rows.assetrows import chunks, marks
from library.worker.services import Services
from library.worker.store.filestore import (
    CopyCancelled,
    FileStore,
    NotARegularFile,
    SourceUnreadable,
)
from library.worker.store.identity import new_id
from library.worker.store.requests import Call
from library.worker.store.transaction import WriteTx

BATCH = 32


@dataclass
class SyncResult:
    added: int = 0
    updated: int = 0
    missing: int = 0
    failed: int = 0
    cancelled: bool = False
    connected: bool = True
    new_asset_ids: list[str] = field(default_factory=list)


@dataclass
class _Copied:
    file: DiskFile
    asset_id: str
    new: bool  # a new asset (else: content the library already had)
    previous: str | None  # the asset the file had before it changed
    # new_asset_row's name, original name, ext, size, sha256 and facts
    insert: tuple[str, str, str, int, str, media.ImageFacts] | None = None


@dataclass
class Syncer:
    services: Services
    command: str
    meta: CallMeta
    lock: Callable[[], AbstractContextManager[object]]
    history: HistoryRule = "none"
    link: Call | None = None
    cancelled: Callable[[], bool] = lambda: False
    progress: Callable[[int, int, str], None] = lambda done, total, message: None
    quiet: bool = False  # a watcher's sync: record nothing when nothing changed
    task_kind: str = ""  # a watcher's sync (no command: `command` is ""), recorded as such
    store: FileStore = field(init=False)
    _wrote: bool = field(init=False, default=False)
    _dirs: set[str] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.store = FileStore(self.services.layout)

    def run(self, linked_id: str) -> SyncResult:
        """Sync one linked folder. A call sent again after its worker died goes on where it
        stopped: what its batches recorded is counted from its ledger note (`link`)."""
        counted = self.link.progress.get("synced", {}) if self.link is not None else {}
        result = SyncResult(added=int(counted.get("added", 0)),
                            updated=int(counted.get("updated", 0)))
        with self.lock():
            row = self.services.writer.execute(
                "SELECT * FROM linked_folders WHERE id = ?", (linked_id,)).fetchone()
            if row is None:
                return result
            known = {r["relative_path"]: r for r in self.services.writer.execute(
                "SELECT relative_path, size, mtime_ns, asset_id FROM linked_files WHERE "
                "linked_folder_id = ?", (linked_id,))}
        rules = LinkedFolderRules.model_validate_json(row["rules"])
        try:
            disk, self._dirs = scan_tree(Path(row["path"]), rules)
        except OSError:
            result.connected = False
            self._finish(row, [], result)
            return result
        work = [f for rel, f in disk.items() if rel not in known  # new, or changed:
                or (known[rel]["size"], known[rel]["mtime_ns"]) != (f.size, f.mtime_ns)]
        gone = [rel for rel in known if rel not in disk]
        total = len(work)
        for start in range(0, total, BATCH):
            if self.cancelled():
                result.cancelled = True
                break
            batch = work[start:start + BATCH]
            with self.lock():
                self._batch(row, batch, known, result)
            self.progress(min(start + BATCH, total), total, batch[-1].relative)
        self._finish(row, [] if result.cancelled else gone, result)
        return result

    # -- one batch ----------------------------------------------------------------------
    def _batch(self, row: sqlite3.Row, batch: list[DiskFile], known: dict[str, sqlite3.Row],
               result: SyncResult) -> None:
        conn = self.services.writer
        copied: list[_Copied] = []
        in_batch: dict[str, str] = {}
        for disk_file in batch:
            if self.cancelled():
                result.cancelled = True
                break
            item = self._copy(conn, disk_file, in_batch, result)
            if item is not None:
                before = known.get(disk_file.relative)
                item.previous = before["asset_id"] if before is not None else None
                copied.append(item)
        if not copied:
            return
        self.store.make_durable()
        updated = sum(1 for c in copied if c.previous is not None)
        with self._transaction() as tx:
            if self.link is not None:  # recorded with the batch, for a call sent again
                self.link.progress["synced"] = {"added": result.added + len(copied) - updated,
                                                "updated": result.updated + updated}
            tx.track("asset", [c.asset_id for c in copied if not c.new]
                     + [c.previous for c in copied if c.previous not in (None, c.asset_id)])
            tx.created("asset", [c.asset_id for c in copied if c.new])
            assetrows.insert_assets(tx.conn, [  # search text: refreshed below
                assetrows.new_asset_row(c.asset_id, *c.insert, tx.now, tx.actor_json)
                for c in copied if c.insert is not None])
            mirror = Mirror.of(tx, row)
            tx.conn.executemany(
                "INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) VALUES (?, ?)",
                [(c.asset_id, mirror.folder_for(dir_of(c.file.relative))) for c in copied])
            tx.conn.executemany(
                "INSERT OR REPLACE INTO linked_files (linked_folder_id, relative_path, size, "
                "mtime_ns, asset_id) VALUES (?, ?, ?, ?, ?)",
                [(row["id"], c.file.relative, c.file.size, c.file.mtime_ns, c.asset_id)
                 for c in copied])
            replaced = [(c.previous, c.asset_id, c.new) for c in copied
                        if c.previous is not None and c.previous != c.asset_id]
            self._carry_over(tx, replaced)
            new_ids = [c.asset_id for c in copied if c.new]
            assetrows.refresh_search_text(tx.conn, new_ids)
            tx.touch("asset", [c.asset_id for c in copied] + [old for old, _n, _b in replaced])
            tx.touch("folder", [row["folder_id"], *mirror.touched])
            tx.touch("linked-folder", [row["id"]])
            tx.summary = f"Synced {len(copied)} file(s) of a linked folder"
        self._wrote = True
        result.new_asset_ids.extend(c.asset_id for c in copied if c.new)
        result.updated += updated
        result.added += len(copied) - updated

    def _copy(self, conn: sqlite3.Connection, disk_file: DiskFile, in_batch: dict[str, str],
              result: SyncResult) -> _Copied | None:
        try:
            staged = self.store.stage_copy(disk_file.path, self.cancelled)
        except CopyCancelled:
            result.cancelled = True
            return None
        except (SourceUnreadable, NotARegularFile):
            result.failed += 1
            return None
        try:
            now = os.stat(disk_file.path)
            if (now.st_size, now.st_mtime_ns) != (disk_file.size, disk_file.mtime_ns):
                self.store.discard(staged)  # still being written: the next event takes it
                return None
        except OSError:
            self.store.discard(staged)
            return None
        existing = in_batch.get(staged.sha256) or _asset_with(conn, staged.sha256)
        if existing is not None:
            self.store.discard_duplicate(staged)
            return _Copied(disk_file, existing, new=False, previous=None)
        ext = media.normalized_ext(disk_file.path)
        facts = media.probe(staged.path, ext, media.kind_of(ext))
        self.store.commit_staged(staged, ext)
        asset_id = new_id("ast")
        in_batch[staged.sha256] = asset_id
        name = _clean(disk_file.path.stem if disk_file.path.suffix else disk_file.path.name)
        insert = (name[:255] or "file", _clean(disk_file.path.name)[:255] or "file", ext,
                  staged.size, staged.sha256, facts)
        return _Copied(disk_file, asset_id, new=True, previous=None, insert=insert)

    def _carry_over(self, tx: WriteTx, replaced: list[tuple[str, str, bool]]) -> None:
        """A changed file's new asset takes over the old one's tags, folders, rating and
        notes; the old asset goes to the trash unless another linked file still uses it."""
        conn = tx.conn
        for old, new, fresh in replaced:
            if fresh:
                conn.execute("INSERT OR IGNORE INTO asset_tags (asset_id, tag_id) "
                             "SELECT ?, tag_id FROM asset_tags WHERE asset_id = ?", (new, old))
                conn.execute("INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) "
                             "SELECT ?, folder_id FROM asset_folders WHERE asset_id = ?",
                             (new, old))
                conn.execute("UPDATE assets SET (rating, notes, source_url) = (SELECT rating, "
                             "notes, source_url FROM assets WHERE id = ?) WHERE id = ?",
                             (old, new))
            if not conn.execute("SELECT 1 FROM linked_files WHERE asset_id = ?",
                                (old,)).fetchone():
                conn.execute("UPDATE assets SET trashed = 1, trashed_at = ? WHERE id = ? "
                             "AND trashed = 0", (tx.now, old))
                assetrows.mark_modified(conn, [old], tx.now, tx.actor_json)
        if replaced:
            tx.touch("trash")
            tx.touch("tag")
            assetrows.refresh_search_text(conn, [new for _old, new, _f in replaced])

    # -- the end --------------------------------------------------------------------------
    def _finish(self, row: sqlite3.Row, gone: list[str], result: SyncResult) -> None:
        """Let go of files gone from disk; mirror the subfolders; record the folder's status
        and refresh time (a watcher's sync that changed nothing records nothing)."""
        status = "connected" if result.connected else "missing"
        result.missing = len(gone)
        try:
            with self.lock(), self._transaction() as tx:
                tx.track("linked-folder", [row["id"]])
                for part in chunks(gone):
                    tx.conn.execute(f"DELETE FROM linked_files WHERE linked_folder_id = ? AND "
                                    f"relative_path IN ({marks(len(part))})", (row["id"], *part))
                mirror = Mirror.of(tx, row)
                placed = mirror.reconcile(self._dirs if result.connected else None)
                changed = status != row["status"]
                if (self.quiet and not gone and not self._wrote and not changed and not placed
                        and not mirror.touched):
                    raise _Unchanged
                tx.conn.execute("UPDATE linked_folders SET status = ?, version = version + ?, "
                                "last_refreshed_at = ? WHERE id = ?",
                                (status, int(changed), tx.now, row["id"]))
                tx.touch("linked-folder", [row["id"]])
                if placed or mirror.touched:
                    tx.touch("asset", placed)
                    tx.touch("folder", mirror.touched)
                tx.summary = f"Linked folder {'refreshed' if result.connected else 'missing'}"
        except _Unchanged:
            pass

    def _transaction(self) -> WriteTx:
        return WriteTx(self.services, self.command, self.meta, history=self.history,
                       link=self.link, task_kind=self.task_kind)


def _asset_with(conn: sqlite3.Connection, sha256: str) -> str | None:
    found = conn.execute("SELECT id FROM assets WHERE sha256 = ?", (sha256,)).fetchone()
    return found[0] if found else None


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()


class _Unchanged(Exception):
    """A quiet sync found nothing to record: its transaction is rolled back."""


@contextlib.contextmanager
def held() -> Iterator[None]:
    """The lock of a caller that holds the write lock already (the writer thread)."""
    yield


def rules_json(rules: LinkedFolderRules) -> str:
    return json.dumps(rules.model_dump(mode="json", by_alias=True), sort_keys=True)
