"""A PostgreSQL connection that the library's code uses as it uses a `sqlite3.Connection`.

Runs in the worker process; one per thread, as with SQLite. `execute`, `executemany`,
`fetchone`/`fetchall`/iteration and rows read by position or by name (`Row`), with the SQL
rewritten by `sqltext.postgres`. Values come back as SQLite gives them: integers (a `sum`'s
numeric too), floats, text, bytes. Integers go to the server untyped (as SQLite compares a
text column with a number, PostgreSQL then takes the type the context asks for), booleans
as 0/1.

Transactions: the connection is in autocommit mode like the SQLite ones, and the same
statements open and close transactions: on the writer, `BEGIN IMMEDIATE` is `BEGIN` plus
the library's write lock (a session advisory lock, `WRITE_LOCK`), which every Serpent on
the library takes before writing, so writes across machines are one at a time exactly as
SQLite's writers are; it is released by `release_write_lock` once the transaction's
after-commit steps ran (or when the connection dies: a killed worker never blocks the
others). On a reader, `BEGIN` is a repeatable-read, read-only transaction: one snapshot
for a whole read, as SQLite's WAL gives.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from decimal import Decimal
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.adapt import Dumper, Loader
from psycopg.pq import TransactionStatus

from library.errors import (
    ALREADY_EXISTS,
    BUSY,
    DATABASE_UNAVAILABLE,
    INTERNAL,
    PERMISSION_DENIED,
    LibraryError,
)
from library.worker.studio.sqltext import postgres

log = logging.getLogger("library.worker.studio")

DIALECT = "postgres"
RETRIED = ("SELECT", "WITH", "BEGIN")  # sent again on a new connection (`execute`)
WRITE_LOCK = 0x5E4BE47  # pg_advisory_lock key: one writer at a time, on every machine


class StudioDatabaseError(sqlite3.DatabaseError):
    """A PostgreSQL error raised where the library's code expects SQLite's (`except
    sqlite3.Error` holds for both), carrying the stable error it means (`problem`, which
    `database.translate` returns)."""

    def __init__(self, problem: LibraryError) -> None:
        super().__init__(problem.message)
        self.problem = problem


UNAVAILABLE_HEAD = "The studio library's database server"


def unavailable(detail: str = "", server: str = "") -> LibraryError:
    """DATABASE_UNAVAILABLE (`server`: where it is, as `studiofile.server_of` says it)."""
    where = f" ({server})" if server else ""
    return LibraryError(DATABASE_UNAVAILABLE, f"{UNAVAILABLE_HEAD}{where} cannot be reached; "
                        "nothing was changed. Serpent reconnects by itself: try again in a "
                        "moment." + (f" ({detail})" if detail else ""))


def problem_of(error: psycopg.Error) -> LibraryError:
    """A psycopg error as the stable error a caller can act on."""
    if isinstance(error, pg_errors.UniqueViolation):
        return LibraryError(ALREADY_EXISTS, "Something with that name already exists.")
    if isinstance(error, pg_errors.InsufficientPrivilege):
        return LibraryError(PERMISSION_DENIED, "The studio database does not let this user "
                            "change the library.", reason="database-privileges")
    if isinstance(error, (pg_errors.SerializationFailure, pg_errors.DeadlockDetected,
                          pg_errors.LockNotAvailable, pg_errors.QueryCanceled)):
        return LibraryError(BUSY, "The library is busy; try again in a moment.")
    if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return unavailable(first[:200])
    log.warning("studio database error: %r", error)
    return LibraryError(INTERNAL, "The studio library's database reported an error.",
                        reason="database")


class Row:
    """One result row: `row[0]`, `row["name"]`, `keys()`, unpacking, `dict(row)`."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: Sequence[Any]) -> None:
        self._index = index
        self._values = values

    def __getitem__(self, key: int | str | slice) -> Any:
        if isinstance(key, str):
            return self._values[self._index[key]]
        return self._values[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Row):
            return tuple(self._values) == tuple(other._values)
        return tuple(self._values) == other

    def __hash__(self) -> int:
        return hash(tuple(self._values))

    def __repr__(self) -> str:
        return f"Row({dict(zip(self._index, self._values, strict=True))!r})"


def _row_factory(cursor: Any) -> Any:
    names = [column.name for column in cursor.description or ()]
    index = {name: position for position, name in enumerate(names)}

    def make(values: Sequence[Any]) -> Row:
        return Row(index, values)
    return make


class _IntUntyped(Dumper):
    """Integers as untyped literals: `text_column = 5` works as it does in SQLite."""

    oid = 0

    def dump(self, obj: Any) -> bytes:
        return str(int(obj)).encode()


class _NumericAsNumber(Loader):
    """numeric (what `sum` of integers gives) as int when whole, else float."""

    def load(self, data: Any) -> Any:
        value = Decimal(bytes(data).decode())
        return int(value) if value == value.to_integral_value() else float(value)


class PgCursor:
    """What `execute` returns: the rows of one statement (all fetched from the server)."""

    def __init__(self, cursor: psycopg.Cursor[Any] | None) -> None:
        self._cursor = cursor

    def _rows(self) -> bool:
        return self._cursor is not None and self._cursor.description is not None

    def fetchone(self) -> Any:
        return self._cursor.fetchone() if self._rows() else None  # type: ignore[union-attr]

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall() if self._rows() else []  # type: ignore[union-attr]

    def fetchmany(self, size: int) -> list[Any]:
        return self._cursor.fetchmany(size) if self._rows() else []  # type: ignore[union-attr]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount if self._cursor is not None else -1


class PgConnection:
    """What the library's code calls a connection, on PostgreSQL."""

    dialect = DIALECT

    def __init__(self, raw: psycopg.Connection[Any] | None, *, reader: bool, key: str,
                 connect: Callable[[], psycopg.Connection[Any]]) -> None:
        self._raw = raw
        self.reader = reader
        self.key = key  # names the database (`livecounts` keys its counts with it)
        self.holds_write_lock = False
        self._connect = connect

    @classmethod
    def open(cls, conninfo: str, *, reader: bool, key: str, application: str,
             machine: str) -> PgConnection:
        """Connect now (DATABASE_UNAVAILABLE if the server cannot be reached); a connection
        lost later is made again at the next statement outside a transaction."""
        def connect() -> psycopg.Connection[Any]:
            raw = psycopg.connect(conninfo, autocommit=True, row_factory=_row_factory,
                                  application_name=application[:63], connect_timeout=10,
                                  keepalives=1, keepalives_idle=10, keepalives_interval=5,
                                  keepalives_count=3, tcp_user_timeout=30000)
            raw.adapters.register_dumper(int, _IntUntyped)
            raw.adapters.register_dumper(bool, _IntUntyped)
            raw.adapters.register_loader("numeric", _NumericAsNumber)
            # who this connection writes for: columns default to it (the machine's tasks)
            raw.execute("SELECT set_config('serpent.machine', %s, false)", (machine,))
            return raw
        try:
            return cls(connect(), reader=reader, key=key, connect=connect)
        except psycopg.Error as error:
            raise StudioDatabaseError(problem_of(error)) from error

    @property
    def raw(self) -> psycopg.Connection[Any]:
        """The live connection, made again if the last one was lost (never inside a
        transaction: that one failed with the connection)."""
        if self._raw is None or self._raw.closed or self._raw.broken:
            if self._raw is not None:
                self._raw.close()
            self._raw = None
            self.holds_write_lock = False  # the server let go of it with the connection
            try:
                self._raw = self._connect()
            except psycopg.Error as error:
                raise StudioDatabaseError(problem_of(error)) from error
        return self._raw

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> PgCursor:
        head = sql.lstrip()[:16].upper()
        idle = self._idle()
        try:
            return self._execute(head, sql, parameters)
        except psycopg.OperationalError as error:
            # A connection that died while idle (the server went away and came back) fails
            # at its next statement without running it: a read or a transaction's start is
            # sent once more, on a new connection. Nothing else: it might have run.
            if not (idle and head.startswith(RETRIED) and self._raw is not None
                    and self._raw.broken):
                raise StudioDatabaseError(problem_of(error)) from error
        except psycopg.Error as error:
            raise StudioDatabaseError(problem_of(error)) from error
        try:
            return self._execute(head, sql, parameters)
        except psycopg.Error as error:
            raise StudioDatabaseError(problem_of(error)) from error

    def _idle(self) -> bool:
        raw = self._raw
        return raw is not None and not raw.closed and not raw.broken and \
            raw.info.transaction_status == TransactionStatus.IDLE

    def _execute(self, head: str, sql: str, parameters: Sequence[Any] | dict[str, Any]
                 ) -> PgCursor:
        if head.startswith("BEGIN"):
            return self._begin(immediate="IMMEDIATE" in head)
        if head.startswith(("COMMIT", "ROLLBACK")) and (self._raw is None or self._raw.broken):
            if head.startswith("ROLLBACK"):
                return PgCursor(None)  # nothing to roll back on a lost connection
            raise StudioDatabaseError(unavailable())
        cursor = self.raw.cursor()
        cursor.execute(postgres(sql), _params(parameters))
        return PgCursor(cursor)

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> PgCursor:
        try:
            cursor = self.raw.cursor()
            cursor.executemany(postgres(sql), [_params(p) for p in seq])
            return PgCursor(cursor)
        except psycopg.Error as error:
            raise StudioDatabaseError(problem_of(error)) from error

    def _begin(self, *, immediate: bool) -> PgCursor:
        cursor = self.raw.cursor()
        if self.reader:
            cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return PgCursor(cursor)
        if immediate and not self.holds_write_lock:
            cursor.execute("SELECT pg_advisory_lock(%s)", (WRITE_LOCK,))
            self.holds_write_lock = True
        cursor.execute("BEGIN")
        return PgCursor(cursor)

    def release_write_lock(self) -> None:
        """Let the other machines write (after the transaction and its after-commit steps);
        a lost connection let go of it already."""
        if not self.holds_write_lock:
            return
        self.holds_write_lock = False
        raw = self._raw
        if raw is not None and not raw.closed and not raw.broken:
            try:
                raw.execute("SELECT pg_advisory_unlock(%s)", (WRITE_LOCK,))
            except psycopg.Error:
                raw.close()  # closing lets go of it too

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()


def _params(parameters: Sequence[Any] | dict[str, Any]) -> Sequence[Any] | dict[str, Any]:
    if isinstance(parameters, dict):
        return parameters
    return tuple(parameters)


def dialect_of(conn: Any) -> str:
    """"postgres" for a studio library's connection, else "sqlite"."""
    return str(getattr(conn, "dialect", "sqlite"))
