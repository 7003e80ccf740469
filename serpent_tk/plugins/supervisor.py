"""One plugin's host process as the main process sees it: start it, ask it, time it, restart
it, stop it.

Main process; thread-safe. `start()` spawns the host (multiprocessing spawn, like the library
workers) and waits, within a time limit, for its declarations. `invoke()` never blocks: it
returns a future, which a reader thread resolves from the host's answer; the plugin's API
calls arriving meanwhile go to `on_api` (the gateway), and their time does not count against
the invocation's limit. An exception the plugin raises in one call is that call's error
(`PLUGIN_FAILED` with the plugin's message; the trace goes to the log) and nothing more. A
call that does not answer within its limit fails with `PLUGIN_FAILED`, and a host process
that dies fails what waits for it and is started again (same declarations, or it is off);
each of these two counts as a strike, and `Strikes.allowed` strikes within
`Strikes.window_s` (3 in 10 minutes) turn the plugin off: reported once to `on_failure`
(called on the reader thread; it must not block), which tells the person and the log.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from library.errors import INTERNAL, PLUGIN_FAILED, WORKER_UNAVAILABLE, LibraryError
from serpent_tk.automation.hooks import Veto
from serpent_tk.plugins.discovery import Found
from serpent_tk.plugins.wire import (
    ApiCall,
    ApiReply,
    Declaration,
    Done,
    Failure,
    Invoke,
    Kind,
    Loaded,
    LoadFailed,
    Log,
    Stop,
    _Wire,
    decode_from_host,
    encode,
)

log = logging.getLogger("serpent.plugins")

Reply = Callable[[dict[str, Any]], None]
ApiHandler = Callable[[ApiCall, Reply], None]  # must not block: answer through `reply`
STOP_WAIT_S = 3.0


@dataclass(frozen=True)
class Strikes:
    """How many crashes (its process died) and timeouts (a call past its limit) a plugin may
    have within `window_s` before it is turned off. An exception in a call is no strike."""

    allowed: int = 3
    window_s: float = 600.0


DEFAULT_STRIKES = Strikes()


class PluginFailed(Exception):
    """The plugin could not be started or stopped working; the message is for people."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class _Waiting:
    future: Future[dict[str, Any]]
    what: str  # "command make", "will-hook guard", for messages
    timeout_s: float
    deadline: float
    api_started: dict[int, float] = field(default_factory=dict)


class PluginProcess:
    """The host process of one plugin. Thread-safe."""

    def __init__(self, found: Found, *, on_api: ApiHandler, on_failure: Callable[[str], None],
                 load_timeout_s: float, strikes: Strikes = DEFAULT_STRIKES) -> None:
        self.found = found
        self.title = f"“{found.name}”"
        self._on_api = on_api
        self._on_failure = on_failure
        self._load_timeout_s = load_timeout_s
        self._strikes = strikes
        self._struck: deque[float] = deque()  # when each recent crash or timeout happened
        self._declaration: Declaration | None = None
        self._restarting = False
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: dict[int, _Waiting] = {}
        self._process: Any = None
        self._conn: Connection | None = None
        self._reader: threading.Thread | None = None
        self._ended = False  # stopped, or failed: nothing more is asked or reported

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> Declaration:
        """Spawn the host and wait for its declarations (blocking; never on the Tk thread)."""
        declaration = self._spawn()
        self._declaration = declaration
        self._reader = threading.Thread(target=self._read, daemon=True,
                                        name=f"plugin-{self.found.id}-reader")
        self._reader.start()
        return declaration

    def _spawn(self) -> Declaration:
        from serpent_tk.plugins.host.process import host_main

        assert self.found.manifest is not None
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe(duplex=True)
        source = {"manifest": self.found.manifest.model_dump(mode="json"),
                  "path_entry": self.found.path_entry}
        process = context.Process(target=host_main, args=(child, source), daemon=True,
                                  name=f"serpent-plugin-{self.found.id}")
        process.start()
        child.close()
        with self._lock:
            self._process, self._conn = process, parent
        try:
            first = self._first_message(process, parent)
        except PluginFailed:
            self._kill()
            raise
        return first.declaration

    def _first_message(self, process: Any, conn: Connection) -> Loaded:
        deadline = time.monotonic() + self._load_timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PluginFailed(f"it did not finish loading within "
                                   f"{self._load_timeout_s:g} s")
            ready = wait([conn, process.sentinel], remaining)
            if conn in ready or (ready and conn.poll(0)):
                try:
                    message = decode_from_host(conn.recv_bytes())
                except (EOFError, OSError):
                    message = None
                if isinstance(message, Loaded):
                    return message
                if isinstance(message, LoadFailed):
                    if message.trace:
                        log.warning("plugin %s could not be loaded:\n%s", self.found.id,
                                    message.trace)
                    raise PluginFailed(message.message)
                if isinstance(message, Log):
                    self._log_line(message)
                    continue
            if process.sentinel in ready:
                process.join(1)
                raise PluginFailed(f"its process stopped while loading (exit code "
                                   f"{process.exitcode})")

    def stop(self) -> None:
        """Turn the host off (what still waits for it fails). Idempotent."""
        with self._lock:
            self._ended = True
            stranded = list(self._waiting.values())
            self._waiting.clear()
        for waiting in stranded:
            _fail(waiting.future, LibraryError(WORKER_UNAVAILABLE, f"The plugin {self.title} "
                                               "was turned off.", retryable=True))
        self._send(Stop())
        if self._process is not None:
            self._process.join(STOP_WAIT_S)
        self._kill()
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(STOP_WAIT_S)

    def _kill(self) -> None:
        process = self._process
        if process is not None and process.is_alive():
            process.kill()
            process.join(STOP_WAIT_S)
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()

    @property
    def running(self) -> bool:
        """Still answering (not stopped, not failed)."""
        with self._lock:
            return not self._ended

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # -- asking -----------------------------------------------------------------------------

    def invoke(self, kind: Kind, name: str, library_id: str | None,
               payload: dict[str, Any], timeout_s: float) -> Future[dict[str, Any]]:
        """Ask the host to run `name`; the future holds its result (a dict)."""
        future: Future[dict[str, Any]] = Future()
        what = {"command": "command", "plan": "plan of", "will": "will-hook",
                "did": "did-hook", "analyse": "analyser"}[kind] + f" {name}"
        with self._lock:
            if self._ended or self._restarting:
                _fail(future, LibraryError(WORKER_UNAVAILABLE, f"The plugin {self.title} is "
                                           + ("being started again; try again in a moment."
                                              if not self._ended else "not running."),
                                           retryable=True))
                return future
            invoke_id = next(self._ids)
            self._waiting[invoke_id] = _Waiting(future, what, timeout_s,
                                                time.monotonic() + timeout_s)
        self._send(Invoke(id=invoke_id, kind=kind, name=name, library_id=library_id,
                          payload=payload))
        return future

    def _send(self, message: _Wire) -> None:
        data = encode(message)
        with self._send_lock, contextlib.suppress(OSError, EOFError, ValueError,
                                                  AttributeError):
            assert self._conn is not None
            self._conn.send_bytes(data)

    # -- the reader thread --------------------------------------------------------------

    def _read(self) -> None:
        while True:
            with self._lock:
                if self._ended:
                    return
                conn, process = self._conn, self._process
                deadlines = [w.deadline for w in self._waiting.values() if not w.api_started]
            assert conn is not None and process is not None
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else 1.0
            try:
                ready = wait([conn, process.sentinel], timeout)
            except OSError:
                ready = [process.sentinel]
            if conn in ready:
                try:
                    self._handle(decode_from_host(conn.recv_bytes()))
                    continue
                except (EOFError, OSError):
                    ready = [process.sentinel]
            if process.sentinel in ready:
                process.join(1)
                if not self._died(f"its process stopped unexpectedly (exit code "
                                  f"{process.exitcode})"):
                    return
                continue
            late = self._overdue()
            if late is not None and not self._timed_out(late):
                return

    def _overdue(self) -> _Waiting | None:
        """The first call past its limit, no longer waited for."""
        now = time.monotonic()
        with self._lock:
            for invoke_id, waiting in self._waiting.items():
                if not waiting.api_started and waiting.deadline <= now:
                    return self._waiting.pop(invoke_id)
        return None

    def _strike(self, reason: str) -> bool:
        """Count a crash or a timeout; True when it is one too many (the plugin goes off)."""
        now = time.monotonic()
        with self._lock:
            self._struck.append(now)
            while self._struck and self._struck[0] <= now - self._strikes.window_s:
                self._struck.popleft()
            count = len(self._struck)
        log.warning("plugin %s: %s (%d of %d crashes or timeouts allowed within %g s)",
                    self.found.id, reason, count, self._strikes.allowed, self._strikes.window_s)
        return count >= self._strikes.allowed

    def _timed_out(self, late: _Waiting) -> bool:
        """A call past its limit fails; False when that turned the plugin off."""
        reason = f"its {late.what} did not answer within {late.timeout_s:g} s"
        if self._strike(reason):
            _fail(late.future, self._turned_off_error(reason))
            self._failed(reason, already_logged=True)
            return False
        _fail(late.future, LibraryError(
            PLUGIN_FAILED, f"The plugin {self.title} did not answer within "
                           f"{late.timeout_s:g} s (its {late.what}).", reason="timeout"))
        return True

    def _died(self, reason: str) -> bool:
        """The host process died: what waited fails, and it is started again unless that was
        one crash or timeout too many. False when the plugin is off."""
        if self._strike(reason):
            self._failed(reason, already_logged=True)
            return False
        with self._lock:
            if self._ended:
                return False
            stranded = list(self._waiting.values())
            self._waiting.clear()
            self._restarting = True
        for waiting in stranded:
            _fail(waiting.future, LibraryError(
                PLUGIN_FAILED, f"The plugin {self.title} stopped working ({reason}) during its "
                               f"{waiting.what}; it is being started again.", reason="crashed"))
        self._kill()
        problem: str | None = None
        try:
            if self._spawn() != self._declaration:
                problem = "it declared other commands or hooks when it was started again"
        except PluginFailed as error:
            problem = f"it stopped and could not be started again: {error.message}"
        with self._lock:
            self._restarting = False
            ended = self._ended
        if ended or problem is not None:
            self._kill()
            if problem is not None:
                self._failed(problem)
            return False
        log.warning("plugin %s was started again (pid %s)", self.found.id, self.pid)
        return True

    def _handle(self, message: Any) -> None:
        if isinstance(message, Done):
            with self._lock:
                waiting = self._waiting.pop(message.id, None)
            if waiting is None:
                return
            if message.failure is None:
                waiting.future.set_result(message.result or {})
            elif message.failure.raised:
                self._raised(waiting, message.failure)
            elif message.failure.vetoed:
                _fail(waiting.future, Veto(message.failure.message))
            else:
                _fail(waiting.future, LibraryError(message.failure.code,
                                                   message.failure.message,
                                                   **message.failure.details))
        elif isinstance(message, ApiCall):
            self._api(message)
        elif isinstance(message, Log):
            self._log_line(message)

    def _api(self, call: ApiCall) -> None:
        started = time.monotonic()
        with self._lock:
            waiting = self._waiting.get(call.invoke_id)
            if waiting is not None:
                waiting.api_started[call.id] = started

        def reply(envelope: dict[str, Any]) -> None:
            with self._lock:
                if waiting is not None and waiting.api_started.pop(call.id, None) is not None:
                    waiting.deadline += time.monotonic() - started  # its clock stood still
            self._send(ApiReply(id=call.id, envelope=envelope))

        try:
            self._on_api(call, reply)
        except Exception as error:  # never strand the plugin's thread
            log.exception("the API call %s of plugin %s failed", call.command, self.found.id)
            reply({"status": "error", "error": {"code": INTERNAL, "message": str(error)}})

    def _raised(self, waiting: _Waiting, failure: Failure) -> None:
        """An exception in the plugin's code: that call's error, nothing more."""
        log.warning("plugin %s raised in its %s: %s\n%s", self.found.id, waiting.what,
                    failure.message, failure.trace)
        _fail(waiting.future, LibraryError(
            PLUGIN_FAILED, f"The plugin {self.title} failed: {failure.message}",
            reason="raised"))

    def _turned_off_error(self, reason: str) -> LibraryError:
        return LibraryError(PLUGIN_FAILED, f"The plugin {self.title} stopped working ({reason}) "
                            "and was turned off.", reason="turned-off")

    def _failed(self, reason: str, *, already_logged: bool = False) -> None:
        """The plugin stopped working for good: fail what waits, end the host, report it once."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
            stranded = list(self._waiting.values())
            self._waiting.clear()
        if not already_logged:
            log.error("plugin %s stopped working: %s", self.found.id, reason)
        for waiting in stranded:
            _fail(waiting.future, self._turned_off_error(reason))
        self._kill()
        try:
            self._on_failure(reason)
        except Exception:
            log.exception("reporting the failure of plugin %s failed", self.found.id)

    def _log_line(self, message: Log) -> None:
        level = getattr(logging, message.level, logging.INFO)
        logging.getLogger(f"serpent.plugins.{self.found.id}").log(level, "%s", message.message)


def _fail(future: Future[dict[str, Any]], error: BaseException) -> None:
    with contextlib.suppress(Exception):
        future.set_exception(error)
