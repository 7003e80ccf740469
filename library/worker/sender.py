"""Writing protocol messages to the main process over the worker's end of the pipe.

Runs in the worker process; thread-safe (the request loop, task threads and the log handler
all send). Apart from `process` (the entry point) so the request loop (`server`) can send
without importing the module that starts it.
"""

from __future__ import annotations

import threading
from multiprocessing.connection import Connection
from typing import Any

from library.protocol import Event, encode


class Sender:
    """Thread-safe writer of protocol messages to the main process."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.broken = False

    def send(self, message: Any) -> None:
        """Send a `library.protocol` message. Raises (before anything is sent) if it cannot
        be serialised; never for a main process that went away."""
        data = encode(message)
        with self._lock:
            if self.broken:
                return
            try:
                self._conn.send_bytes(data)
            except (OSError, EOFError, ValueError):
                self.broken = True  # the main process is gone: nothing left to tell

    def event(self, name: str, data: dict[str, Any]) -> None:
        """A notice for the host itself (`worker.log`, `library.vanished`)."""
        self.send(Event(name=name, data=data))
