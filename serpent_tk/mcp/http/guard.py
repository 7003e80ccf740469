"""Who may talk to the MCP endpoint: Host and Origin checks, then the bearer token.

Runs on the listener loop (pure ASGI middleware in front of the SDK's session manager).
Order: a bad Host gets 421 (DNS rebinding), a foreign Origin 403, a missing, unknown or revoked
token 401 with a plain `WWW-Authenticate: Bearer` (no `resource_metadata`, so clients never
start an OAuth discovery); none of these keeps its connection. Then the credential's room
(`sessions.ClientRoom`): too many requests in flight, or a new session while every session the
credential may hold is busy (idle ones are reclaimed instead), get 429 with a sentence saying
which, so one client never fills the room of the others. The token is
verified on every request, so a mode change made anywhere applies to the very next request;
a revoke ends the credential's sessions and open streams within a second (`ClientRoom`). The
credential reaches the tool handlers through `current_credential()`; the SDK binds each
session to the credential id. A POST body nested too deep for the SDK's JSON parser is
flattened first (`nesting.py`), so its tool answers with the nesting limit.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serpent_tk.credentials import Credential, CredentialStore
from serpent_tk.mcp.http.connections import mark_useful
from serpent_tk.mcp.http.nesting import flattening
from serpent_tk.mcp.http.sessions import REQUESTS_PER_CREDENTIAL, ClientRoom, last_of_answer

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("127.0.0.1", "localhost")
LOOPBACK_ORIGIN_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

_credential: contextvars.ContextVar[Credential | None] = contextvars.ContextVar(
    "serpent_mcp_credential", default=None)


def current_credential() -> Credential | None:
    """The credential of the HTTP request being served (None outside a request)."""
    return _credential.get()


def allowed_hosts(port: int) -> list[str]:
    return [f"{name}:{port}" for name in LOOPBACK_NAMES]


def host_allowed(host: str | None, port: int) -> bool:
    return host is not None and host.strip().lower() in allowed_hosts(port)


def origin_allowed(origin: str | None) -> bool:
    """No Origin (not a browser) passes; a browser page must come from this computer."""
    if origin is None:
        return True
    try:
        parts = urlsplit(origin.strip())
        hostname = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and hostname in LOOPBACK_ORIGIN_HOSTS


def bearer_token(headers: Headers) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


async def _reply(send: Send, status: int, body: dict[str, object],
                 extra: list[tuple[bytes, bytes]] | None = None) -> None:
    payload = json.dumps(body).encode("utf-8")
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(payload)).encode("ascii")), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def _rpc_error(message: str) -> dict[str, object]:
    """A JSON-RPC error without an id, as the transport spec allows for HTTP-level refusals."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}


def opens_session(scope: Scope, headers: Headers) -> bool:
    """A handshake-era `initialize` POST: the one request that creates a session."""
    if scope.get("method") != "POST" or "mcp-session-id" in headers:
        return False
    version = headers.get("mcp-protocol-version")
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS


TOO_MANY_REQUESTS = (f"This credential already has {REQUESTS_PER_CREDENTIAL} requests or "
                     "streams open at once; wait for some to finish.")
TOO_MANY_SESSIONS = ("This client's credential already holds {cap} MCP sessions, the most one "
                     "credential may have, and every one of them is in the middle of a request "
                     "right now (sessions that are not are ended to make room). Wait a few "
                     "seconds and connect again, or give this client a credential of its own "
                     "in Serpent → Settings → MCP.")


class RequestGuard:
    """ASGI middleware for the `/mcp` route."""

    def __init__(self, app: ASGIApp, *, port: int, credentials: CredentialStore,
                 room: ClientRoom, max_body_bytes: int,
                 on_request: Callable[[Credential], None] | None = None) -> None:
        self.app = app
        self.port = port
        self.credentials = credentials
        self.room = room
        self.max_body_bytes = max_body_bytes
        self.on_request = on_request

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        if not host_allowed(host, self.port):
            log.warning("refused a request with Host %r (expected 127.0.0.1:%d)",
                        (host or "")[:100], self.port)
            await _reply(send, 421, _rpc_error("Invalid Host header"))
            return
        origin = headers.get("origin")
        if not origin_allowed(origin):
            log.warning("refused a request from web origin %r", (origin or "")[:100])
            await _reply(send, 403, _rpc_error("Invalid Origin header"))
            return
        token = bearer_token(headers)
        credential = self.credentials.verify(token) if token else None
        if credential is None:
            await _reply(send, 401, {
                "error": "invalid_token",
                "error_description": "Missing, unknown or revoked bearer token. Copy a fresh "
                                     "config from Serpent → Settings → MCP."},
                [(b"www-authenticate", b"Bearer")])
            return
        if self.room.busy(credential.id):
            await _reply(send, 429, _rpc_error(TOO_MANY_REQUESTS), [(b"retry-after", b"2")])
            return
        if opens_session(scope, headers) and self.room.sessions_full(credential.id):
            log.warning("refused a new session for %r: it holds the most sessions one "
                        "credential may have, all of them busy", credential.name)
            message = TOO_MANY_SESSIONS.format(cap=self.room.manager.per_credential)
            await _reply(send, 429, _rpc_error(message), [(b"retry-after", b"5")])
            return
        mark_useful(scope)
        scope["user"] = AuthenticatedUser(
            AccessToken(token="-", client_id=credential.id, scopes=[]))
        if self.on_request is not None:
            self.on_request(credential)
        started = False
        in_flight: anyio.CancelScope | None = None

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            if in_flight is not None and last_of_answer(message):
                self.room.answered(credential.id, in_flight)
            await send(message)

        if scope.get("method") == "POST":  # arguments nested too deep for the SDK's parser
            receive = flattening(receive, self.max_body_bytes)
        reset = _credential.set(credential)
        try:
            with self.room.flight(credential.id) as flight:
                in_flight = flight
                await self.app(scope, receive, watched)
            if flight.cancelled_caught and not started:  # revoked while it waited
                await _reply(send, 401, {"error": "invalid_token",
                                         "error_description": "This credential was revoked."},
                             [(b"www-authenticate", b"Bearer")])
        finally:
            _credential.reset(reset)
