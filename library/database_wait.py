"""A studio library whose worker waits for its database server (`protocol.Waiting`): what
the host does with calls meanwhile, and once the worker is connected.

Main process; functions on a `WorkerHandle`, called by `library.client.LibraryHost` under
its lock. A library opened, or its worker started again after a crash, while its server
cannot be reached is open all the same (listed, shown, with its id): its worker holds the
folder and connects by itself (`library.worker.studio.waiting`). Meanwhile every call is
answered at once with DATABASE_UNAVAILABLE (retryable; nothing was sent, nothing changed),
except the writes a dead worker had in flight: those wait for the connected worker, which
answers what was committed and runs what was not (`library.resend`), exactly once.
"""

from __future__ import annotations

from multiprocessing.connection import Connection
from typing import Any

from library.errors import LibraryError
from library.protocol import Hello, StartupFailed, Waiting
from library.resend import Failed, count_resent
from library.worker_handle import WorkerHandle


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
