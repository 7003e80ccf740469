"""Making and opening a studio library: its folder on the shared drive, its PostgreSQL
database, and this machine's place among those that share it.

Runs in the worker process at startup. A studio library is made the way a local one is (a
hidden folder beside its final place, renamed into place), with `studio.json` instead of
`library.sqlite`, and its schema installed in the (empty) database in one transaction that
commits only once the folder is in place. Opening it on any machine reads `studio.json`,
connects, checks the schema and that the database holds this very library, and takes this
machine's own lock (`.machines/<machine>.lock`: one worker per machine; the machines
themselves coordinate only through PostgreSQL) and staging folder. Nothing is reconciled at
open: another machine may be writing this moment (recovery clears only this machine's
staging; `library.refresh` checks files and rows). While the server cannot be reached the
folder stays held and connecting is tried again (`studio.waiting` says so to the host).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from library.errors import (
    ALREADY_EXISTS,
    DATABASE_UNAVAILABLE,
    INVALID_ARGUMENT,
    PATH_INVALID,
    LibraryError,
)
from library.library_folder import LIBRARY_SUFFIX
from library.worker.opened_library import OpenLibrary, new_library_place
from library.worker.store import schema
from library.worker.store.database import translate_os
from library.worker.store.filestore import PRIVATE_FOLDER, create_buckets
from library.worker.store.identity import new_library_id, utc_now
from library.worker.store.layout import Layout
from library.worker.store.lock import LibraryLock
from library.worker.store.recovery import clear_staging
from library.worker.studio import casefold, pgschema, studiofile
from library.worker.studio.pgconn import PgConnection, StudioDatabaseError, problem_of

_MACHINE = re.compile(r"[^a-z0-9-]+")
FIRST_PAUSE = 0.25  # seconds between tries while the server cannot be reached, doubling
MAX_PAUSE = 2.0     # to this: back within about two seconds of the server
Wait = Callable[["Claim", LibraryError, float], None]  # raises to stop waiting


def machine_name(given: str | None) -> str:
    """A machine's name as the folder's lock and staging names use it."""
    name = _MACHINE.sub("-", (given or socket.gethostname() or "machine").lower()).strip("-")
    return name[:60] or "machine"


def create_studio_library(parent: str, name: str, database: str) -> Path:
    """Make `<parent>/<name>.serpent/` whose rows live in the empty PostgreSQL `database`."""
    uri = studiofile.check_uri(database)
    parent_path, folder_name, final = new_library_place(parent, name)
    building = parent_path / f".{folder_name}{LIBRARY_SUFFIX}.creating-{os.getpid()}"
    try:
        raw = psycopg.connect(uri, connect_timeout=10)
    except psycopg.Error as error:  # nothing was made: made again once the server is back
        raise studiofile.unreachable(uri, problem_of(error)) from error
    try:
        refuse_used(raw)
        library_id = new_library_id()
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(PRIVATE_FOLDER)
        layout = Layout(building)
        for directory in (layout.files, layout.thumbs, layout.orphans, building / ".staging",
                          building / ".machines"):
            directory.mkdir(PRIVATE_FOLDER)
        create_buckets(layout.files)
        studiofile.write(layout.studio_file, uri, library_id)
        pgschema.install(raw, casefold.function_sql(raw))
        raw.execute("INSERT INTO library_state (singleton, library_id, name, created_at, "
                    "change_sequence, schema_major, clean_shutdown) "
                    "VALUES (1, %s, %s, %s, 0, %s, 1)",
                    (library_id, folder_name, utc_now(), schema.SCHEMA_MAJOR))
        if final.exists():
            raise LibraryError(ALREADY_EXISTS, f"A library called {folder_name!r} already "
                               "exists in that folder.", field="name")
        os.replace(building, final)
        try:
            raw.commit()
        except psycopg.Error:
            shutil.rmtree(final, ignore_errors=True)
            raise
    except psycopg.Error as error:
        shutil.rmtree(building, ignore_errors=True)
        raise problem_of(error) from error
    except OSError as error:
        shutil.rmtree(building, ignore_errors=True)
        raise translate_os(error, "The folder for the new library") from error
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    finally:
        raw.close()
    return final


def refuse_used(raw: Any) -> None:
    if raw.execute("SELECT to_regclass('library_state')").fetchone()[0] is not None:
        raise LibraryError(ALREADY_EXISTS, "database: that database holds a Serpent library "
                           "already; open its folder instead", field="database")
    tables = raw.execute("SELECT count(*) FROM pg_tables WHERE schemaname = "
                         "current_schema()").fetchone()[0]
    if tables:
        raise LibraryError(INVALID_ARGUMENT, "database: give an empty database (this one "
                           f"has {tables} tables)", field="database", reason="not-empty")


@dataclass
class Claim:
    """A studio library's folder held by this machine (its lock taken), not yet connected."""

    root: Path
    uri: str
    library_id: str
    layout: Layout
    lock: LibraryLock

    @property
    def name(self) -> str:
        """The name to show until the database says it (the folder's, as it was made)."""
        return self.root.name.removesuffix(LIBRARY_SUFFIX)


def claim_studio_folder(root: Path, machine: str | None) -> Claim:
    """Read `studio.json`, make this machine's place in the folder and take its lock."""
    info = studiofile.read(root / "studio.json")
    layout = Layout(root, machine=machine_name(machine))
    try:
        layout.lock.parent.mkdir(PRIVATE_FOLDER, exist_ok=True)
        layout.staging.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
        for directory in (layout.files, layout.thumbs, layout.orphans):
            directory.mkdir(PRIVATE_FOLDER, exist_ok=True)
    except OSError as error:
        raise translate_os(error) from error
    lock = LibraryLock(layout.lock)
    try:
        lock.acquire()
    except OSError as error:
        raise translate_os(error) from error
    return Claim(root, info["database"], info["libraryId"], layout, lock)


def open_studio_library(root: Path, machine: str | None,
                        wait: Wait | None = None) -> OpenLibrary:
    """Open a studio library. While its server cannot be reached, `wait` (if given) is
    asked whether to try again (`studio.waiting`): the folder stays held meanwhile."""
    claim = claim_studio_folder(root, machine)
    try:
        pause = FIRST_PAUSE
        while True:
            try:
                return connect_claimed(claim)
            except LibraryError as error:
                if wait is None or error.code != DATABASE_UNAVAILABLE:
                    raise
                wait(claim, studiofile.unreachable(claim.uri, error), pause)
                pause = min(pause * 2, MAX_PAUSE)
    except BaseException:
        claim.lock.release()
        raise


def connect_claimed(claim: Claim) -> OpenLibrary:
    """Connect to a claimed folder's database and check it holds this library; the lock
    stays taken whatever fails (the caller lets go of it)."""
    uri, library_id, layout = claim.uri, claim.library_id, claim.layout
    writer = None
    try:
        key = studiofile.database_key(uri)
        application = f"Serpent {layout.machine}"
        writer = PgConnection.open(uri, reader=False, key=key, application=application,
                                   machine=layout.machine or "")
        version = pgschema.upgrade(writer.raw)
        state = writer.execute("SELECT library_id, name, change_sequence FROM "
                               "library_state").fetchone()
        if state is None or state["library_id"] != library_id:
            raise LibraryError(PATH_INVALID, "This studio library's database holds another "
                               "library (studio.json and the database disagree).",
                               field="path", reason="database-mismatch")
        report = {"check": "postgres", "integrity": "server", "fullScan": False,
                  "stagingRemoved": clear_staging(layout), "machine": layout.machine}
        stat = layout.studio_file.stat()

        def reader() -> PgConnection:
            return PgConnection.open(uri, reader=True, key=key, application=application,
                                     machine=layout.machine or "")
        return OpenLibrary(layout, claim.lock, writer,  # type: ignore[arg-type]
                           state["library_id"], state["name"], version,
                           state["change_sequence"], report, (stat.st_dev, stat.st_ino),
                           kind="studio", connect_reader=reader)
    except StudioDatabaseError as error:
        _close(writer)
        raise error.problem from error
    except psycopg.Error as error:  # the schema check's own statements
        _close(writer)
        raise problem_of(error) from error
    except OSError as error:
        _close(writer)
        raise translate_os(error) from error
    except BaseException:
        _close(writer)
        raise


def _close(writer: PgConnection | None) -> None:
    if writer is not None:
        writer.close()
