"""Watching linked folders on disk (watchdog) and queuing a sync when something changed.

Runs in the worker process. One watchdog observer per worker watches every connected linked
folder whose rules say `autoImport`. Events (created, modified, moved, deleted, closed after
writing; never mere opens or reads, which our own copying causes) are debounced per linked
folder: once the folder has been quiet for `QUIET_SECONDS`, a `linked-folder-sync` task is
queued for the task runner (one at a time per folder), which copies what is new or changed.
A folder that cannot be watched (gone, or the OS's watch limit reached) still syncs on
`linked-folder.refresh`. Thread-safe.
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

from library.library_folder import LIBRARY_SUFFIX
from library.protocol import CallMeta
from library.schemas import LinkedFolderRules
from library.worker.context import Services
from library.worker.store.database import connect
from library.worker.store.transaction import WriteTx
from library.worker.tasks import taskrows
from library.worker.tasks.taskboard import board_for

log = logging.getLogger("library.worker.linked")

QUIET_SECONDS = 1.0
SYNC_KIND = "linked-folder-sync"
CHANGES = {"created", "modified", "moved", "deleted", "closed"}
WATCHER_META = CallMeta(source="system", label="Serpent")


class _Handler(FileSystemEventHandler):
    def __init__(self, linked_id: str, noticed: Callable[[str], None]) -> None:
        self.linked_id = linked_id
        self.noticed = noticed

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in CHANGES:
            return
        paths = [os.fsdecode(event.src_path)]
        if getattr(event, "dest_path", None):
            paths.append(os.fsdecode(event.dest_path))
        if all(_ignored(Path(p)) for p in paths):
            return
        self.noticed(self.linked_id)


def _ignored(path: Path) -> bool:
    """Hidden files, and anything inside a Serpent library (ours, if it lives in there)."""
    return any(part.startswith(".") or part.endswith(LIBRARY_SUFFIX) for part in path.parts[1:])


class LinkWatcher:
    def __init__(self, services: Services) -> None:
        self.services = services
        self._lock = threading.Lock()
        self._observer: Any = None
        self._watches: dict[str, tuple[str, Any]] = {}  # linked id -> (path, watch)
        self._due: dict[str, float] = {}  # linked id -> when it has been quiet long enough
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
        conn = connect(self.services.layout.database, reader=True)
        try:
            rows = conn.execute("SELECT id, path, rules, status FROM linked_folders").fetchall()
        finally:
            conn.close()
        wanted = {r["id"]: r["path"] for r in rows if r["status"] == "connected"
                  and LinkedFolderRules.model_validate_json(r["rules"]).auto_import}
        with self._lock:
            if self._stopping.is_set():
                return
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
            watch = self._observer.schedule(_Handler(linked_id, self._noticed), path,
                                            recursive=rules.recursive if rules else True)
        except (OSError, ValueError) as error:
            log.warning("a linked folder cannot be watched (%s); it syncs on refresh", error)
            return
        self._watches[linked_id] = (path, watch)

    def _unschedule(self, watch: Any) -> None:
        with contextlib.suppress(KeyError, OSError, ValueError):  # already gone
            self._observer.unschedule(watch)

    # -- debouncing ------------------------------------------------------------------------
    def _noticed(self, linked_id: str) -> None:
        with self._lock:
            self._due[linked_id] = time.monotonic() + QUIET_SECONDS
        self._wake.set()

    def _debounce(self) -> None:
        while not self._stopping.is_set():
            with self._lock:
                now = time.monotonic()
                ready = [i for i, due in self._due.items() if due <= now]
                for linked_id in ready:
                    del self._due[linked_id]
                wait = min((due - now for due in self._due.values()), default=None)
            for linked_id in ready:
                try:
                    queue_sync(self.services, linked_id)
                except Exception:
                    if not self._stopping.is_set():
                        log.exception("could not queue a sync of a linked folder")
            self._wake.wait(wait)
            self._wake.clear()


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
        with WriteTx(services, "linked-folder.refresh", WATCHER_META, journal=False) as tx:
            task_id = taskrows.create(tx.conn, SYNC_KIND, params={"linkedFolderId": linked_id},
                                      total=None, actor_json=tx.actor_json, now=tx.now)
            tx.touch("task", [task_id])
            tx.summary = "Queued a sync of a linked folder"
    board_for(services.layout.root).wake.set()
    return task_id


def _rules_of(services: Services, linked_id: str) -> LinkedFolderRules | None:
    conn = connect(services.layout.database, reader=True)
    try:
        row = conn.execute("SELECT rules FROM linked_folders WHERE id = ?",
                           (linked_id,)).fetchone()
    finally:
        conn.close()
    return LinkedFolderRules.model_validate_json(row["rules"]) if row else None


_watchers: dict[Path, LinkWatcher] = {}
_watchers_lock = threading.Lock()


def watcher_for(root: Path) -> LinkWatcher | None:
    with _watchers_lock:
        return _watchers.get(root)


def start(services: Services, stopping: threading.Event) -> Callable[[], None]:
    """Background starter: watch the linked folders while the worker serves."""
    watcher = LinkWatcher(services)
    with _watchers_lock:
        _watchers[services.layout.root] = watcher
    try:
        watcher.start()
    except Exception:
        log.exception("linked folders are not watched")

    def stop() -> None:
        with _watchers_lock:
            _watchers.pop(services.layout.root, None)
        watcher.stop()
    return stop
