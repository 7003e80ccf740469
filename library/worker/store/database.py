"""Opening the library's SQLite file, and the one place sqlite errors become domain errors.

Runs in the worker process. A database SQLite cannot read (garbage pages or header) is
LIBRARY_DAMAGED, never INTERNAL: it is not a bug of Serpent's, and `library.repair` can make a
new library of what is still readable. Connections are in autocommit mode (`isolation_level=None`):
every write transaction is an explicit `BEGIN IMMEDIATE ... COMMIT` (see `transaction.py`).
The writer runs WAL with `synchronous=FULL`, so an acknowledged commit survives a crash;
readers use their own connections and never wait for a long import.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from library.errors import (
    ALREADY_EXISTS,
    BUSY,
    DISK_FULL,
    INTERNAL,
    LIBRARY_DAMAGED,
    PATH_INVALID,
    PERMISSION_DENIED,
    LibraryError,
)


def connect(path: Path, *, reader: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA foreign_keys = ON")
    if reader:
        conn.execute("PRAGMA query_only = ON")
    else:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise LibraryError(INTERNAL, "The library database could not switch to WAL mode.")
        conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA cache_size = -32000")
    return conn


def translate(error: sqlite3.Error) -> LibraryError:
    """A sqlite error as the stable error a caller can act on (a studio library's
    PostgreSQL error comes as one too, with the stable error it means: `problem`)."""
    problem = getattr(error, "problem", None)
    if isinstance(problem, LibraryError):
        return problem
    text = str(error).lower()
    if isinstance(error, sqlite3.IntegrityError) and "unique" in text:
        return LibraryError(ALREADY_EXISTS, "Something with that name already exists.")
    if "locked" in text or "busy" in text:
        return LibraryError(BUSY, "The library is busy; try again in a moment.")
    if "readonly" in text or "read-only" in text:
        return LibraryError(PERMISSION_DENIED, "The library folder is read-only.",
                            reason="read-only")
    if "disk is full" in text or getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        # the server adds what is free and what was needed (it knows the library's disk)
        return LibraryError(DISK_FULL, "The library's disk is full.")
    if "disk i/o" in text:
        return LibraryError(INTERNAL, "The library's disk could not be written (full or "
                            "disconnected).", reason="disk")
    if "unable to open database" in text:  # SQLITE_CANTOPEN: the folder will not hold it
        return LibraryError(PATH_INVALID, "The library database cannot be opened in that "
                            "folder.", reason="cannot-open")
    if "malformed" in text or "not a database" in text:
        return damaged()
    return LibraryError(INTERNAL, "The library database reported an error.")


REPAIR_COMMAND = "library.repair"


def damaged(problems: list[str] | None = None) -> LibraryError:
    """LIBRARY_DAMAGED: the library database cannot be read as it is, and what to do."""
    return LibraryError(
        LIBRARY_DAMAGED, "The library database is damaged: SQLite cannot read part of it. "
        "Serpent can recover what it can still read into a new library beside this one "
        f"({REPAIR_COMMAND}; the window offers it when the library does not open); this "
        "library stays as it is.", reason="corrupt", hint=REPAIR_COMMAND,
        **({"problems": problems[:20]} if problems else {}))


def translate_os(error: OSError, what: str = "The library folder") -> LibraryError:
    """An OS error on the library's own folder (not a source file) as a domain error."""
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return LibraryError(PERMISSION_DENIED, f"{what} is read-only or not writable.",
                            reason="read-only")
    if error.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return LibraryError(DISK_FULL, f"{what} is on a full disk.")
    return LibraryError(INTERNAL, f"{what} could not be written ({error.strerror}).")
