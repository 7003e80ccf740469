"""The main process's handle on one library worker subprocess: starting it, sending to it,
reading what it sends.

Main process; thread-safe where it says so. `spawn` starts a worker (multiprocessing's
spawn, target `library.worker.process.worker_main`) and waits for its first message: `Hello`,
or `StartupFailed` raised as the `LibraryError` it names; `hand_over` does the same with a
spare worker started earlier (`library.spare_worker`). A `WorkerHandle` is what
`library.client.LibraryHost` keeps per open library (its process, pipe, calls in flight).
Restarts and the reader thread are the host's business; what the host does while a studio
library's worker waits for its database server is at the end (`start_waiting`, `connected`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from library.errors import INTERNAL, WORKER_UNAVAILABLE, LibraryError
from library.events import DatabaseStatus
from library.protocol import (
    PROTOCOL_VERSION,
    Event,
    Hello,
    Open,
    Request,
    StartupFailed,
    Waiting,
    decode_from_worker,
    encode,
)
from library.resend import Failed, count_resent

if TYPE_CHECKING:
    from library.client import CallFuture

worker_log = logging.getLogger("library.worker")

STARTUP_TIMEOUT = 120.0  # recovery of a big library after a crash can take a while


@dataclass
class WorkerHandle:
    library_id: str
    name: str
    path: str
    process: Any
    conn: Connection
    change_sequence: int
    state: str = "ready"  # ready | restarting | waiting | closing | closed
    pending: dict[int, tuple[CallFuture, Request]] = field(default_factory=dict)
    backlog: list[Request] = field(default_factory=list)
    deaths: dict[int, int] = field(default_factory=dict)  # workers that died under a write
    cancelled: set[int] = field(default_factory=set)  # writes cancelled while in flight
    send_lock: threading.Lock = field(default_factory=threading.Lock)
    vanished: bool = False
    restarts: list[float] = field(default_factory=list)
    closed_future: Future | None = None  # type: ignore[type-arg]
    recovery: dict[str, Any] = field(default_factory=dict)  # the last start's report
    # waiting for its studio database (`start_waiting` below): what calls get meanwhile,
    # why it was restarted (said once connected), why it then could not start after all
    unavailable: LibraryError | None = None
    restarted: str = ""
    failed_start: LibraryError | None = None
    reopening: Future | None = None  # type: ignore[type-arg]  # its worker asked to start anew

    def ref(self) -> dict[str, Any]:
        return {"libraryId": self.library_id, "name": self.name, "path": self.path,
                "open": True}

    def settle_reopening(self, error: LibraryError | None) -> None:
        """The worker that asked to open its folder anew did (or could not: `error`)."""
        future, self.reopening = self.reopening, None
        if future is not None and not future.done():
            settled(self.ref(), error, future)

    def send(self, message: Any) -> None:
        """Thread-safe. Never raises for a dead worker: its reader thread notices the death
        and fails the call."""
        data = encode(message)
        with self.send_lock, contextlib.suppress(OSError, EOFError, ValueError):
            self.conn.send_bytes(data)


def spawn(context: Any, opening: dict[str, Any]) -> tuple[Any, Connection, Hello | Waiting]:
    """Start a worker for `opening` (see `worker_main`) and wait for its `Hello` (or its
    `Waiting`: a studio library whose server is away, `start_waiting`)."""
    from library.worker.process import worker_main

    parent_conn, child_conn = context.Pipe(duplex=True)
    process = context.Process(target=worker_main, args=(child_conn, opening),
                              name="serpent-library-worker", daemon=True)
    process.start()
    child_conn.close()
    try:
        first = _first_message(process, parent_conn)
    except BaseException:
        parent_conn.close()
        if process.is_alive():
            process.kill()
        process.join(5)
        raise
    return process, parent_conn, first


def hand_over(process: Any, conn: Connection, opening: dict[str, Any]
              ) -> tuple[Any, Connection, Hello | Waiting]:
    """Tell a spare worker (`library.spare_worker`) to open `opening`; wait for its `Hello`
    as `spawn` does."""
    try:
        conn.send_bytes(encode(Open(opening=opening)))
        first = _first_message(process, conn)
    except BaseException:
        conn.close()
        if process.is_alive():
            process.kill()
        process.join(5)
        raise
    return process, conn, first


def _first_message(process: Any, conn: Connection) -> Hello | Waiting:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LibraryError(WORKER_UNAVAILABLE, "The library worker did not start in "
                               "time.")
        ready = wait([conn, process.sentinel], remaining)
        if conn in ready or conn.poll(0):
            try:
                message = decode_from_worker(conn.recv_bytes())
            except EOFError:
                raise LibraryError(WORKER_UNAVAILABLE, "The library worker stopped while "
                                   "starting.") from None
            if isinstance(message, StartupFailed):
                process.join(10)
                raise LibraryError(message.error.code, message.error.message,
                                   **message.error.details)
            if isinstance(message, Hello):
                if message.protocol != PROTOCOL_VERSION:
                    raise LibraryError(INTERNAL, "The library worker speaks another "
                                       "protocol version.")
                return message
            if isinstance(message, Waiting):
                return message
            if isinstance(message, Event) and message.name == "worker.log":
                log_worker(message)
            continue
        if ready:
            process.join(5)
            raise LibraryError(WORKER_UNAVAILABLE, "The library worker stopped while "
                               f"starting (exit code {process.exitcode}).")


def log_worker(message: Event) -> None:
    """A `worker.log` event, logged under `library.worker` in the main process's log."""
    level = getattr(logging, str(message.data.get("level", "WARNING")), logging.WARNING)
    if not isinstance(level, int) or not worker_log.isEnabledFor(level):
        return
    record = worker_log.makeRecord(worker_log.name, level, "(worker)", 0, "%s",
                                   (str(message.data.get("message", "")),), None)
    trace = message.data.get("traceback")
    if trace:
        record.exc_text = str(trace)
    worker_log.handle(record)


# -- a studio library whose worker waits for its database server (`protocol.Waiting`) --------
# A library opened, or its worker started again after a crash, while its server cannot be
# reached is open all the same (listed, shown, with its id): its worker holds the folder and
# connects by itself (`library.worker.studio.waiting`). Meanwhile `LibraryHost` answers every
# call at once with DATABASE_UNAVAILABLE (retryable; nothing was sent, nothing changed),
# except the writes a dead worker had in flight: those wait for the connected worker, which
# answers what was committed and runs what was not (`library.resend`), exactly once. These
# run under the host's lock.

def new_handle(process: Any, conn: Connection, first: Hello | Waiting) -> WorkerHandle:
    """The handle of a worker that just started: serving (`Hello`), or waiting."""
    if isinstance(first, Hello):
        return WorkerHandle(first.library_id, first.name, first.path, process, conn,
                            first.change_sequence, recovery=dict(first.recovery))
    worker = WorkerHandle(first.library_id, first.name, first.path, process, conn, 0)
    start_waiting(worker, first)
    return worker


def error_of(waiting: Waiting) -> LibraryError:
    """What calls are answered with while the worker waits (DATABASE_UNAVAILABLE)."""
    return LibraryError(waiting.error.code, waiting.error.message, **waiting.error.details)


def refused(failed: StartupFailed) -> LibraryError:
    """Why a worker that waited cannot serve after all (its database was back, and holds
    another library, or a newer one): the library closes with it."""
    return LibraryError(failed.error.code, failed.error.message, **failed.error.details)


def start_waiting(worker: WorkerHandle, waiting: Waiting, restarted: str = "") -> Failed:
    """The worker waits for its server (`restarted`: why it was started again, said once it
    is connected). Returns the calls to fail now: those waiting for it that no worker ever
    had (a write one had waits on, as its outcome may be committed)."""
    worker.state = "waiting"
    worker.unavailable = error_of(waiting)
    worker.restarted = restarted
    failed: Failed = []
    kept = []
    for request in worker.backlog:
        if request.id in worker.deaths:
            kept.append(request)
            continue
        entry = worker.pending.pop(request.id, None)
        if entry is not None and not entry[0].done():
            failed.append((entry[0], worker.unavailable))
    worker.backlog[:] = kept
    return failed


def connected(worker: WorkerHandle, hello: Hello) -> tuple[str, int]:
    """The worker (started again, or done waiting) serves: the calls waiting for it go to it.
    Returns (why it had been started again, if it waited, or "", how many writes a dead one
    had are sent)."""
    worker.state = "ready"
    worker.unavailable = None
    worker.name = hello.name
    worker.change_sequence = max(worker.change_sequence, hello.change_sequence)
    worker.recovery = dict(hello.recovery)
    resent = count_resent(worker)
    for request in worker.backlog:
        worker.send(request)
    worker.backlog.clear()
    restarted, worker.restarted = worker.restarted, ""
    return restarted, resent


def settled(result: Any, error: LibraryError | None,
            future: Future | None = None) -> Future:  # type: ignore[type-arg]
    """`future` (a new one if None) resolved: with `error` if given, else with `result`."""
    future = Future() if future is None else future
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
    return future


# -- a worker that stops to open its folder anew (library.move-to-studio) ------------------------
def noticed(worker: WorkerHandle, message: Event) -> DatabaseStatus | None:
    """A worker's notice for the host: about the worker (its folder vanished; it asks to be
    opened anew, told before the answer that asked it), its log, or its database's status
    (returned, for the host to tell)."""
    if message.name == "library.vanished":
        worker.vanished = True
    elif message.name == "worker.log":
        log_worker(message)
    elif message.name == "library.reopening":
        worker.reopening = worker.reopening or Future()
    elif message.name == "library.database":
        return DatabaseStatus(worker.library_id, bool(message.data.get("reachable")),
                              str(message.data.get("message") or ""))
    return None


def reopens(worker: WorkerHandle) -> bool:
    """It ended, serving, because it asked to be opened anew (not a crash)."""
    return worker.reopening is not None and worker.state == "ready" and not worker.vanished


def reopened(worker: WorkerHandle | None, not_open: LibraryError) -> Future:  # type: ignore[type-arg]
    """Resolves to the worker's library ref once it is open anew (at once if not asked)."""
    if worker is None:
        return settled(None, not_open)
    return worker.reopening or settled(worker.ref(), None)
