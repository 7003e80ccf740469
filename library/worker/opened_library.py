"""What a worker holds of a library it opened (`OpenLibrary`: local or studio) and where
`library.create` makes a new one (`new_library_place`).

Runs in the worker process. Apart from `store.opening` (local libraries) so that
`library.worker.studio.make_and_open` builds the same thing without importing the module that
dispatches to it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from library import pathrules
from library.errors import ALREADY_EXISTS, PATH_FORBIDDEN, PATH_NOT_FOUND, LibraryError
from library.library_folder import LIBRARY_SUFFIX
from library.worker.rows import assetrows
from library.worker.store import cleanclose
from library.worker.store.database import connect
from library.worker.store.layout import Layout, enclosing_library
from library.worker.store.lock import LibraryLock


@dataclass
class OpenLibrary:
    layout: Layout
    lock: LibraryLock
    writer: sqlite3.Connection
    library_id: str
    name: str
    schema_version: int
    change_sequence: int
    recovery: dict[str, Any]
    identity: tuple[int, int]  # (st_dev, st_ino) of `marker`: notices a vanished folder
    kind: str = "local"  # or "studio": the rows in PostgreSQL (library/worker/studio)
    connect_reader: Callable[[], Any] | None = None  # a studio library's read connections
    machine: str | None = None  # the name the host gave this Serpent (studio libraries)

    @property
    def marker(self) -> Path:
        """The file that makes the folder this library (its database, or studio.json)."""
        return self.layout.studio_file if self.kind == "studio" else self.layout.database

    def reader(self) -> Any:
        """A new read-only connection (one per reader thread)."""
        if self.connect_reader is not None:
            return self.connect_reader()
        conn = connect(self.layout.database, reader=True)
        assetrows.register_functions(conn)
        return conn

    def close(self, *, clean: bool) -> None:
        if self.kind == "studio":  # nothing to checkpoint: the server keeps the rows
            try:
                self.writer.close()
            finally:
                self.lock.release()
            return
        marked = False
        try:
            if clean:
                self.writer.execute("UPDATE library_state SET clean_shutdown = 1")
                busy = self.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                marked = not busy
        except sqlite3.Error:
            pass
        try:
            self.writer.close()
            if marked:  # the next open may skip the database check (see `cleanclose`)
                cleanclose.write(self.layout, self.library_id)
        finally:
            self.lock.release()


def new_library_place(parent: str, name: str) -> tuple[Path, str, Path]:
    """Where `library.create` makes `<name>.serpent`: (the parent folder, the folder name
    without the suffix, the final path); every reason it cannot be made there as an error."""
    given = Path(pathrules.parse_user_path(parent, field="selectedParentPath"))
    if not given.is_dir():
        raise LibraryError(PATH_NOT_FOUND, "The folder for the new library does not exist.",
                           field="selectedParentPath", reason="missing")
    parent_path = Path(os.path.realpath(given))  # no `..` left: SQLite reads paths itself
    if pathrules.is_system_path(parent_path):
        raise LibraryError(PATH_FORBIDDEN, "A library cannot be made in a system folder "
                           "(/proc, /sys, /dev).", field="selectedParentPath")
    if enclosing_library(parent_path):
        raise LibraryError(PATH_FORBIDDEN, "A library cannot be created inside another "
                           "library.", field="selectedParentPath")
    folder_name = pathrules.validate_entry_name(name, field="name", suffix=LIBRARY_SUFFIX)
    final = parent_path / f"{folder_name}{LIBRARY_SUFFIX}"
    if final.exists():
        raise LibraryError(ALREADY_EXISTS, f"A library called {folder_name!r} already exists "
                           "in that folder.", field="name")
    return parent_path, folder_name, final
