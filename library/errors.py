"""Stable error codes (docs/contracts.md §3) and the one exception type that carries them.

Imported by both processes. The worker raises `LibraryError`; it crosses the pipe as
`protocol.ErrorInfo` and is raised again by `library.client` in the main process.
"""

from __future__ import annotations

from typing import Any

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
SERPENT_NOT_RUNNING = "SERPENT_NOT_RUNNING"  # answered by the stdio bridge's stand-in
DISK_FULL = "DISK_FULL"  # details: freeBytes, neededBytes (what must be free, reserve included)
PLUGIN_FAILED = "PLUGIN_FAILED"  # a plugin's code raised, timed out or died; reason says which
LIBRARY_DAMAGED = "LIBRARY_DAMAGED"  # SQLite cannot read the library database; hint: library.repair
INTERNAL = "INTERNAL"

ALL_CODES = (
    INVALID_ARGUMENT, LIBRARY_REQUIRED, LIBRARY_NOT_FOUND, LIBRARY_NOT_OPEN, NOT_FOUND,
    ALREADY_EXISTS, VERSION_CONFLICT, STALE_PLAN, NOT_EMPTY, PATH_INVALID, PATH_NOT_FOUND,
    PATH_FORBIDDEN, UNSUPPORTED_FORMAT, PERMISSION_DENIED, CHALLENGE_INVALID, HISTORY_EMPTY,
    HISTORY_CONFLICT, HISTORY_IRREVERSIBLE, CANCELLED, BUSY, WORKER_UNAVAILABLE,
    SERPENT_NOT_RUNNING, DISK_FULL, PLUGIN_FAILED, LIBRARY_DAMAGED, INTERNAL,
)
RETRYABLE = frozenset({STALE_PLAN, BUSY, WORKER_UNAVAILABLE, SERPENT_NOT_RUNNING})


class LibraryError(Exception):
    """A failure with a stable code. `message` is for people: no paths of internals, no tokens.

    `details` carries the contract's extra fields (`currentVersion`, `field`, `incidentId`,
    ...). `retryable` is derived from the code.
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        if code not in ALL_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE

    def __repr__(self) -> str:
        return f"LibraryError({self.code!r}, {self.message!r}, **{self.details!r})"
