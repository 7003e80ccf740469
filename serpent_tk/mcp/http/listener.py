"""The HTTP listener: a uvicorn server on its own thread and asyncio loop, bound to 127.0.0.1.

Thread-safe entry points: `start()`, `stop()` and `submit()` may be called from any thread;
everything else runs on the listener's loop. The socket is bound by us before uvicorn starts,
so a taken port is a clear `PortInUse` naming the port (never a silently dead thread), and
`--port 0` reports the real port. It listens only in `start()`: between the two the owner
publishes the endpoint file, so nobody can connect before it exists. Stopping ends open SSE
streams at once (`DrainOnShutdown`), so a stop takes well under two seconds even while
clients hold streams open. Read deadlines, the connection cap and closing the connections of
refused requests: `connections.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import threading
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import Future
from typing import Any, TypeVar

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serpent_tk.mcp.http.connections import (
    KEEP_ALIVE_S,
    MAX_CONNECTIONS,
    MAX_HEAD_BYTES,
    CloseUnlessUseful,
    GuardedH11Protocol,
)

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 2.0
T = TypeVar("T")


class PortInUse(RuntimeError):
    """Another program already listens on the MCP port."""

    def __init__(self, port: int, host: str = LOOPBACK) -> None:
        super().__init__(
            f"Port {port} on {host} is already in use by another program. Close that program "
            f"or choose another MCP port in Settings → MCP (or start with --port).")
        self.port = port
        self.host = host


class ListenerFailed(RuntimeError):
    """The server could not start for another reason (the message says which)."""


def bind_loopback(port: int, host: str = LOOPBACK) -> socket.socket:
    """A bound (not yet listening), non-blocking socket on `host:port`; `PortInUse` when
    it is taken.

    Made with protocol IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on the connections it
    accepts only for such sockets. Without it, Nagle's algorithm and the client's delayed ACK
    hold back the second write of every response (~40 ms per 2026-07-28-era call).
    """
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM,
                         socket.IPPROTO_TCP)
    if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):  # Windows: nobody may co-bind our port
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
    else:  # POSIX: rebinding right after a restart must not wait for TIME_WAIT
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE or getattr(error, "winerror", None) in (10048, 10013):
            raise PortInUse(port, host) from error
        raise ListenerFailed(f"Cannot listen on {host}:{port}: {error.strerror}") from error
    sock.setblocking(False)
    return sock


def start_listening(sock: socket.socket, port: int, host: str = LOOPBACK) -> None:
    """Accept connections on a socket from `bind_loopback`. On Linux two sockets may both
    bind a port with SO_REUSEADDR until one listens: the later one learns it here."""
    try:
        sock.listen(128)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(port, host) from error
        raise ListenerFailed(f"Cannot listen on {host}:{port}: {error.strerror}") from error


def free_port(host: str = LOOPBACK) -> int:
    """A port on `host` that is free right now (for "pick another port")."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class DrainOnShutdown:
    """After `begin_shutdown()`, `receive()` reports `http.disconnect`, so open streams end now.

    uvicorn alone waits for SSE streams to close (sse-starlette only notices shutdown through
    signal handlers, which exist on the main thread only).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._stop: asyncio.Event | None = None

    def begin_shutdown(self) -> None:
        """Call on the listener loop."""
        self._stop = self._stop or asyncio.Event()
        self._stop.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        stop = self._stop = self._stop or asyncio.Event()

        async def wrapped() -> Message:
            if stop.is_set():
                return {"type": "http.disconnect"}
            received = asyncio.ensure_future(receive())
            stopping = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({received, stopping}, return_when=asyncio.FIRST_COMPLETED)
            for pending in (received, stopping):
                pending.cancel()
            return received.result() if received in done else {"type": "http.disconnect"}

        await self.app(scope, wrapped, send)


class _DemoteAbortedResponses(logging.Filter):
    """A stream ended by a stop or a vanished client is expected, not an error."""

    MESSAGE = "ASGI callable returned without completing response."

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.getMessage() == self.MESSAGE:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


_uvicorn_log = logging.getLogger("uvicorn.error")
if not any(isinstance(f, _DemoteAbortedResponses) for f in _uvicorn_log.filters):
    _uvicorn_log.addFilter(_DemoteAbortedResponses())


class _QuietServer(uvicorn.Server):
    """uvicorn without signal handling: the process owner decides what a signal means."""

    def install_signal_handlers(self) -> None:  # older uvicorn
        return

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class Listener:
    """One run of the HTTP server. Single use: bind, `start(app)` with a new app, `stop()`."""

    def __init__(self, port: int, host: str = LOOPBACK) -> None:
        self._socket = bind_loopback(port, host)  # PortInUse raised here, in the caller
        self.host = host
        self.port: int = self._socket.getsockname()[1]
        self.loop: asyncio.AbstractEventLoop | None = None
        self.error: BaseException | None = None
        self._app: DrainOnShutdown | None = None
        self._server: _QuietServer | None = None
        self._thread = threading.Thread(target=self._run, name=f"mcp-http-{self.port}",
                                        daemon=True)
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/mcp"

    def _run(self) -> None:
        assert self._server is not None

        async def main() -> None:
            assert self._server is not None
            self.loop = asyncio.get_running_loop()
            await self._server.serve(sockets=[self._socket])

        try:
            asyncio.run(main())
        except BaseException as error:  # startup failure surfaces as SystemExit from uvicorn
            self.error = error
            log.error("MCP listener stopped with %s", type(error).__name__, exc_info=error)
        finally:
            self._socket.close()
            self._stopped.set()

    def start(self, app: ASGIApp, timeout: float = START_TIMEOUT_S) -> int:
        """Listen, then serve `app` in the background; returns the port once requests are
        accepted. `PortInUse` when another socket started listening on the port first."""
        start_listening(self._socket, self.port, self.host)
        self._app = DrainOnShutdown(CloseUnlessUseful(app))
        config = uvicorn.Config(self._app, log_config=None, access_log=False, lifespan="on",
                                http=GuardedH11Protocol, timeout_graceful_shutdown=1,
                                timeout_keep_alive=KEEP_ALIVE_S,
                                h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                                limit_concurrency=MAX_CONNECTIONS + 16,
                                log_level=logging.WARNING)
        self._server = _QuietServer(config)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ListenerFailed(f"The MCP server failed to start ({self.error!r}).")
            time.sleep(0.01)
        return self.port

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._stopped.is_set()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Run `coro` on the listener loop. Thread-safe."""
        if self.loop is None:
            coro.close()
            raise RuntimeError("the MCP listener is not running")
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> bool:
        """Stop serving; True when the thread ended. Thread-safe, idempotent."""
        if not self._thread.is_alive():
            if self._thread.ident is None:  # never started: just give the port back
                self._socket.close()
                self._stopped.set()
            return True
        assert self._server is not None and self._app is not None
        if self.loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed
                self.loop.call_soon_threadsafe(self._app.begin_shutdown)
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)
        return not self._thread.is_alive()
