"""What becomes of the calls a library worker had in flight when it died: a write is sent to
the restarted worker again, or only asked about; a read fails.

Main process; functions on a `WorkerHandle`, called by `library.client.LibraryHost` under
its lock. Every write carries a request id that its worker commits in the write's own
transaction (the request ledger, `library/worker/store/requests.py`), so the same request
sent again is answered with what the first run did if it committed, and run if it did not: a
write never applies twice, and the caller never has to guess. A write is run again once; if
the worker dies under it again (a write that crashes it, a machine in trouble), or if it was
cancelled, the next worker is only asked for its outcome (`lookup`), which it answers
without running anything: the stored answer, or WORKER_UNAVAILABLE saying nothing was saved
(retryable) or that part of it was (a task; not retryable as such), or CANCELLED for a
cancelled write of which nothing was saved. A read that was in flight fails with
WORKER_UNAVAILABLE (it changed nothing; sending it again could crash the worker again). When
no worker comes back (the library closes or vanished, or crashes keep coming) a write's
outcome is unknown, and its error says so and how to find out.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from library.catalogue import CATALOGUE
from library.errors import CANCELLED, WORKER_UNAVAILABLE, LibraryError
from library.idempotency import new_request_id
from library.protocol import CallMeta, Request

if TYPE_CHECKING:
    from library.worker_handle import WorkerHandle

log = logging.getLogger("library.client")  # the host's log: its restarts are said there
RUNS = 2  # times a write is run by a worker; after that its outcome is only asked for


def is_write(command: str, plan: bool = False) -> bool:
    """A command that changes the library (and so gets a request id)."""
    entry = CATALOGUE.get(command)
    return entry is not None and entry.writes and not plan


def with_request_id(meta: CallMeta, command: str, plan: bool) -> CallMeta:
    """A write's meta with its request id (a caller that gave one keeps it)."""
    if meta.request_id is None and is_write(command, plan):
        return meta.model_copy(update={"request_id": new_request_id()})
    return meta


def resent(request: Request) -> bool:
    """Is this in-flight request a write the next worker should get again?"""
    return request.meta.request_id is not None and not request.plan


def again(request: Request, deaths: int, cancelled: bool) -> Request:
    """The request for the next worker: the write itself, or only the question of what
    became of it (`deaths`: how many workers died with it in flight)."""
    if cancelled or deaths >= RUNS:
        return request.model_copy(update={"lookup": True})
    return request


def outcome_unknown(error: LibraryError) -> LibraryError:
    """`error` (why no worker will answer) for a write that may have been saved."""
    return LibraryError(
        error.code, f"{error.message} Whether this change was saved is not known: once the "
        "library is open again, look at history.list (or at what it changes) before trying "
        "again; the same call with the same idempotencyKey is always safe to send again.",
        **{**error.details, "outcome": "unknown", "retryable": False})


# -- on the host's worker handle, under the host's lock --------------------------------------
Failed = list[tuple[Future[Any], LibraryError]]


def after_death(worker: WorkerHandle, restarting: bool, failure: LibraryError) -> Failed:
    """The worker died: keep its writes in flight for the next one (first in its backlog)
    when one is starting, with the calls that were waiting for it to start (a worker that
    waited for its studio database, `worker_handle.start_waiting`); returns the calls to fail
    now, each with its error."""
    failed: Failed = []
    kept: list[Request] = []
    unsent = {request.id for request in worker.backlog}  # waiting for a worker already
    for request_id, (future, request) in list(worker.pending.items()):
        if future.done():
            del worker.pending[request_id]
        elif request_id in unsent:  # never sent to the dead one: it goes on waiting
            if not restarting:
                del worker.pending[request_id]
                failed.append((future, outcome_unknown(failure)
                               if request_id in worker.deaths else failure))
        elif restarting and resent(request):
            deaths = worker.deaths[request_id] = worker.deaths.get(request_id, 0) + 1
            kept.append(again(request, deaths, request_id in worker.cancelled))
            worker.pending[request_id] = (future, kept[-1])
        else:
            del worker.pending[request_id]
            failed.append((future, outcome_unknown(failure) if resent(request) else failure))
    if not restarting:
        worker.backlog.clear()
    worker.backlog[:0] = kept
    return failed


def not_restarted(worker: WorkerHandle, error: LibraryError) -> Failed:
    """No worker came back: every call waiting for one fails (a write sent before, with its
    outcome unknown)."""
    failed: Failed = []
    for request in worker.backlog:
        entry = worker.pending.pop(request.id, None)
        if entry is not None and not entry[0].done():
            sent_before = request.id in worker.deaths
            failed.append((entry[0], outcome_unknown(error) if sent_before else error))
    worker.backlog.clear()
    return failed


def death(restarting: bool, deaths: int) -> LibraryError:
    """Why a dead worker's calls fail: it is being restarted (reads may be sent again), or
    it kept stopping (`deaths` within the host's window) and its library was closed."""
    if restarting:
        return LibraryError(WORKER_UNAVAILABLE, "The library worker stopped; it is being "
                            "restarted. Try again.")
    return LibraryError(WORKER_UNAVAILABLE, f"The library worker kept stopping ({deaths} "
                        "times within a minute); the library was closed. Open it again to "
                        "go on.", retryable=False)


def count_resent(worker: WorkerHandle) -> int:
    """How many of the requests waiting for the new worker a dead one had in flight (said
    in the log)."""
    resent = sum(1 for request in worker.backlog if request.id in worker.deaths)
    if resent:
        log.warning("library %s: %d write(s) in flight sent to the restarted worker",
                    worker.library_id, resent)
    return resent


def answered(worker: WorkerHandle, request_id: int) -> bool:
    """The call has its answer: forget what was kept for it. Returns whether it had been
    cancelled."""
    worker.deaths.pop(request_id, None)
    cancelled = request_id in worker.cancelled
    worker.cancelled.discard(request_id)
    return cancelled


def as_answered(error: LibraryError, cancelled: bool) -> LibraryError:
    """A call's error as its caller gets it: a cancelled write whose worker died under it
    and of which nothing was saved is CANCELLED (its lookup says `not-saved`)."""
    if cancelled and error.code == WORKER_UNAVAILABLE and \
            error.details.get("outcome") == "not-saved":
        return LibraryError(CANCELLED, "Cancelled; nothing of it was saved.")
    return error


def cancel_waiting(worker: WorkerHandle, request_id: int) -> Failed:
    """Cancel a call waiting for a worker to start. One never sent fails at once; a write a
    dead worker had is only asked about (it may have been saved)."""
    if request_id in worker.deaths:
        worker.cancelled.add(request_id)
        worker.backlog = [again(r, 0, True) if r.id == request_id else r
                          for r in worker.backlog]
        entry = worker.pending.get(request_id)
        if entry is not None:
            worker.pending[request_id] = (entry[0], again(entry[1], 0, True))
        return []
    worker.backlog = [r for r in worker.backlog if r.id != request_id]
    gone = worker.pending.pop(request_id, None)
    return [] if gone is None else [(gone[0], LibraryError(CANCELLED,
                                                           "Cancelled before it started."))]
