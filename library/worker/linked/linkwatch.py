"""Watching linked folders on disk (watchdog) and queuing a sync when something changed.

Runs in the worker process. One watchdog observer per worker watches every connected linked
folder whose rules say `autoImport`. Events (created, modified, moved, deleted, closed after
writing; never mere opens or reads, which our own copying causes) are debounced per linked
folder: once the folder has been quiet for `QUIET_SECONDS`, the subfolders and files it saw
renamed or moved are followed at once (their library folders renamed or moved: `linkmirror`),
and a `linked-folder-sync` task is queued for the task runner (one at a time per folder),
which copies what is new or changed. Every `POLL_SECONDS` each linked folder's disk folder is
looked at: one that vanished (moved away, deleted, its drive unplugged) is marked `missing`
at once, and a missing one that is back is synced again. A folder that cannot be watched
(the OS's watch limit reached) still syncs when its folder is refreshed. Thread-safe.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from library.catalogue import task_kinds
from library.library_folder import LIBRARY_SUFFIX
from library.schemas import LinkedFolderRules
from library.worker.linked import watching
from library.worker.linked.linkmirror import Mirror
from library.worker.rows import assetrows
from library.worker.services import Services
from library.worker.store.transaction import background_write
from library.worker.tasks import taskrows
from library.worker.tasks.taskboard import board_for

log = logging.getLogger("library.worker.linked")

QUIET_SECONDS = 1.0
POLL_SECONDS = 1.0
SYNC_KIND = task_kinds.LINKED_FOLDER_SYNC
CHANGES = {"created", "modified", "moved", "deleted", "closed"}


Move = tuple[str, str, bool]  # (source, destination, is a folder), relative to the root


class _Handler(FileSystemEventHandler):
    def __init__(self, linked_id: str, root: str, noticed: Callable[[str, Move | None], None]
                 ) -> None:
        self.linked_id = linked_id
        self.root = Path(root)
        self.noticed = noticed

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in CHANGES:
            return
        paths = [os.fsdecode(event.src_path)]
        if getattr(event, "dest_path", None):
            paths.append(os.fsdecode(event.dest_path))
        if all(_ignored(Path(p)) for p in paths):
            return
        move = None
        if event.event_type == "moved" and not event.is_synthetic and len(paths) == 2:
            source, target = (self._relative(p) for p in paths)
            if source and target:
                move = (source, target, bool(event.is_directory))
        self.noticed(self.linked_id, move)

    def _relative(self, path: str) -> str | None:
        """`path` relative to the linked folder with `/`, or None outside it (or itself)."""
        try:
            relative = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if relative in ("", ".") else relative


def _ignored(path: Path) -> bool:
    """Hidden files, and anything inside a Serpent library (ours, if it lives in there)."""
    return any(part.startswith(".") or part.endswith(LIBRARY_SUFFIX) for part in path.parts[1:])


class LinkWatcher:
    def __init__(self, services: Services) -> None:
        self.services = services
        self._lock = threading.Lock()
        self._observer: Any = None
        self._watches: dict[str, tuple[str, Any]] = {}  # linked id -> (path, watch)
        self._inodes: dict[str, int] = {}  # linked id -> its disk folder's inode
        self._missing: dict[str, str] = {}  # linked id -> path, of missing ones
        self._due: dict[str, float] = {}  # linked id -> when it has been quiet long enough
        self._moves: dict[str, list[Move]] = {}  # linked id -> renames seen, in order
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._debounce, name="linked-folders",
                                        daemon=True)

    def start(self) -> None:
        self.reload()
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._thread.join(10)
        with self._lock:
            observer, self._observer = self._observer, None
            self._watches.clear()
        if observer is not None:
            observer.stop()
            observer.join(10)

    def reload(self) -> None:
        """Watch exactly the linked folders that want it (after a linked-folder change)."""
        conn = self.services.reader()
        try:
            rows = conn.execute("SELECT id, path, rules, status FROM linked_folders").fetchall()
        finally:
            conn.close()
        watched = {r["id"]: r for r in rows
                   if LinkedFolderRules.model_validate_json(r["rules"]).auto_import}
        wanted = {i: r["path"] for i, r in watched.items() if r["status"] == "connected"}
        with self._lock:
            if self._stopping.is_set():
                return
            self._missing = {i: r["path"] for i, r in watched.items()
                             if r["status"] == "missing"}
            for linked_id, (path, watch) in list(self._watches.items()):
                if wanted.get(linked_id) != path:
                    self._unschedule(watch)
                    del self._watches[linked_id]
            for linked_id, path in wanted.items():
                if linked_id not in self._watches:
                    self._schedule(linked_id, path)

    def watching(self) -> set[str]:
        with self._lock:
            return set(self._watches)

    # -- internals (under self._lock) ------------------------------------------------------
    def _schedule(self, linked_id: str, path: str) -> None:
        if self._observer is None:
            self._observer = Observer()
            self._observer.daemon = True
            self._observer.start()
        rules = _rules_of(self.services, linked_id)
        try:
            self._inodes[linked_id] = os.stat(path).st_ino
            watch = self._observer.schedule(_Handler(linked_id, path, self._noticed), path,
                                            recursive=rules.recursive if rules else True)
        except (OSError, ValueError) as error:
            log.warning("a linked folder cannot be watched (%s); it syncs on refresh", error)
            return
        self._watches[linked_id] = (path, watch)

    def _unschedule(self, watch: Any) -> None:
        with contextlib.suppress(KeyError, OSError, ValueError):  # already gone
            self._observer.unschedule(watch)

    # -- debouncing ------------------------------------------------------------------------
    def _noticed(self, linked_id: str, move: Move | None) -> None:
        with self._lock:
            self._due[linked_id] = time.monotonic() + QUIET_SECONDS
            if move is not None:
                self._moves.setdefault(linked_id, []).append(move)
        self._wake.set()

    def _debounce(self) -> None:
        next_poll = 0.0
        while not self._stopping.is_set():
            with self._lock:
                now = time.monotonic()
                ready = [i for i, due in self._due.items() if due <= now]
                moves = {i: self._moves.pop(i, []) for i in ready}
                for linked_id in ready:
                    del self._due[linked_id]
                wait = min([due - now for due in self._due.values()] + [POLL_SECONDS])
            try:
                if now >= next_poll:
                    next_poll = now + POLL_SECONDS
                    self._poll()
                for linked_id in ready:
                    if moves[linked_id]:
                        follow_moves(self.services, linked_id, moves[linked_id])
                    queue_sync(self.services, linked_id)
            except Exception:
                if not self._stopping.is_set():
                    log.exception("could not follow a change in a linked folder")
            self._wake.wait(max(wait, 0.01))
            self._wake.clear()

    def _poll(self) -> None:
        """Vanished disk folders are marked missing; missing ones that are back, synced."""
        with self._lock:
            watched = {i: (path, self._inodes.get(i)) for i, (path, _w) in self._watches.items()}
            missing = dict(self._missing)
        changed = False
        for linked_id, (path, inode) in watched.items():
            try:
                now = os.stat(path)
                gone = not os.path.isdir(path)
            except OSError:
                gone, now = True, None
            if gone:
                mark_missing(self.services, linked_id)
                changed = True
            elif now is not None and inode is not None and now.st_ino != inode:
                with self._lock:  # another folder under that name now: watch it instead
                    entry = self._watches.pop(linked_id, None)
                    if entry is not None:
                        self._unschedule(entry[1])
                changed = True
                queue_sync(self.services, linked_id)
        for linked_id, path in missing.items():
            if os.path.isdir(path):
                queue_sync(self.services, linked_id)
                with self._lock:
                    self._missing.pop(linked_id, None)
        if changed:
            self.reload()

    def take_moves(self, linked_id: str) -> list[Move]:
        with self._lock:
            return self._moves.pop(linked_id, [])


def queue_sync(services: Services, linked_id: str) -> str | None:
    """Queue a sync task for the linked folder, unless one is queued already."""
    params = json.dumps({"linkedFolderId": linked_id})
    with services.write_lock:
        conn = services.writer
        if conn.execute("SELECT 1 FROM tasks WHERE kind = ? AND status = 'queued' AND "
                        "params = ?", (SYNC_KIND, params)).fetchone():
            return None
        if not conn.execute("SELECT 1 FROM linked_folders WHERE id = ?",
                            (linked_id,)).fetchone():
            return None  # unlinked meanwhile
        with background_write(services, SYNC_KIND) as tx:
            task_id = taskrows.create(tx.conn, SYNC_KIND, params={"linkedFolderId": linked_id},
                                      total=None, actor_json=tx.actor_json, now=tx.now)
            tx.touch("task", [task_id])
            tx.summary = "Queued a sync of a linked folder"
    board_for(services.layout.root).wake.set()
    return task_id


def mark_missing(services: Services, linked_id: str) -> None:
    """The linked folder's disk folder is gone: say so now (it can be reconnected)."""
    with services.write_lock, background_write(services, SYNC_KIND) as tx:
        if tx.conn.execute("UPDATE linked_folders SET status = 'missing', version = version + 1 "
                           "WHERE id = ? AND status = 'connected'", (linked_id,)).rowcount:
            tx.touch("linked-folder", [linked_id])
        tx.summary = "A linked folder's disk folder is missing"


def follow_moves(services: Services, linked_id: str, moves: list[Move]) -> None:
    """Rename and move the library folders (and assets) of what moved on disk, now."""
    with services.write_lock:
        row = services.writer.execute("SELECT * FROM linked_folders WHERE id = ?",
                                      (linked_id,)).fetchone()
        if row is None or row["status"] != "connected":
            return
        with background_write(services, SYNC_KIND) as tx:
            mirror = Mirror.of(tx, row)
            renamed = mirror.apply_moves(moves)
            assetrows.mark_modified(tx.conn, renamed, tx.now, tx.actor_json)
            tx.touch("folder", mirror.touched)
            tx.touch("asset", renamed)
            tx.touch("linked-folder", [linked_id])
            tx.summary = "Followed what was renamed or moved in a linked folder"


def _rules_of(services: Services, linked_id: str) -> LinkedFolderRules | None:
    conn = services.reader()
    try:
        row = conn.execute("SELECT rules FROM linked_folders WHERE id = ?",
                           (linked_id,)).fetchone()
    finally:
        conn.close()
    return LinkedFolderRules.model_validate_json(row["rules"]) if row else None


def start(services: Services, stopping: threading.Event) -> Callable[[], None]:
    """Background starter: watch the linked folders while the worker serves."""
    watcher = LinkWatcher(services)
    watching.register(services.layout.root, watcher)
    try:
        watcher.start()
    except Exception:
        log.exception("linked folders are not watched")

    def stop() -> None:
        watching.forget(services.layout.root)
        watcher.stop()
    return stop
