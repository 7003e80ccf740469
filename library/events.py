"""Events `library.client.LibraryHost` delivers to its `on_event` callback.

Main process. `LibraryChanged` and `TaskProgress` are the worker's own messages, declared
once in `library.protocol` and passed on unchanged (the gateway hands the same objects to
the window and the MCP layer); `WorkerRestarted` and `LibraryClosed` are the host's, built
on its reader thread. All immutable. Callbacks must not block: post to a queue and return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from library.protocol import LibraryChanged, TaskProgress

__all__ = ["REOPENED", "LibraryChanged", "TaskProgress", "WorkerRestarted", "LibraryClosed",
           "DatabaseStatus", "LibraryEvent"]


REOPENED = "reopened: the library moved to a studio server"  # a planned restart's reason


@dataclass(frozen=True)
class WorkerRestarted:
    """The worker died, was started again and recovered the library before serving;
    `resent`: how many writes it had in flight were sent to the new one (`library.resend`)."""

    library_id: str
    reason: str
    recovery: dict[str, Any] = field(default_factory=dict)
    resent: int = 0


@dataclass(frozen=True)
class LibraryClosed:
    """The library is no longer open: closed on request, its folder vanished, or the worker
    could not be started again."""

    library_id: str
    reason: str


@dataclass(frozen=True)
class DatabaseStatus:
    """A studio library's database server could not be reached (`reachable` false: its
    calls answer DATABASE_UNAVAILABLE while Serpent connects again by itself), or can be
    again."""

    library_id: str
    reachable: bool
    message: str = ""


LibraryEvent = LibraryChanged | TaskProgress | WorkerRestarted | LibraryClosed | DatabaseStatus
