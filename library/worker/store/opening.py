"""Creating and opening a `<Name>.serpent/` library folder, up to the point it can serve.

Runs in the worker process at startup. Every reason a library cannot be served becomes a
`LibraryError` with a `reason` detail (missing, not-a-library, locked, newer-schema,
read-only, corrupt: LIBRARY_DAMAGED) that the worker sends as `StartupFailed`. A refused open
writes nothing: what is no library, or no readable one, is refused by `probe` reading only,
and the database check runs before migrations or the text index write anything. A new
library is built in a hidden temporary folder beside its final place and renamed into place,
so a crash during creation never leaves a half-made library under the real name; it comes
with the file store's 256 bucket folders (`filestore.create_buckets`).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from library import pathrules
from library.disk.durable import fsync_directory
from library.errors import (
    ALREADY_EXISTS,
    PATH_INVALID,
    PATH_NOT_FOUND,
    LibraryError,
)
from library.library_folder import LIBRARY_SUFFIX, STUDIO_NAME
from library.worker.opened_library import OpenLibrary, new_library_place
from library.worker.rows import assetrows, textindex
from library.worker.store import cleanclose, recovery, schema
from library.worker.store.database import connect, damaged, translate, translate_os
from library.worker.store.filestore import PRIVATE_FOLDER, create_buckets
from library.worker.store.identity import new_library_id, utc_now
from library.worker.store.layout import Layout
from library.worker.store.lock import LibraryLock

SQLITE_HEADER = b"SQLite format 3\x00"


def create_library(parent: str, name: str) -> Path:
    """Make `<parent>/<name>.serpent/` with an empty database; returns its path."""
    parent_path, folder_name, final = new_library_place(parent, name)
    building = parent_path / f".{folder_name}{LIBRARY_SUFFIX}.creating-{os.getpid()}"
    try:
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(PRIVATE_FOLDER)  # owner-only, like Serpent's own folders
        layout = Layout(building)
        for directory in layout.directories():
            directory.mkdir(PRIVATE_FOLDER)
        create_buckets(layout.files)  # an import never waits for a bucket folder
        writer = connect(layout.database)
        try:
            assetrows.register_functions(writer)
            schema.check_and_migrate(writer, layout.database, fresh=True)
            writer.execute("INSERT INTO library_state (singleton, library_id, name, created_at,"
                           " change_sequence, schema_major, clean_shutdown) "
                           "VALUES (1, ?, ?, ?, 0, ?, 1)",
                           (new_library_id(), folder_name, utc_now(), schema.SCHEMA_MAJOR))
            writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            writer.close()
        if final.exists():  # made meanwhile (another window, another app)
            raise LibraryError(ALREADY_EXISTS, f"A library called {folder_name!r} already "
                               "exists in that folder.", field="name")
        os.replace(building, final)
        fsync_directory(parent_path)
    except OSError as error:
        shutil.rmtree(building, ignore_errors=True)
        if error.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise LibraryError(ALREADY_EXISTS, f"A library called {folder_name!r} already "
                               "exists in that folder.", field="name") from error
        raise translate_os(error, "The folder for the new library") from error
    except sqlite3.Error as error:
        shutil.rmtree(building, ignore_errors=True)
        raise translate(error) from error
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return final


def open_library(path: str, machine: str | None = None, wait: Any = None) -> OpenLibrary:
    """Open a library folder to serve it (`machine`: this Serpent's name among those that
    share a studio library; see `library.worker.studio`; `wait`: what a studio library
    does while its database server cannot be reached, `studio.waiting`)."""
    started = time.perf_counter()
    root = Path(pathrules.parse_user_path(path, field="path"))
    if not root.exists():
        raise LibraryError(PATH_NOT_FOUND, "The library folder is not there (moved, deleted, or "
                           "on a drive that is not connected).", field="path", reason="missing")
    if root.is_dir() and (root / STUDIO_NAME).is_file():
        from library.worker.studio import move_in
        from library.worker.studio.make_and_open import open_studio_library

        if not move_in.unfinished_move(root):  # (else: the local library, as it was)
            opened = open_studio_library(root, machine, wait)
            set_aside = move_in.set_aside_local_database(root)  # moved in from a local one
            if set_aside is not None:
                opened.recovery["localDatabaseSetAside"] = str(set_aside)
            opened.recovery["openMs"] = round((time.perf_counter() - started) * 1000, 1)
            return opened
    layout = Layout(root)
    if not root.is_dir() or not layout.database.is_file():
        raise _not_a_library()
    probe(layout.database)  # refused here, nothing is written (not even the lock file)
    lock = LibraryLock(layout.lock)
    try:
        lock.acquire()
    except OSError as error:
        raise translate_os(error) from error
    try:
        opened = _open_locked(layout, lock)
        opened.machine = machine
        opened.recovery["openMs"] = round((time.perf_counter() - started) * 1000, 1)
        return opened
    except BaseException:
        lock.release()
        raise


def probe(database: Path) -> None:
    """Refuse, reading only, what is no library (an empty file, a database without Serpent's
    tables: PATH_INVALID `not-a-library`) or no longer a readable one (LIBRARY_DAMAGED)."""
    try:
        with open(database, "rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise translate_os(error) from error
    if not head:
        raise _not_a_library()
    if head != SQLITE_HEADER:
        raise damaged(["the file does not begin as a SQLite database does"])
    try:
        try:
            row = _tables_named(database, "library_state", "")
        except sqlite3.OperationalError as error:  # a read-only folder: no -shm can be made
            if "unable to open" not in str(error):
                raise
            row = _tables_named(database, "library_state", "&immutable=1")
    except sqlite3.Error as error:
        raise translate(error) from error
    except UnicodeDecodeError as error:  # sqlite's message itself was garbage: a damaged file
        raise damaged([repr(error)]) from error
    if not row[0]:
        raise _not_a_library()


def _tables_named(database: Path, name: str, options: str) -> tuple[int]:
    reader = sqlite3.connect(f"{database.as_uri()}?mode=ro{options}", uri=True, timeout=30)
    try:
        row: tuple[int] = reader.execute("SELECT count(*) FROM sqlite_master WHERE type = "
                                         "'table' AND name = ?", (name,)).fetchone()
        return row
    finally:
        reader.close()


def _open_locked(layout: Layout, lock: LibraryLock) -> OpenLibrary:
    untouched = _prepare_folders(layout)
    try:
        writer = connect(layout.database)
    except sqlite3.Error as error:
        raise translate(error) from error
    except UnicodeDecodeError as error:  # sqlite's message itself was garbage: a damaged file
        raise damaged([repr(error)]) from error
    try:
        state = writer.execute("SELECT library_id, name, change_sequence, clean_shutdown "
                               "FROM library_state").fetchone()
        if state is None:
            raise _not_a_library()
        # checked before anything is written: a damaged database stays as it was
        report = recovery.check(writer, full=not state["clean_shutdown"],
                                check=not (state["clean_shutdown"] and untouched))
        assetrows.register_functions(writer)
        version = schema.check_and_migrate(writer, layout.database, fresh=False)
        textindex.ensure(writer)
        report = recovery.recover(writer, layout, report)
        writer.execute("UPDATE library_state SET clean_shutdown = 0")
        sequence = writer.execute("SELECT change_sequence FROM library_state").fetchone()[0]
        stat = layout.database.stat()
        return OpenLibrary(layout, lock, writer, state["library_id"], state["name"], version,
                           sequence, report, (stat.st_dev, stat.st_ino))
    except sqlite3.Error as error:
        writer.close()
        raise translate(error) from error
    except UnicodeDecodeError as error:
        writer.close()
        raise damaged([repr(error)]) from error
    except OSError as error:
        writer.close()
        raise translate_os(error) from error
    except BaseException:
        writer.close()
        raise


def _prepare_folders(layout: Layout) -> bool:
    """The library's folders there and writable; the clean-close marker taken away (True
    when it vouched for the database file)."""
    try:
        for directory in layout.directories():
            directory.mkdir(PRIVATE_FOLDER, exist_ok=True)
        write_probe = layout.staging / f".write-probe-{os.getpid()}"
        write_probe.write_bytes(b"")
        write_probe.unlink()
        return cleanclose.take(layout)  # gone before anything is served
    except OSError as error:
        raise translate_os(error) from error


def _not_a_library() -> LibraryError:
    return LibraryError(PATH_INVALID, "This folder is not a Serpent library.", field="path",
                        reason="not-a-library")
