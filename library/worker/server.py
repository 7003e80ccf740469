"""The worker's request loop: a pipe reader thread, reader threads for reads, one writer.

Runs in the worker process. The pipe reader thread decodes every message at once, so a
`Cancel` takes effect while a long import runs. Read commands and plans go to reader
threads with their own WAL connections (they never wait behind an import); `derive`
commands (thumbnails: slow image work that writes only derived files) get threads of their
own, so a burst of them never delays a search; writes run one at a time on the main thread,
which owns the writer connection. Errors become
`ErrorInfo` here: `LibraryError` as is, pydantic `ValidationError` as `INVALID_ARGUMENT`
naming the field, sqlite and OS errors through `database.translate*`, anything else as
`INTERNAL` with an incident id that is in the log.
"""

from __future__ import annotations

import logging
import os
import queue
import secrets
import sqlite3
import threading
from multiprocessing.connection import Connection
from typing import Any

from pydantic import BaseModel, ValidationError

from library.errors import (
    CANCELLED,
    DISK_FULL,
    INTERNAL,
    INVALID_ARGUMENT,
    LIBRARY_NOT_FOUND,
    LibraryError,
)
from library.idempotency import arguments_digest
from library.protocol import (
    Cancel,
    ErrorInfo,
    Event,
    LibraryChanged,
    LibraryNews,
    Request,
    Response,
    Shutdown,
    decode_to_worker,
    json_safe,
)
from library.worker import commands
from library.worker.context import ReadContext, RequestScope, TaskContext
from library.worker.opened_library import OpenLibrary
from library.worker.sender import Sender
from library.worker.services import Services
from library.worker.store import diskspace, requests
from library.worker.store.database import translate, translate_os
from library.worker.store.transaction import WriteTx

log = logging.getLogger("library.worker")
READER_THREADS = 2
DERIVE_THREADS = max(2, os.cpu_count() or 2)  # the window's thumbnails: one per core
VANISHED_POLL_SECONDS = 2.0
_STOP = object()


class LibraryVanished(Exception):
    pass


class WorkerServer:
    def __init__(self, library: OpenLibrary, conn: Connection, sender: Sender) -> None:
        self.library = library
        self.conn = conn
        self.sender = sender
        self.commands = commands.load()
        self.services = Services(layout=library.layout, library_id=library.library_id,
                                 writer=library.writer, emit=self._emit,
                                 connect_reader=library.reader, kind=library.kind,
                                 machine=library.machine)
        self.sequence = library.change_sequence
        self._writes: queue.Queue[Any] = queue.Queue()
        self._reads: queue.Queue[Any] = queue.Queue()
        self._derives: queue.Queue[Any] = queue.Queue()
        self._scopes: dict[int, RequestScope] = {}
        self._scopes_lock = threading.Lock()
        self._stopping = threading.Event()
        self._clean = True

    # -- lifecycle --------------------------------------------------------------------
    def serve(self) -> bool:
        """Serve until `Shutdown`, the pipe closing, or the library vanishing.

        Returns whether the library was left in a clean state.
        """
        stoppers = [start(self.services, self._stopping) for start in commands.BACKGROUND]
        if self.library.kind == "studio":
            stoppers.append(self._listen_to_other_machines())
        readers = [threading.Thread(target=self._read_loop, args=(self._reads,),
                                    name=f"reader-{n}", daemon=True)
                   for n in range(READER_THREADS)]
        readers += [threading.Thread(target=self._read_loop, args=(self._derives,),
                                     name=f"derive-{n}", daemon=True)
                    for n in range(DERIVE_THREADS)]
        for thread in readers:
            thread.start()
        pipe = threading.Thread(target=self._pipe_loop, name="pipe", daemon=True)
        pipe.start()
        try:
            self._write_loop()
        finally:
            self._stopping.set()
            for _ in range(READER_THREADS):
                self._reads.put(_STOP)
            for _ in range(DERIVE_THREADS):
                self._derives.put(_STOP)
            for thread in readers:
                thread.join(5)
            for stop in reversed(stoppers):  # the last started stops first
                stop()
        return self._clean

    def _pipe_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                data = self.conn.recv_bytes()
            except (EOFError, OSError):
                break  # the main process went away
            try:
                message = decode_to_worker(data)
            except ValidationError:
                log.warning("ignored an unreadable message from the main process")
                continue
            if isinstance(message, Cancel):
                with self._scopes_lock:
                    scope = self._scopes.get(message.id)
                if scope is not None:
                    scope.cancel_event.set()
            elif isinstance(message, Shutdown):
                break
            elif isinstance(message, Request):
                self._route(message)
        self._writes.put(_STOP)

    def _route(self, request: Request) -> None:
        handler = self.commands.get(request.command)
        if handler is None:
            self._reply_error(request.id, LibraryError(
                INVALID_ARGUMENT, f"Unknown library command {request.command!r}.",
                field="command"))
            return
        scope = RequestScope(request.id, request.command, request.meta)
        with self._scopes_lock:
            self._scopes[request.id] = scope
        if handler.mode == "derive" and not request.plan:
            self._derives.put((request, handler, scope))
        elif handler.mode in ("read", "derive") or request.plan:
            self._reads.put((request, handler, scope))
        else:
            self._writes.put((request, handler, scope))

    # -- loops ------------------------------------------------------------------------
    def _write_loop(self) -> None:
        while True:
            try:
                item = self._writes.get(timeout=VANISHED_POLL_SECONDS)
            except queue.Empty:
                if self._vanished():
                    return
                continue
            if item is _STOP:
                return
            request, handler, scope = item
            self._handle(request, handler, scope, self._run_write)
            if self._stopping.is_set() or self.services.reopen_after:
                return  # (what waits is sent again by the host to the worker it starts)

    def _read_loop(self, work: queue.Queue[Any]) -> None:
        conn = self.library.reader()
        try:
            while True:
                item = work.get()
                if item is _STOP:
                    return
                request, handler, scope = item
                self._handle(request, handler, scope,
                             lambda r, s, sc: self._run_read(conn, r, s, sc))
        finally:
            conn.close()

    # -- one request ------------------------------------------------------------------
    def _handle(self, request: Request, handler: commands.Handler, scope: RequestScope,
                runner: Any) -> None:
        try:
            if scope.cancelled():
                raise LibraryError(CANCELLED, "Cancelled before it started.")
            if self._vanished():
                raise LibraryError(LIBRARY_NOT_FOUND, "The library folder is gone (moved, "
                                   "deleted, or its drive was disconnected).", reason="vanished")
            result = runner(request, handler, scope)
            if self.services.reopen_after:  # told before the answer: no call slips between
                self.sender.send(Event(name="library.reopening", data={}))
            self.sender.send(Response(id=request.id, ok=True, result=result,
                                      change_sequence=self.sequence))
        except Exception as error:  # every failure becomes an answer, never a dead worker
            self._reply_error(request.id, self._as_library_error(error, request))
        finally:
            with self._scopes_lock:
                self._scopes.pop(request.id, None)

    def _run_read(self, conn: sqlite3.Connection, request: Request,
                  handler: commands.Handler, scope: RequestScope) -> dict[str, Any]:
        args = handler.input_model.model_validate(request.args)
        ctx = ReadContext(self.services, conn, scope)
        if request.plan:
            if handler.plan is None:
                raise LibraryError(INVALID_ARGUMENT, f"{handler.name} has no plan.", field="plan")
            return _dump(handler.plan(ctx, args))
        if handler.mode == "derive":  # image work: no read transaction held while it runs
            return _dump(handler.run(ctx, args))
        conn.execute("BEGIN")  # one snapshot for the whole read (page + total agree)
        try:
            return _dump(handler.run(ctx, args))
        finally:
            conn.execute("COMMIT")

    def _run_write(self, request: Request, handler: commands.Handler,
                   scope: RequestScope) -> dict[str, Any]:
        """A write, once: the request ledger answers a call it has done already (sent again
        after a worker died, or retried with its idempotency key), a `lookup` is answered
        from the ledger only, and a task that stopped part-way goes on (`link.progress`)."""
        args = handler.input_model.model_validate(request.args)
        services = self.services
        digest = arguments_digest(_dump(args))
        with services.write_lock:
            call = requests.find(services.writer, handler.name, digest, request.meta)
            if call.state == "done" and call.result is not None:
                return call.result
            if request.lookup:
                raise requests.not_answered(call)
            if not handler.command.frees_space:  # deleting must work on a full disk
                diskspace.ensure_room(self.library.layout.root)
            rule = handler.command.history
            if handler.mode == "task":
                result = _dump(handler.run(TaskContext(services, scope, rule, call), args))
                if call.id is not None:
                    with WriteTx(services, handler.name, request.meta, link=call,
                                 ledger_only=True) as tx:
                        tx.result = result
                return result
            with WriteTx(services, handler.name, request.meta, history=rule, link=call) as tx:
                result = _dump(handler.run(tx, args))
                tx.result = result
            return result

    # -- helpers ----------------------------------------------------------------------
    def _listen_to_other_machines(self) -> Any:
        """A studio library: the other machines' changes as events here, and the
        database's reachability as `library.database` events (`studio.change_feed`)."""
        from library.worker.studio.change_feed import ChangeListener

        def status(reachable: bool, why: str) -> None:
            self.sender.event("library.database", {"reachable": reachable, "message": why})

        listener = ChangeListener(self.services, self.library.reader,
                                  self.library.layout.machine or "", self.sequence, status)
        listener.start()
        return listener.stop

    def _emit(self, news: LibraryNews) -> None:
        if isinstance(news, LibraryChanged):
            self.sequence = max(self.sequence, news.change_sequence)
        self.sender.send(news)

    def _vanished(self) -> bool:
        try:
            stat = self.library.marker.stat()
            gone = (stat.st_dev, stat.st_ino) != self.library.identity
        except OSError:
            gone = True
        if gone and not self._stopping.is_set():
            self._stopping.set()
            self._clean = False
            self.sender.event("library.vanished", {"reason": "The library folder is gone "
                                                   "(moved, deleted, or its drive was "
                                                   "disconnected)."})
            self._writes.put(_STOP)
        return gone

    def _reply_error(self, request_id: int, error: LibraryError) -> None:
        self.sender.send(Response(id=request_id, ok=False, change_sequence=self.sequence,
                                  error=ErrorInfo(code=error.code, message=error.message,
                                                  details=json_safe(error.details))))

    def _as_library_error(self, error: Exception, request: Request) -> LibraryError:
        if isinstance(error, LibraryError):
            return self._with_free_space(error)
        if isinstance(error, ValidationError):
            return validation_error(error)
        translated = None
        if isinstance(error, sqlite3.Error):
            translated = translate(error)
        elif isinstance(error, OSError):
            translated = translate_os(error)
        if translated is not None and translated.code != INTERNAL:
            return self._with_free_space(translated)  # busy, read-only, disk full...
        if translated is not None and translated.details.get("reason") == "disk" and \
                self._nearly_full():
            return self._with_free_space(LibraryError(DISK_FULL, translated.message))
        incident = f"inc_{secrets.token_hex(6)}"
        if translated is not None and translated.details.get("reason"):
            # a known condition of the library's disk (full, damaged): say which, and log it
            log.warning("incident %s in %s: %r", incident, request.command, error)
            return LibraryError(INTERNAL, f"{translated.message} (incident {incident})",
                                incidentId=incident, **translated.details)
        log.error("incident %s in %s: %r", incident, request.command, error, exc_info=error)
        return LibraryError(INTERNAL, f"Something went wrong inside Serpent (incident "
                            f"{incident}).", incidentId=incident)


    def _with_free_space(self, error: LibraryError) -> LibraryError:
        """A DISK_FULL without amounts gets those of the library's disk."""
        if error.code != DISK_FULL or "freeBytes" in error.details:
            return error
        return diskspace.disk_full_at(self.library.layout.root)

    def _nearly_full(self) -> bool:
        try:
            diskspace.ensure_room(self.library.layout.root)
        except LibraryError:
            return True
        return False


def validation_error(error: ValidationError) -> LibraryError:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "arguments"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    return LibraryError(INVALID_ARGUMENT, f"{field}: {message}", field=field)


def _dump(result: Any) -> dict[str, Any]:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json", by_alias=True)
    dumped: dict[str, Any] = result
    return dumped
