"""What a command handler gets to work with: the open library and the request it serves.

Runs in the worker process. A `ReadContext` is built per read request on the reader thread; a
`TaskContext` per long write command (an import) that commits in several transactions, with
the worker's `services.Services` (the writer connection, the layout, the event sender).
One-transaction writes get a `transaction.WriteTx` instead.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field

from library.catalogue import HistoryRule
from library.protocol import CallMeta, TaskProgress
from library.worker.services import Services
from library.worker.store.layout import Layout
from library.worker.store.requests import Call
from library.worker.store.transaction import WriteTx


@dataclass
class RequestScope:
    """The request being served: its id, who asked, and its cancel flag."""

    request_id: int
    command: str
    meta: CallMeta
    cancel_event: threading.Event = field(default_factory=threading.Event)

    def cancelled(self) -> bool:
        return self.cancel_event.is_set()


@dataclass
class ReadContext:
    services: Services
    conn: sqlite3.Connection
    scope: RequestScope

    @property
    def layout(self) -> Layout:
        return self.services.layout


@dataclass
class TaskContext:
    """A write command that commits in several transactions (imports) and reports progress.

    `history`: the command's rule; `link`: the call as the request ledger knows it
    (`requests.Call`): every transaction of the call records it and joins its one history
    entry, and a call sent again after its worker died finds in `link.progress` how far it
    got."""

    services: Services
    scope: RequestScope
    history: HistoryRule = "none"
    link: Call = field(default_factory=lambda: Call(None, ""))
    _last_progress: float = 0.0

    @property
    def layout(self) -> Layout:
        return self.services.layout

    @property
    def conn(self) -> sqlite3.Connection:
        return self.services.writer

    def cancelled(self) -> bool:
        return self.scope.cancelled()

    def progress(self, done: int, total: int, message: str = "", *, force: bool = False,
                 task_id: str | None = None, kind: str = "") -> None:
        """Send a `task.progress` event, at most every 100 ms unless forced (`task_id`: the
        task row this command shows as, if any, and `kind` its kind)."""
        now = time.monotonic()
        if not force and now - self._last_progress < 0.1:
            return
        self._last_progress = now
        self.services.emit(TaskProgress(
            library_id=self.services.library_id, request_id=self.scope.request_id,
            command=self.scope.command, done=done, total=total, message=message,
            task_id=task_id, kind=kind, ticket=self.scope.meta.ticket))

    def transaction(self, *, synced: bool = True) -> WriteTx:
        """One `WriteTx` of this task (`synced`: see `WriteTx`)."""
        return WriteTx(self.services, self.scope.command, self.scope.meta,
                       history=self.history, link=self.link, synced=synced)
