"""`studio.json`, the small file in a studio library's folder that names its database, and
the database URIs a person gives.

Runs in the worker process. The file holds the PostgreSQL URI (never a password: libpq
reads it from the password file, `~/.pgpass` or `PGPASSFILE`, as every PostgreSQL tool
does) and the library's id, so a folder opened on another machine finds the same library
and a folder pointed at another library's database is refused. It is written once, when
the library is made (library.disk.atomicfile).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from library.disk.atomicfile import atomic_write_text
from library.errors import DATABASE_UNAVAILABLE, INVALID_ARGUMENT, PATH_INVALID, LibraryError

FORMAT = 1
SCHEMES = ("postgresql://", "postgres://")


def check_uri(uri: str) -> str:
    """The URI as given, if it is a PostgreSQL URI without a password; else
    INVALID_ARGUMENT naming `database`."""
    from psycopg import conninfo

    text = uri.strip()
    if not text.startswith(SCHEMES):
        raise LibraryError(INVALID_ARGUMENT, "database: a PostgreSQL URI such as "
                           "postgresql://serpent@studio-server/refs", field="database")
    try:
        parts = conninfo.conninfo_to_dict(text)
    except Exception:  # psycopg.ProgrammingError: libpq could not read it
        raise LibraryError(INVALID_ARGUMENT, "database: not a URI PostgreSQL can read",
                           field="database") from None
    if parts.get("password"):
        raise LibraryError(INVALID_ARGUMENT, "database: leave the password out of the URI; "
                           "put it in the PostgreSQL password file (~/.pgpass, or the file "
                           "PGPASSFILE names)", field="database", reason="password-in-uri")
    if not parts.get("dbname"):
        raise LibraryError(INVALID_ARGUMENT, "database: name the database at the end of the "
                           "URI (postgresql://user@host/database)", field="database")
    return text


def database_key(uri: str) -> str:
    """A name of the database for in-memory caches (host, port, database; no user)."""
    from psycopg import conninfo

    parts = conninfo.conninfo_to_dict(uri)
    return f"pg://{parts.get('host', '')}:{parts.get('port', '')}/{parts.get('dbname', '')}"


def server_of(uri: str) -> str:
    """Where the database is, for a person: `host:port/database` (no user, never a
    password: a URI with one is refused)."""
    from psycopg import conninfo

    parts = conninfo.conninfo_to_dict(uri)
    host = str(parts.get("host") or "localhost")
    return f"{host}:{parts.get('port') or 5432}/{parts.get('dbname', '')}"


def unreachable(uri: str, error: LibraryError) -> LibraryError:
    """`error` (DATABASE_UNAVAILABLE) naming the server of `uri`."""
    from library.worker.studio.pgconn import UNAVAILABLE_HEAD

    if error.code != DATABASE_UNAVAILABLE or not error.message.startswith(UNAVAILABLE_HEAD):
        return error
    rest = error.message[len(UNAVAILABLE_HEAD):]
    return LibraryError(DATABASE_UNAVAILABLE, f"{UNAVAILABLE_HEAD} ({server_of(uri)}){rest}",
                        **error.details)


def write(path: Path, uri: str, library_id: str) -> None:
    """Owner-only, like every other file of a library (its folder is private too)."""
    atomic_write_text(path, json.dumps({"format": FORMAT, "database": uri,
                                        "libraryId": library_id}, indent=2) + "\n")


def read(path: Path) -> dict[str, Any]:
    """{"database", "libraryId"}; PATH_INVALID (reason not-a-library) for a damaged file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("database"), str) \
                or not isinstance(data.get("libraryId"), str):
            raise ValueError
    except (ValueError, UnicodeDecodeError):
        raise LibraryError(PATH_INVALID, "This studio library's studio.json is damaged.",
                           field="path", reason="not-a-library") from None
    check_uri(data["database"])
    return data
