"""Stable error codes (docs/contracts.md §3) and the one exception type that carries them.

Imported by both processes. The worker raises `LibraryError`; it crosses the pipe as
`protocol.ErrorInfo` and is raised again by `library.client` in the main process.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Every stable error code (docs/contracts.md §3). A `str`: it compares, hashes and
    serialises as its value, so answers, JSON and the pipe carry plain strings."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    LIBRARY_REQUIRED = "LIBRARY_REQUIRED"
    LIBRARY_NOT_FOUND = "LIBRARY_NOT_FOUND"
    LIBRARY_NOT_OPEN = "LIBRARY_NOT_OPEN"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    VERSION_CONFLICT = "VERSION_CONFLICT"
    STALE_PLAN = "STALE_PLAN"
    NOT_EMPTY = "NOT_EMPTY"
    PATH_INVALID = "PATH_INVALID"
    PATH_NOT_FOUND = "PATH_NOT_FOUND"
    PATH_FORBIDDEN = "PATH_FORBIDDEN"
    UNSUPPORTED_FORMAT = "UNSUPPORTED_FORMAT"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    CHALLENGE_INVALID = "CHALLENGE_INVALID"
    HISTORY_EMPTY = "HISTORY_EMPTY"
    HISTORY_CONFLICT = "HISTORY_CONFLICT"
    HISTORY_IRREVERSIBLE = "HISTORY_IRREVERSIBLE"  # the next step to undo cannot be (historyId)
    CANCELLED = "CANCELLED"
    BUSY = "BUSY"
    WORKER_UNAVAILABLE = "WORKER_UNAVAILABLE"
    # a studio library's PostgreSQL server cannot be reached (down, network, credentials
    # refused on reconnect): nothing of the call was committed; Serpent reconnects by itself
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"
    SERPENT_NOT_RUNNING = "SERPENT_NOT_RUNNING"  # answered by the stdio bridge's stand-in
    # details: freeBytes, neededBytes (what must be free, reserve included)
    DISK_FULL = "DISK_FULL"
    # a plugin's code raised, timed out or died; reason says which
    PLUGIN_FAILED = "PLUGIN_FAILED"
    # SQLite cannot read the library database; hint: library.repair
    LIBRARY_DAMAGED = "LIBRARY_DAMAGED"
    INTERNAL = "INTERNAL"


# the codes by name, for `from library.errors import NOT_FOUND`
INVALID_ARGUMENT = ErrorCode.INVALID_ARGUMENT
LIBRARY_REQUIRED = ErrorCode.LIBRARY_REQUIRED
LIBRARY_NOT_FOUND = ErrorCode.LIBRARY_NOT_FOUND
LIBRARY_NOT_OPEN = ErrorCode.LIBRARY_NOT_OPEN
NOT_FOUND = ErrorCode.NOT_FOUND
ALREADY_EXISTS = ErrorCode.ALREADY_EXISTS
VERSION_CONFLICT = ErrorCode.VERSION_CONFLICT
STALE_PLAN = ErrorCode.STALE_PLAN
NOT_EMPTY = ErrorCode.NOT_EMPTY
PATH_INVALID = ErrorCode.PATH_INVALID
PATH_NOT_FOUND = ErrorCode.PATH_NOT_FOUND
PATH_FORBIDDEN = ErrorCode.PATH_FORBIDDEN
UNSUPPORTED_FORMAT = ErrorCode.UNSUPPORTED_FORMAT
PERMISSION_DENIED = ErrorCode.PERMISSION_DENIED
CHALLENGE_INVALID = ErrorCode.CHALLENGE_INVALID
HISTORY_EMPTY = ErrorCode.HISTORY_EMPTY
HISTORY_CONFLICT = ErrorCode.HISTORY_CONFLICT
HISTORY_IRREVERSIBLE = ErrorCode.HISTORY_IRREVERSIBLE
CANCELLED = ErrorCode.CANCELLED
BUSY = ErrorCode.BUSY
WORKER_UNAVAILABLE = ErrorCode.WORKER_UNAVAILABLE
DATABASE_UNAVAILABLE = ErrorCode.DATABASE_UNAVAILABLE
SERPENT_NOT_RUNNING = ErrorCode.SERPENT_NOT_RUNNING
DISK_FULL = ErrorCode.DISK_FULL
PLUGIN_FAILED = ErrorCode.PLUGIN_FAILED
LIBRARY_DAMAGED = ErrorCode.LIBRARY_DAMAGED
INTERNAL = ErrorCode.INTERNAL

ALL_CODES = tuple(ErrorCode)
RETRYABLE = frozenset({STALE_PLAN, BUSY, WORKER_UNAVAILABLE, DATABASE_UNAVAILABLE,
                       SERPENT_NOT_RUNNING})


class LibraryError(Exception):
    """A failure with a stable code. `message` is for people: no paths of internals, no tokens.

    `details` carries the contract's extra fields (`currentVersion`, `field`, `incidentId`,
    ...). `retryable` is derived from the code (details may say `retryable=False`).
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        """`code` is an `ErrorCode` or its value (as it comes back across the pipe); any other
        string is a bug and raises ValueError."""
        try:
            known = ErrorCode(code)
        except ValueError:
            raise ValueError(f"unknown error code {str(code)!r}") from None
        super().__init__(message)
        self.code: ErrorCode = known
        self.message = message
        self.details = details

    @property
    def retryable(self) -> bool:
        """From the code, unless the details say otherwise (`retryable=False`: a
        WORKER_UNAVAILABLE whose write may be saved already)."""
        said = self.details.get("retryable")
        return said if isinstance(said, bool) else self.code in RETRYABLE

    def __repr__(self) -> str:
        return f"LibraryError({self.code.value!r}, {self.message!r}, **{self.details!r})"
