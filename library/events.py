"""Events `library.client.LibraryHost` delivers to its `on_event` callback.

Main process. Plain frozen dataclasses built on the client's reader thread from the worker's
`protocol.Event` messages (or from the client itself for restarts and closes). Callbacks
must not block: post to a queue and return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LibraryChanged:
    """A write committed: the library is now at `change_sequence`."""

    library_id: str
    change_sequence: int
    kinds: list[str]  # "asset", "tag", "folder", "library", "history", ...
    command: str  # the registry name of the write, e.g. "asset.tag", "history.undo"
    actor: dict[str, Any]  # {"source", "credential", "label"}
    entity_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TaskProgress:
    """A long command (an import) or a background task (analysis) moved on: `done` of
    `total` items. `request_id` is the call's (0 for a background task); `task_id` names the
    task row (`task.get`) when the work is one: background tasks, refresh, export."""

    library_id: str
    request_id: int
    command: str
    done: int
    total: int
    message: str = ""
    task_id: str | None = None


@dataclass(frozen=True)
class WorkerRestarted:
    """The worker died, was started again and recovered the library before serving."""

    library_id: str
    reason: str
    recovery: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LibraryClosed:
    """The library is no longer open: closed on request, its folder vanished, or the worker
    could not be started again."""

    library_id: str
    reason: str


LibraryEvent = LibraryChanged | TaskProgress | WorkerRestarted | LibraryClosed
