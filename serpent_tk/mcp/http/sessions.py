"""Room for every client: sessions and requests counted per credential, and cut when it goes.

Runs on the listener loop. The SDK's session manager knows one global `max_sessions`, so one
credential could fill it and lock every other client out. Here:

- `CountedSessionManager` is the SDK's manager knowing whose each handshake-era session is (the
  SDK binds a session to `scope["user"]`, which the guard sets to the credential id): a
  credential opens at most `SESSIONS_PER_CREDENTIAL`, all credentials together `MAX_SESSIONS`;
  an idle session (no request in flight and no open GET stream) ends after
  `SESSION_IDLE_TIMEOUT_S`; an open GET stream holds its session, which the per-credential
  cap bounds.
- `ClientRoom` counts each credential's requests in flight (open streams included: at most
  `REQUESTS_PER_CREDENTIAL`) and, every `REVOKE_POLL_S`, compares the live credentials with
  those holding sessions or requests: a revoked one has its sessions ended and its requests
  (GET and listen streams, calls) cut at once, not at its next request.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger(__name__)

SESSIONS_PER_CREDENTIAL = 16
MAX_SESSIONS = 128
REQUESTS_PER_CREDENTIAL = 32
SESSION_IDLE_TIMEOUT_S = 15 * 60
REVOKE_POLL_S = 1.0


class CountedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, counting sessions per credential.

    PRIVATE SDK API (mcp 2.3.0 has no public hook): overrides `_admit_session` (called under
    the SDK's creation lock, so the count is exact) and `_discard_session` (however a session
    ends: DELETE, idle timeout, crash, a refused opening request), and reads
    `_server_instances` to end a session. `tests/mcp/hostile/test_session_flood.py` fails if
    the SDK moves them.
    """

    def __init__(self, *args: Any, per_credential: int = SESSIONS_PER_CREDENTIAL,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.per_credential = per_credential
        self.owners: dict[str, str] = {}  # session id -> credential id

    def sessions_of(self, credential_id: str) -> int:
        return sum(1 for owner in self.owners.values() if owner == credential_id)

    def holders(self) -> set[str]:
        return set(self.owners.values())

    def _admit_session(self, requestor: AuthorizationContext | None
                       ) -> StreamableHTTPServerTransport | None:
        owner = requestor["client_id"] if requestor is not None else None
        if owner is not None and self.sessions_of(owner) >= self.per_credential:
            return None
        transport = super()._admit_session(requestor)
        if transport is not None and owner is not None and transport.mcp_session_id:
            self.owners[transport.mcp_session_id] = owner
        return transport

    async def _discard_session(self, session_id: str,
                               transport: StreamableHTTPServerTransport) -> None:
        self.owners.pop(session_id, None)
        await super()._discard_session(session_id, transport)

    async def end_sessions_of(self, credential_ids: set[str]) -> int:
        """End every session of these credentials now (their GET streams close)."""
        ended = 0
        for session_id, owner in list(self.owners.items()):
            if owner not in credential_ids:
                continue
            transport = self._server_instances.get(session_id)
            self.owners.pop(session_id, None)
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
        return self.manager.sessions_of(credential_id) >= self.manager.per_credential

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
