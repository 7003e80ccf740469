"""Room for every client: sessions and requests counted per credential, and cut when it goes.

Runs on the listener loop. The SDK's session manager knows one global `max_sessions`, so one
credential could fill it and lock every other client out. Here:

- `CountedSessionManager` is the SDK's manager knowing whose each handshake-era session is (the
  SDK binds a session to `scope["user"]`, which the guard sets to the credential id) and how
  each is used. A credential holds at most `SESSIONS_PER_CREDENTIAL`, all credentials together
  `MAX_SESSIONS`. Many clients (Claude Code, Gemini CLI, the TypeScript SDK in the 2025 era)
  never send `DELETE`: every start leaves a session behind. So a new session beyond the bound
  first reclaims the credential's least recently used *idle* session (at the global bound: of
  the credential holding the most), and only when every one of them is busy is it refused.
  Busy means a request is being served (a POST or DELETE, the opening `initialize` included)
  until its answer's last byte is handed over: a client that starts anew on that answer finds
  the session idle.
  An open GET stream alone is not busy: a client that abandons its session may keep that
  stream open, and a live client whose session is reclaimed just starts a new one (its next
  request gets 404, which the protocol says means exactly that). Sessions without an open
  stream go first, then those with one, each least recently used first.
  An idle session (no request in flight and no open GET stream) also ends by itself after
  `SESSION_IDLE_TIMEOUT_S`. Each session gets an event store of its own (`event_store.py`).
- `ClientRoom` counts each credential's requests in flight (open streams included: at most
  `REQUESTS_PER_CREDENTIAL`) and, every `REVOKE_POLL_S`, compares the live credentials with
  those holding sessions or requests: a revoked one has its sessions ended and its requests
  (GET and listen streams, calls) cut at once, not at its next request.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Message, Receive, Scope, Send

from serpent_tk.mcp.http.event_store import RecentEvents

log = logging.getLogger(__name__)

SESSIONS_PER_CREDENTIAL = 16
MAX_SESSIONS = 128
REQUESTS_PER_CREDENTIAL = 32
SESSION_IDLE_TIMEOUT_S = 15 * 60
REVOKE_POLL_S = 1.0
_SESSION_HEADER = MCP_SESSION_ID_HEADER.lower().encode("ascii")


@dataclass
class SessionUse:
    """How one session is used right now (listener loop only)."""

    owner: str | None
    calls: int = 1  # requests being served; it starts with its opening `initialize`
    streams: int = 0  # open GET streams
    last: float = field(default_factory=time.monotonic)  # a request began or ended

    @property
    def busy(self) -> bool:
        return self.calls > 0

    def reclaim_order(self) -> tuple[int, float]:
        """Smaller goes first: no open stream before an open one, then the least recent."""
        return (1 if self.streams else 0, self.last)


def last_of_answer(message: Message) -> bool:
    """Is this ASGI message the answer's last byte? (Sent before the client can read it.)"""
    return message["type"] == "http.response.body" and not message.get("more_body")


class _Call:
    """One request being served in a session: it stops counting as busy exactly once, when
    its response's last byte is handed over (before the client can read it, so a client that
    starts anew on that answer always finds the session idle) or when the request ends."""

    def __init__(self, use: SessionUse | None = None) -> None:
        self.use = use  # an opening request learns its session in `_admit_session`
        self.done = False

    def finish(self) -> None:
        if self.use is not None and not self.done:
            self.done = True
            self.use.calls -= 1
            self.use.last = time.monotonic()

    def watching(self, send: Send) -> Send:
        async def watched(message: Message) -> None:
            if last_of_answer(message):
                self.finish()
            await send(message)
        return watched


# the request the current opening request is (same task: see handle_request)
_opening: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "serpent_opening_call", default=None)


class CountedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, counting and reclaiming sessions per credential.

    PRIVATE SDK API (mcp 2.3.0 has no public hook): overrides `_admit_session` (called under
    the SDK's creation lock, in the task of the opening request, so the count is exact) and
    `_discard_session` (however a session ends: DELETE, idle timeout, crash, a refused
    opening request), and reads `_server_instances` / `_session_owners` to end a session.
    `tests/mcp/hostile/test_session_flood.py` fails if the SDK moves them.
    """

    def __init__(self, *args: Any, per_credential: int = SESSIONS_PER_CREDENTIAL,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.per_credential = per_credential
        self.uses: dict[str, SessionUse] = {}  # session id -> its owner and use
        self.reclaimed = 0  # sessions ended to make room (for the log and tests)

    def sessions_of(self, credential_id: str) -> int:
        return sum(1 for use in self.uses.values() if use.owner == credential_id)

    def holders(self) -> set[str]:
        return {use.owner for use in self.uses.values() if use.owner is not None}

    def has_room(self, credential_id: str) -> bool:
        """Can `credential_id` open a session now (at most by reclaiming an idle one)?"""
        if self.sessions_of(credential_id) < self.per_credential:
            return True
        return any(not use.busy for use in self.uses.values() if use.owner == credential_id)

    # -- serving ----------------------------------------------------------------------------

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request, keeping the use of its session up to date."""
        session_id = next((v.decode("latin-1") for k, v in scope.get("headers", ())
                           if k == _SESSION_HEADER), None)
        use = self.uses.get(session_id) if session_id is not None else None
        if use is None:  # opening a session (or an unknown one: 404)
            call = _Call()
            reset = _opening.set(call)
            try:
                await super().handle_request(scope, receive, call.watching(send))
            finally:
                _opening.reset(reset)
                call.finish()
            return
        stream = scope.get("method") == "GET"
        if stream:
            use.streams += 1
            use.last = time.monotonic()
            try:
                await super().handle_request(scope, receive, send)
            finally:
                use.streams -= 1
                use.last = time.monotonic()
            return
        use.calls += 1
        use.last = time.monotonic()
        call = _Call(use)
        try:
            await super().handle_request(scope, receive, call.watching(send))
        finally:
            call.finish()

    def _admit_session(self, requestor: AuthorizationContext | None
                       ) -> StreamableHTTPServerTransport | None:
        owner = requestor["client_id"] if requestor is not None else None
        if owner is not None and self.sessions_of(owner) >= self.per_credential:
            self._reclaim({owner})
            if self.sessions_of(owner) >= self.per_credential:
                return None  # every one of them is busy
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._reclaim(self._biggest_holders())
        self.event_store = RecentEvents()  # each session its own: ids and streams never mix
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id:
            use = SessionUse(owner)
            self.uses[transport.mcp_session_id] = use
            opening = _opening.get()
            if opening is not None:
                opening.use = use
        return transport

    def _biggest_holders(self) -> set[str]:
        """The credentials holding the most sessions (whose idle ones go at the global cap)."""
        counts: dict[str, int] = {}
        for use in self.uses.values():
            if use.owner is not None:
                counts[use.owner] = counts.get(use.owner, 0) + 1
        most = max(counts.values(), default=0)
        return {owner for owner, count in counts.items() if count == most}

    def _reclaim(self, owners: set[str]) -> bool:
        """End the least recently used idle session of `owners` now; False if none is idle.

        Synchronous (under the creation lock): the session is forgotten at once, so it no
        longer counts and its id answers 404; its transport ends in the background (which
        closes its GET stream)."""
        idle = [(use.reclaim_order(), session_id) for session_id, use in self.uses.items()
                if use.owner in owners and not use.busy]
        if not idle:
            return False
        _order, session_id = min(idle)
        self.uses.pop(session_id, None)
        self._session_owners.pop(session_id, None)
        transport = self._server_instances.pop(session_id, None)
        self.reclaimed += 1
        log.info("reclaimed an idle MCP session to make room for a new one")
        if transport is not None:
            if transport.idle_scope is not None:
                transport.idle_scope.cancel()  # ends the session's server task as well
            if self._task_group is not None:
                self._task_group.start_soon(self._discard_session, session_id, transport)
        return True

    async def _discard_session(self, session_id: str,
                               transport: StreamableHTTPServerTransport) -> None:
        self.uses.pop(session_id, None)
        await super()._discard_session(session_id, transport)

    async def end_sessions_of(self, credential_ids: set[str]) -> int:
        """End every session of these credentials now (their GET streams close)."""
        ended = 0
        for session_id, use in list(self.uses.items()):
            if use.owner not in credential_ids:
                continue
            transport = self._server_instances.get(session_id)
            self.uses.pop(session_id, None)
            if transport is None:
                continue
            if transport.idle_scope is not None:
                transport.idle_scope.cancel()  # ends the session's server task as well
            await self._discard_session(session_id, transport)
            ended += 1
        return ended


class ClientRoom:
    """Requests in flight per credential, and cutting off revoked credentials."""

    def __init__(self, manager: CountedSessionManager,
                 live_credentials: Callable[[], set[str]]) -> None:
        self.manager = manager
        self._live_credentials = live_credentials  # blocking (reads the credential file)
        self._flights: dict[str, set[anyio.CancelScope]] = {}

    def busy(self, credential_id: str) -> bool:
        return len(self._flights.get(credential_id, ())) >= REQUESTS_PER_CREDENTIAL

    def sessions_full(self, credential_id: str) -> bool:
        """Every session the credential may hold is open and busy: a new one is refused."""
        return not self.manager.has_room(credential_id)

    @contextlib.contextmanager
    def flight(self, credential_id: str) -> Iterator[anyio.CancelScope]:
        """Wrap one request: the scope is cancelled when the credential is revoked."""
        scope = anyio.CancelScope()
        flights = self._flights.setdefault(credential_id, set())
        flights.add(scope)
        try:
            with scope:
                yield scope
        finally:
            self.answered(credential_id, scope)

    def answered(self, credential_id: str, scope: anyio.CancelScope) -> None:
        """The request no longer counts: its answer's last byte is handed over (so a client
        sending its next request on that answer is never refused), or it ended."""
        flights = self._flights.get(credential_id)
        if flights is not None:
            flights.discard(scope)
            if not flights:
                self._flights.pop(credential_id, None)

    async def cut(self, credential_ids: set[str]) -> None:
        """End the sessions and cancel the requests of these credentials."""
        for credential_id in credential_ids:
            for scope in list(self._flights.get(credential_id, ())):
                scope.cancel()
        ended = await self.manager.end_sessions_of(credential_ids)
        if ended:
            log.info("ended %d MCP session(s) of a revoked credential", ended)

    async def watch_revocations(self) -> None:
        """Run for the server's lifetime: cut credentials that are no longer live."""
        while True:
            await anyio.sleep(REVOKE_POLL_S)
            holders = self.manager.holders() | set(self._flights)
            if not holders:
                continue
            try:
                live = await anyio.to_thread.run_sync(self._live_credentials)
            except Exception as error:  # a locked or broken file: look again next time
                log.warning("could not check for revoked credentials: %s", error)
                continue
            gone = holders - live
            if gone:
                await self.cut(gone)
