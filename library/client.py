"""The main process's proxy to the library workers: one subprocess per open library.

Thread-safe. Every call returns a `Future` at once; a reader thread per worker resolves it
from the worker's `Response` (matched by request id) and passes the worker's
`LibraryChanged` and `TaskProgress` on to `on_event` as they came (called on that reader
thread; it must not block), with its own `WorkerRestarted` and `LibraryClosed`. A worker that
dies (crash, `kill -9`) is started again on the same library (it recovers before serving):
its writes in flight go to the new one, which answers what was saved and runs what was not
(request ids, `library.resend`); its reads fail with `WORKER_UNAVAILABLE`, retryable. Calls
made meanwhile wait for it; a crash never raises into the caller's thread (one worker and
its pipe: `library.worker_handle`; and a studio library waiting for its server).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import multiprocessing
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from library import pathrules, private_paths, resend, worker_handle
from library.errors import ErrorCode, LibraryError
from library.events import (
    REOPENED,
    DatabaseStatus,
    LibraryChanged,
    LibraryClosed,
    LibraryEvent,
    TaskProgress,
    WorkerRestarted,
)
from library.import_replays import ImportReplays, Replay, replay_of, unpack_once
from library.import_replays import folder_key as _path_key
from library.protocol import (
    CallMeta,
    Cancel,
    Event,
    Hello,
    Request,
    Response,
    Shutdown,
    StartupFailed,
    Waiting,
    decode_from_worker,
    encode,
)
from library.spare_worker import SpareWorkers
from library.worker_handle import WorkerHandle, hand_over, settled, spawn

log = logging.getLogger(__name__)

MAX_RESTARTS = 5  # deaths within RESTART_WINDOW without serving a request in between
RESTART_WINDOW = 60.0


class CallFuture(Future):  # type: ignore[type-arg]
    """A call's result (camelCase JSON dict); `cancel_remote()` asks the worker to stop it."""

    def __init__(self, host: LibraryHost, library_id: str, request_id: int) -> None:
        super().__init__()
        self._host = host
        self.library_id = library_id
        self.request_id = request_id

    def cancel_remote(self) -> None:
        self._host._send_cancel(self.library_id, self.request_id)


class LibraryHost:
    """Starts, talks to, restarts and stops library workers. Thread-safe."""

    def __init__(self, on_event: Callable[[LibraryEvent], None] | None = None, *,
                 private_paths: Sequence[str | Path] = (),
                 replay_file: Path | None = None,
                 spares: SpareWorkers | None = None, machine: str | None = None) -> None:
        """`private_paths`: Serpent's own folders, never read for a caller (every worker is
        told them, see `library.private_paths`); `replay_file`: where
        `library.import-exported` keeps its idempotency keys (`library.import_replays`);
        `spares`: a spare worker to open the next library in (the host shuts it down with
        itself); `machine`: this Serpent's name in a studio library (default: host name)."""
        self._on_event = on_event
        self._private = [str(Path(p)) for p in private_paths]
        self._replays = ImportReplays(replay_file)
        self._spares = spares
        self._machine = machine
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.RLock()
        self._workers: dict[str, WorkerHandle] = {}
        self._opening: dict[str, Future] = {}  # type: ignore[type-arg]
        self._known: set[str] = set()
        self._ids = itertools.count(1)
        self._shut = False
        _HOSTS.add(self)

    # -- opening and closing ----------------------------------------------------------
    def create(self, parent: str | Path, name: str, meta: CallMeta | None = None,
               database: str | None = None) -> Future[dict]:  # type: ignore[type-arg]
        """Create `<parent>/<name>.serpent` and open it; resolves to its LibraryRef dict
        (`database`: a studio library's PostgreSQL URI, docs/studio.md)."""
        return self._in_new_worker({"action": "create", "parent": str(parent), "name": name,
                                    **({"database": database} if database else {})})

    def repair(self, path: str | Path) -> Future[dict]:  # type: ignore[type-arg]
        """A damaged library recovered into a new one, opened (`recovery_report`: "repair")."""
        return self._in_new_worker({"action": "repair", "path": str(path)})

    def _in_new_worker(self, opening: dict[str, Any]) -> Future[dict]:  # type: ignore[type-arg]
        future: Future = Future()  # type: ignore[type-arg]
        threading.Thread(target=self._open_thread, args=(opening, future, None),
                         name=f"library-{opening['action']}", daemon=True).start()
        return future

    def import_exported(self, archive: str | Path, parent: str | Path,
                        meta: CallMeta | None = None) -> Future[dict]:  # type: ignore[type-arg]
        """Unpack a `library.export` archive into a new library inside `parent` (with a
        fresh id) and open it; resolves to its LibraryRef dict. The worker unpacks.

        With `meta.idempotency_key`, a retry of the same call opens the library the first
        call made (see `library.import_replays`); other arguments with the key are refused."""
        try:
            archive_path = Path(pathrules.parse_user_path(str(archive), field="archivePath"))
            parent_path = Path(pathrules.parse_user_path(str(parent),
                                                         field="selectedParentPath"))
        except LibraryError as error:
            return settled(None, error)
        future: Future = Future()  # type: ignore[type-arg]
        replay = replay_of(meta, archive_path, parent_path)
        threading.Thread(target=self._import_thread,
                         args=(str(archive_path), str(parent_path), replay, future),
                         name="library-import", daemon=True).start()
        return future

    def open(self, path: str | Path) -> Future[dict]:  # type: ignore[type-arg]
        """Open a library folder; an already open one resolves to the same ref."""
        try:
            path = Path(pathrules.parse_user_path(str(path), field="path"))
        except LibraryError as error:
            return settled(None, error)
        key = _path_key(path)
        with self._lock:
            for worker in self._workers.values():
                if _path_key(worker.path) == key and worker.state != "closed":
                    return settled(worker.ref(), None)
            if key in self._opening:
                return self._opening[key]
            future: Future = Future()  # type: ignore[type-arg]
            self._opening[key] = future
        threading.Thread(target=self._open_thread,
                         args=({"action": "open", "path": str(Path(path).expanduser())},
                               future, key), name="library-open", daemon=True).start()
        return future

    def close(self, library_id: str) -> Future[None]:
        future: Future = Future()  # type: ignore[type-arg]
        with self._lock:
            worker = self._workers.get(library_id)
            if worker is None or worker.state == "closed":
                return settled(None, self._not_open(library_id))
            if worker.closed_future is not None:
                return worker.closed_future
            worker.closed_future = future
            worker.state = "closing"
            worker.send(Shutdown())
        threading.Thread(target=self._await_exit, args=(worker,), name="library-close",
                         daemon=True).start()
        return future

    def shutdown(self, timeout: float = 10.0) -> None:
        """Close every library (workers finish what they were asked) and stop them."""
        with self._lock:
            self._shut = True
            workers = list(self._workers.values())
        if self._spares is not None:
            self._spares.shutdown()
        futures = [self.close(w.library_id) for w in workers]
        deadline = time.monotonic() + timeout
        for future in futures:
            with contextlib.suppress(Exception):
                future.result(max(0.1, deadline - time.monotonic()))
        for worker in workers:
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(5)

    # -- calls --------------------------------------------------------------------------
    def call(self, library_id: str, command: str, args: dict[str, Any],
             meta: CallMeta | None = None, *, plan: bool = False,
             lookup: bool = False) -> CallFuture:
        """A write gets a request id; `lookup`: only ask what became of it (never runs it)."""
        meta = resend.with_request_id(meta or CallMeta(), command, plan)
        request_id = next(self._ids)
        future = CallFuture(self, library_id, request_id)
        args = dict(args)
        given_id = args.pop("libraryId", library_id)
        with self._lock:
            worker = self._workers.get(library_id)
            if worker is None or worker.state in ("closing", "closed"):
                future.set_exception(self._not_open(library_id))
                return future
            if given_id != library_id:
                future.set_exception(LibraryError(
                    ErrorCode.INVALID_ARGUMENT, "libraryId in the arguments names another library.",
                    field="libraryId"))
                return future
            if worker.unavailable is not None:  # a studio library's server is away
                future.set_exception(worker.unavailable)
                return future
            request = Request(id=request_id, command=command, args=args, meta=meta,
                              plan=plan, lookup=lookup)
            worker.pending[request_id] = (future, request)
            if worker.state == "ready":
                worker.send(request)
            else:
                worker.backlog.append(request)
        return future

    def list_open(self) -> list[dict[str, Any]]:
        with self._lock:
            return [w.ref() for w in self._workers.values() if w.state != "closed"]

    def change_sequence(self, library_id: str) -> int:
        with self._lock:
            worker = self._workers.get(library_id)
            if worker is None:
                raise self._not_open(library_id)
            return worker.change_sequence

    def worker_pid(self, library_id: str) -> int | None:
        """The worker's process id (for diagnostics and crash tests)."""
        with self._lock:
            worker = self._workers.get(library_id)
            return worker.process.pid if worker else None

    def recovery_report(self, library_id: str) -> dict[str, Any]:
        """What the worker's last start checked and did (`check`: `integrity_check` after an
        unclean stop, `quick_check`, or `skipped-clean-close`); empty if it is not open."""
        with self._lock:
            worker = self._workers.get(library_id)
            return dict(worker.recovery) if worker else {}

    def _import_thread(self, archive: str, parent: str, replay: Replay | None,
                       future: Future) -> None:  # type: ignore[type-arg]
        unpack_once(self._replays, self.open, lambda opening, unpacked: self._open_thread(
            opening, unpacked, None), archive, parent, replay, future)

    def _spawn(self, opening: dict[str, Any]) -> tuple[Any, Connection, Any]:
        """Start a worker (or hand the spare the library); it is told Serpent's private
        folders, whatever it opens."""
        opening = {**opening, private_paths.OPENING_KEY: self._private, "machine": self._machine}
        spare = self._spares.take() if self._spares is not None else None
        if spare is not None:
            return hand_over(*spare, opening)
        return spawn(self._context, opening)

    def _open_thread(self, opening: dict[str, Any], future: Future,  # type: ignore[type-arg]
                     key: str | None) -> None:
        try:
            if self._shut:
                raise LibraryError(ErrorCode.WORKER_UNAVAILABLE, "Serpent is shutting down.")
            process, conn, hello = self._spawn(opening)
        except BaseException as error:
            with self._lock:
                if key is not None:
                    self._opening.pop(key, None)
            future.set_exception(error if isinstance(error, LibraryError) else LibraryError(
                ErrorCode.INTERNAL, "The library worker could not be started."))
            return
        with self._lock:
            if key is not None:
                self._opening.pop(key, None)
            existing = self._workers.get(hello.library_id)
            if existing is not None and existing.state != "closed":
                conn.send_bytes(encode(Shutdown()))
                conn.close()
                process.join(10)
                future.set_exception(LibraryError(
                    ErrorCode.ALREADY_EXISTS, "A library with the same identity is already open "
                    "(is this folder a copy of an open library?).", libraryId=hello.library_id))
                return
            worker = worker_handle.new_handle(process, conn, hello)
            self._workers[worker.library_id] = worker
            self._known.add(worker.library_id)
        self._start_reader(worker)
        if worker.unavailable is not None:
            self._emit(DatabaseStatus(worker.library_id, False, worker.unavailable.message))
        elif worker.recovery.get("orphansMoved") or worker.recovery.get("missingFiles"):
            log.warning("library %s recovered: %s", worker.library_id, worker.recovery)
        future.set_result(worker.ref())

    def _start_reader(self, worker: WorkerHandle) -> None:
        threading.Thread(target=self._reader, args=(worker, worker.process, worker.conn),
                         name=f"library-{worker.library_id}", daemon=True).start()

    # -- internals: the reader thread ------------------------------------------------------
    def _reader(self, worker: WorkerHandle, process: Any, conn: Connection) -> None:
        while True:
            ready = wait([conn, process.sentinel])
            if conn not in ready and not conn.poll(0):
                break  # the process ended and nothing is left to read
            try:
                data = conn.recv_bytes()
            except (EOFError, OSError):
                break
            try:
                self._dispatch(worker, decode_from_worker(data))
            except Exception:
                log.exception("could not handle a message from library %s", worker.library_id)
        conn.close()
        process.join(5)
        self._worker_ended(worker, process.exitcode)

    def _dispatch(self, worker: WorkerHandle, message: Any) -> None:
        if isinstance(message, Response):
            with self._lock:
                worker.restarts.clear()  # it served again: not a crash loop
                entry = worker.pending.pop(message.id, None)
                cancelled = resend.answered(worker, message.id)
                worker.change_sequence = max(worker.change_sequence, message.change_sequence)
            if entry is None:
                return
            future = entry[0]
            if message.ok:
                future.set_result(message.result or {})
            else:
                error = message.error
                assert error is not None
                future.set_exception(resend.as_answered(
                    LibraryError(error.code, error.message, **error.details), cancelled))
        elif isinstance(message, LibraryChanged):
            with self._lock:
                worker.change_sequence = max(worker.change_sequence, message.change_sequence)
                if message.library_name:
                    worker.name = message.library_name
            self._emit(message)
        elif isinstance(message, TaskProgress):
            self._emit(message)
        elif isinstance(message, Hello):  # a worker that waited for its studio database
            self._connected(worker, message)
        elif isinstance(message, StartupFailed):  # it connected, but cannot serve after all
            worker.failed_start = worker_handle.refused(message)
        elif isinstance(message, Event):
            status = worker_handle.noticed(worker, message)
            if status is not None:
                self._emit(status)

    def _connected(self, worker: WorkerHandle, hello: Hello) -> None:
        with self._lock:
            if worker.state != "waiting":  # closed meanwhile: its Shutdown is on the way
                return
            restarted, resent = worker_handle.connected(worker, hello)
        self._emit(DatabaseStatus(worker.library_id, True))
        if restarted:
            self._emit(WorkerRestarted(worker.library_id, restarted, dict(hello.recovery),
                                       resent))

    # -- internals: a worker ended ----------------------------------------------------------
    def _worker_ended(self, worker: WorkerHandle, exitcode: int | None) -> None:
        with self._lock:
            if worker_handle.reopens(worker) and not self._shut:
                worker.state, restart, reason = "restarting", True, REOPENED
                failure = resend.death(True, 0)
            elif worker.state in ("closing", "closed") or worker.vanished or self._shut:
                reason = "vanished" if worker.vanished else "closed"
                self._retire(worker)
                failure = (LibraryError(ErrorCode.LIBRARY_NOT_FOUND, "The library folder is gone.",
                                        reason="vanished") if worker.vanished
                           else self._not_open(worker.library_id))
                restart = False
            else:
                now = time.monotonic()
                worker.restarts = [t for t in worker.restarts if now - t < RESTART_WINDOW]
                restart = len(worker.restarts) < MAX_RESTARTS and worker.failed_start is None
                worker.restarts.append(now)
                worker.state = "restarting" if restart else "closed"
                worker.unavailable = None
                if not restart:
                    self._retire(worker)
                reason = f"the library worker stopped unexpectedly (exit code {exitcode})"
                failure = resend.death(restart, len(worker.restarts))
                if worker.failed_start is not None:  # its database was back, and refused
                    failure = worker.failed_start
                    reason = f"could not open: {failure.message}"
            failed = resend.after_death(worker, restart, failure)
        for future, error in failed:
            future.set_exception(error)
        if restart:
            log.warning("library %s: %s; restarting", worker.library_id, reason)
            self._restart(worker, reason)
        else:
            worker.settle_reopening(failure)
            worker.state = "closed"
            if worker.closed_future is not None and not worker.closed_future.done():
                worker.closed_future.set_result(None)
            self._emit(LibraryClosed(worker.library_id, reason))

    def _restart(self, worker: WorkerHandle, reason: str) -> None:
        try:
            process, conn, hello = self._spawn({"action": "open", "path": worker.path})
            if hello.library_id != worker.library_id:
                conn.send_bytes(encode(Shutdown()))
                conn.close()
                raise LibraryError(ErrorCode.LIBRARY_NOT_FOUND,
                                   "Another library now sits at this path.")
        except LibraryError as error:
            with self._lock:
                failed = resend.not_restarted(worker, error)
                worker.state = "closed"
                self._retire(worker)
            for future, failure in failed:
                future.set_exception(failure)
            if worker.closed_future is not None and not worker.closed_future.done():
                worker.closed_future.set_result(None)
            worker.settle_reopening(error)
            self._emit(LibraryClosed(worker.library_id, f"could not restart: {error.message}"))
            return
        not_waiting: resend.Failed = []
        resent = 0
        with self._lock:
            worker.process, worker.conn = process, conn
            closing = worker.state != "restarting"  # close() was called meanwhile
            if closing:
                worker.send(Shutdown())  # its reader then finishes the close
            elif isinstance(hello, Waiting):  # its studio database is away: said once back
                not_waiting = worker_handle.start_waiting(worker, hello, reason)
            else:
                resent = worker_handle.connected(worker, hello)[1]
        for call, unavailable in not_waiting:
            call.set_exception(unavailable)
        self._start_reader(worker)
        if not closing:
            self._emit(DatabaseStatus(worker.library_id, False, hello.error.message)
                       if isinstance(hello, Waiting) else
                       WorkerRestarted(worker.library_id, reason, dict(hello.recovery), resent))
        worker.settle_reopening(None)

    def reopened(self, library_id: str) -> Future[dict]:  # type: ignore[type-arg]
        """The library's ref once its worker, stopped to open its folder anew, did."""
        with self._lock:
            return worker_handle.reopened(self._workers.get(library_id),
                                          self._not_open(library_id))

    def _await_exit(self, worker: WorkerHandle) -> None:
        process = worker.process
        process.join(30)
        if process.is_alive():
            process.kill()
            process.join(5)

    def _retire(self, worker: WorkerHandle) -> None:
        worker.state = "closed"
        if self._workers.get(worker.library_id) is worker:
            del self._workers[worker.library_id]

    # -- internals: sending --------------------------------------------------------------
    def _send_cancel(self, library_id: str, request_id: int) -> None:
        with self._lock:
            worker = self._workers.get(library_id)
            if worker is None or request_id not in worker.pending:
                return
            if worker.state == "ready":
                worker.cancelled.add(request_id)  # if its worker dies: not run again
                worker.send(Cancel(id=request_id))
                return
            failed = resend.cancel_waiting(worker, request_id)
        for future, error in failed:
            future.set_exception(error)

    def _emit(self, event: LibraryEvent) -> None:
        try:
            if self._on_event is not None:
                self._on_event(event)
        except Exception:
            log.exception("library event listener failed")

    def _not_open(self, library_id: str) -> LibraryError:
        if library_id in self._known:
            return LibraryError(ErrorCode.LIBRARY_NOT_OPEN, "That library is not open.",
                                libraryId=library_id)
        return LibraryError(ErrorCode.LIBRARY_NOT_FOUND, "No library with that id is known.",
                            libraryId=library_id)


_HOSTS: weakref.WeakSet[LibraryHost] = weakref.WeakSet()


@atexit.register
def _interpreter_exiting() -> None:
    """Workers that die while Python exits (multiprocessing terminates daemon children) are
    not restarted. Registered after multiprocessing's own exit hook, so it runs before it."""
    for host in list(_HOSTS):
        host._shut = True
