"""The libraries a call may target: binding by explicit id, public refs, the recent list.

Thread-safe. A library is bound only from the `libraryId` a caller passed, never from the
window's focus or a session. `remember`, `rename_recent`, `recent` and `finish_deletions`
touch the settings file and the disk: the gateway runs them on its I/O threads, never on a
caller's thread.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from library import deletion
from library.client import LibraryHost
from library.disk.locks import LockBusy
from library.errors import LIBRARY_NOT_FOUND, LIBRARY_NOT_OPEN, LibraryError
from serpent_tk.settings import Settings, SettingsStore

log = logging.getLogger("serpent.automation.libraries")


class Libraries:
    def __init__(self, host: LibraryHost, settings: SettingsStore) -> None:
        self.host = host
        self.settings = settings
        self._lock = threading.Lock()
        self._known_ids: set[str] = set()  # every library id seen open in this session
        self._deleting: set[str] = set()  # library ids a delete-from-disk is removing now

    def bind(self, library_id: str) -> dict[str, Any]:
        """The open library `library_id` names, or LIBRARY_NOT_OPEN / LIBRARY_NOT_FOUND."""
        for ref in self.host.list_open():
            if ref.get("libraryId") == library_id:
                self._know(library_id)
                return ref
        with self._lock:
            known = library_id in self._known_ids
        if known:
            raise LibraryError(LIBRARY_NOT_OPEN, "This library is closed: open it again with "
                               "serpent_library_open.")
        raise LibraryError(LIBRARY_NOT_FOUND, "There is no open library with this id; "
                           "serpent_library_list_open lists them.")

    def public_ref(self, ref: dict[str, Any]) -> dict[str, Any]:
        """A host ref as callers see it (a `LibraryRef`)."""
        library_id = ref.get("libraryId")
        if isinstance(library_id, str):
            self._know(library_id)
        return {"libraryId": library_id, "name": ref.get("name", ""),
                "path": str(ref.get("path", "")), "open": True}

    def list_open(self) -> list[dict[str, Any]]:
        return [self.public_ref(r) for r in self.host.list_open()]

    def remember(self, ref: dict[str, Any]) -> None:
        """Put a library that was just opened or created at the top of the recent list.

        The library is open whatever happens here: a settings file that cannot be written
        costs only the recent list entry (logged), never the command.
        """
        try:
            self.settings.update(lambda s: s.remember_library(Path(ref["path"]), ref["name"]))
        except (OSError, LockBusy) as error:
            log.warning("could not update the recent libraries: %s", error)

    def rename_recent(self, ref: dict[str, Any]) -> None:
        """Keep the recent list's name of a renamed library in step (its place stays)."""
        where = same_path(ref.get("path", ""))

        def rename(settings: Settings) -> None:
            for recent in settings.recent_libraries:
                if same_path(recent.path) == where:
                    recent.name = ref["name"]
        try:
            self.settings.update(rename)
        except (OSError, LockBusy) as error:
            log.warning("could not update the recent libraries: %s", error)

    def forget(self, path: str | Path) -> None:
        """Take a library deleted from disk off the recent list."""
        where = same_path(path)

        def forget(settings: Settings) -> None:
            settings.recent_libraries = [r for r in settings.recent_libraries
                                         if same_path(r.path) != where]
            if settings.last_library is not None and same_path(settings.last_library) == where:
                settings.last_library = None
        try:
            self.settings.update(forget)
        except (OSError, LockBusy) as error:
            log.warning("could not update the recent libraries: %s", error)

    def deleting(self, library_id: str, busy: bool) -> None:
        """Mark a library whose delete-from-disk is under way (`finish_deletions` leaves its
        tombstone to that deletion)."""
        with self._lock:
            if busy:
                self._deleting.add(library_id)
            else:
                self._deleting.discard(library_id)

    def finish_deletions(self) -> int:
        """Finish deletions from disk a crash cut short: the hidden tombstones
        (`.<name>.serpent.deleting-<id>`, see `library.deletion`) beside the places of the
        recent libraries are removed, and a library no longer at its place leaves the recent
        list. Returns how many tombstones were removed; problems are logged, never raised."""
        try:
            recent = [Path(r.path) for r in self.settings.load().settings.recent_libraries]
        except (OSError, ValueError, LockBusy) as error:
            log.warning("could not read the recent libraries: %s", error)
            return 0
        removed = 0
        for root in recent:
            finished = False
            for tombstone, library_id in deletion.leftover_tombstones(root):
                with self._lock:
                    if library_id in self._deleting:
                        continue
                try:
                    deletion.remove_tombstone(tombstone)
                except (OSError, LibraryError) as error:
                    log.warning("could not finish deleting %s: %s", tombstone, error)
                    continue
                log.info("finished deleting the library %s (%s)", root.name, library_id)
                removed += 1
                finished = True
            if finished and not root.exists():
                self.forget(root)
        return removed

    def recent(self) -> list[dict[str, Any]]:
        """The recent list, newest first, with whether each is open (and its id) or gone."""
        open_by_path = {same_path(r.get("path", "")): r for r in self.host.list_open()}
        items = []
        for recent in self.settings.load().settings.recent_libraries:
            path = Path(recent.path)
            ref = open_by_path.get(same_path(path))
            items.append({
                "name": recent.name, "path": str(path),
                "lastOpened": recent.last_opened.isoformat(), "open": ref is not None,
                "libraryId": ref.get("libraryId") if ref else None,
                "exists": path.is_dir()})
        return items

    def _know(self, library_id: str) -> None:
        with self._lock:
            self._known_ids.add(library_id)


def same_path(path: str | Path) -> str:
    try:
        return str(Path(path).expanduser().resolve())
    except OSError:
        return str(path)
