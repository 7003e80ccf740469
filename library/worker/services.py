"""What a worker holds while it serves a library: the writer connection, the layout, the way
to tell the main process (`Services`).

Runs in the worker process; lives as long as the worker. Apart from `context` (what a handler
gets per request) so that transactions, background jobs and the watchers can take it without
importing the request contexts, which open transactions themselves.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from library.protocol import LibraryNews
from library.worker.store.layout import Layout

Emit = Callable[[LibraryNews], None]  # to the main process (the server keeps its sequence)


@dataclass
class Services:
    layout: Layout
    library_id: str
    writer: sqlite3.Connection  # on a studio library, a `studio.pgconn.PgConnection`
    emit: Emit
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    connect_reader: Callable[[], Any] | None = None  # new read connections (None: SQLite's)
    kind: str = "local"  # or "studio"
    machine: str | None = None  # this Serpent's name among a studio library's machines
    reopen_after: bool = False  # the library moved (library.move-to-studio): stop, open anew

    def reader(self) -> Any:
        """A new read-only connection to the library (for a thread of its own)."""
        if self.connect_reader is not None:
            return self.connect_reader()
        from library.worker.store.database import connect

        return connect(self.layout.database, reader=True)

    def change_sequence(self, conn: sqlite3.Connection | None = None) -> int:
        row = (conn or self.writer).execute(
            "SELECT change_sequence FROM library_state").fetchone()
        return int(row[0])
