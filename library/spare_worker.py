"""A spare library worker kept ready, so opening a library does not wait for a new process
and its imports (most of what opening costs after a clean close).

Main process; thread-safe. `SpareWorkers` keeps at most one worker process that has done
its imports and waits to be told which library to open (`library.worker.spare`); the host
takes it for the next open (`worker_handle.hand_over`) and a new spare starts
`refill_after` seconds later, so the refill never competes with the library just opened.
The desktop app starts one first thing, before its own imports, so the window's first
library opens in a process that was warming up meanwhile. A spare holds no library: giving
it up (`shutdown`) kills it. Imports nothing heavy, so starting one costs only the spawn.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import threading
from multiprocessing.connection import Connection
from typing import Any

from library.worker.spare import SPARE_READY, spare_main

log = logging.getLogger(__name__)

REFILL_AFTER_S = 3.0  # after a spare is taken: the library it opens goes first


class SpareWorkers:
    """At most one spare worker process. Thread-safe."""

    def __init__(self, *, refill_after: float = REFILL_AFTER_S, context: Any = None) -> None:
        self._context = context or multiprocessing.get_context("spawn")
        self._refill_after = refill_after
        self._lock = threading.Lock()
        self._spare: tuple[Any, Connection] | None = None
        self._ready = False
        self._timer: threading.Timer | None = None
        self._closed = False

    def start(self) -> None:
        """Start a spare now, unless there is one (or the spares were shut down)."""
        with self._lock:
            if self._closed or self._spare is not None:
                return
            try:
                self._spare = self._launch()
            except OSError as error:  # no process to spare: opening spawns as before
                log.warning("no spare library worker: %s", error)
            self._ready = False

    def take(self) -> tuple[Any, Connection] | None:
        """The spare worker (process, pipe) for `worker_handle.hand_over`, or None when
        there is none alive; a new spare starts `refill_after` seconds later."""
        with self._lock:
            spare, self._spare = self._spare, None
            self._ready = False
            if self._closed:
                return None
            if self._timer is None or not self._timer.is_alive():
                self._timer = threading.Timer(self._refill_after, self.start)
                self._timer.name = "spare-worker-refill"
                self._timer.daemon = True
                self._timer.start()
        if spare is None:
            return None
        process, conn = spare
        if not process.is_alive():
            conn.close()
            process.join(1)
            return None
        return spare

    def wait_ready(self, timeout: float) -> bool:
        """Whether a spare has done its imports, waiting up to `timeout` seconds for it
        (benchmarks measure an open "from a running app" this way)."""
        with self._lock:
            if self._spare is None:
                return False
            if not self._ready:
                conn = self._spare[1]
                try:
                    if conn.poll(timeout):
                        message = json.loads(conn.recv_bytes())
                        self._ready = message.get("name") == SPARE_READY
                except (EOFError, OSError, ValueError):
                    return False
            return self._ready

    def shutdown(self) -> None:
        """Stop the refills and kill the spare (it holds no library)."""
        with self._lock:
            self._closed = True
            spare, self._spare = self._spare, None
            if self._timer is not None:
                self._timer.cancel()
        if spare is not None:
            process, conn = spare
            conn.close()
            process.kill()
            process.join(5)

    def _launch(self) -> tuple[Any, Connection]:
        parent_conn, child_conn = self._context.Pipe(duplex=True)
        process = self._context.Process(target=spare_main, args=(child_conn,),
                                        name="serpent-library-worker", daemon=True)
        process.start()
        child_conn.close()
        return process, parent_conn
