"""Connection limits of the listener: read deadlines, a connection cap, and closing what is useless.

Runs on the listener loop (uvicorn's protocol callbacks and ASGI middleware). uvicorn alone
keeps a connection that sends one header byte every two seconds forever (its keep-alive timer
only runs between requests, and every byte stops it), and it caps nothing but concurrent
requests. `GuardedH11Protocol` (uvicorn's h11 protocol, plus):

- a request head must be complete `HEAD_TIMEOUT_S` after the connection opened or after the
  first byte of the next request on a kept-alive connection, and a body `BODY_TIMEOUT_S` after
  its head; otherwise the connection is closed (408 when nothing else was said on it);
- at most `MAX_CONNECTIONS` connections: a new one beyond that closes the connection that has
  waited longest for a request head (a slow or idle one), so slow connections never keep a
  working client out; only when every connection is busy is the newcomer refused (503).

`CloseUnlessUseful` (ASGI middleware) answers every request that did not authenticate, or prove
the server to the bridge, with `Connection: close`, so a refused client holds no connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import h11
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEAD_TIMEOUT_S = 5.0
BODY_TIMEOUT_S = 15.0  # 2 MiB at most (the body limit), on this computer's loopback
KEEP_ALIVE_S = 30  # idle between requests (the bridge reuses connections for 25 s)
MAX_CONNECTIONS = 200
MAX_HEAD_BYTES = 16 * 1024
USEFUL = "serpent.useful"  # set in the scope by the guard and the identify endpoint

_TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
_FULL_BODY = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32603, "message": "Too many connections to Serpent right now; try again."}}).encode()
_FULL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
         b"connection: close\r\ncontent-length: " + str(len(_FULL_BODY)).encode() + b"\r\n\r\n"
         + _FULL_BODY)


def mark_useful(scope: Scope) -> None:
    """This request authenticated (or proved the server): its connection may be kept."""
    scope[USEFUL] = True


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with read deadlines and the connection cap (module docstring)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._phase: str | None = None
        self._waiting_since: float | None = None
        super().connection_made(transport)
        self._waiting_since = self.loop.time()
        if len(self.connections) > MAX_CONNECTIONS and not self._evict_one():
            log.warning("refused a connection: %d connections are open, all of them busy",
                        len(self.connections) - 1)
            transport.write(_FULL)
            transport.close()
            return
        self._arm(HEAD_TIMEOUT_S, "head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._waiting_since = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._phase is None and self.conn.their_state is h11.IDLE:
            self._arm(HEAD_TIMEOUT_S, "head")  # the next request on a kept-alive connection
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._waiting_since = self.loop.time()  # idle: uvicorn's keep-alive timer runs
        self._follow()

    # -- internals --------------------------------------------------------------------------

    def _follow(self) -> None:
        """Move the deadline along with what the client has sent so far."""
        state = self.conn.their_state
        if state is h11.IDLE:
            return  # (still) waiting for a complete head
        self._waiting_since = None
        if state is h11.SEND_BODY:
            if self._phase != "body":
                self._arm(BODY_TIMEOUT_S, "body")
        else:
            self._disarm()

    def _arm(self, seconds: float, phase: str) -> None:
        self._disarm()
        self._phase = phase
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._phase = None

    def _expired(self) -> None:
        phase, self._deadline, self._phase = self._phase, None, None
        if self.transport.is_closing():
            return
        if phase == "head" and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(_TIMED_OUT)
        self.transport.close()

    def _evict_one(self) -> bool:
        """Close the connection that has waited longest for a request head; False if none."""
        waiting: list[Any] = [c for c in self.connections
                              if c is not self and isinstance(c, GuardedH11Protocol)
                              and c._waiting_since is not None
                              and not c.transport.is_closing()]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c._waiting_since)
        oldest._disarm()
        oldest._waiting_since = None
        oldest.transport.close()
        return True


class CloseUnlessUseful:
    """ASGI middleware: `Connection: close` on every answer to a request that did not
    authenticate (or prove the server to the bridge): 401, 403, 421, 404..."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_closing(message: Message) -> None:
            if message["type"] == "http.response.start" and not scope.get(USEFUL):
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, send_closing)
