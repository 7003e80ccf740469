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

from library.protocol import LibraryNews
from library.worker.store.layout import Layout

Emit = Callable[[LibraryNews], None]  # to the main process (the server keeps its sequence)


@dataclass
class Services:
    layout: Layout
    library_id: str
    writer: sqlite3.Connection
    emit: Emit
    write_lock: threading.Lock = field(default_factory=threading.Lock)

    def change_sequence(self, conn: sqlite3.Connection | None = None) -> int:
        row = (conn or self.writer).execute(
            "SELECT change_sequence FROM library_state").fetchone()
        return int(row[0])
