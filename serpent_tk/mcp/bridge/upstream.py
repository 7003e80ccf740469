"""The bridge's side towards Serpent: one stdio client's messages POSTed to the running Serpent.

Runs on the bridge's asyncio loop. Serpent is found only through the endpoint file this user's
running Serpent publishes, and the token goes only over connections whose peer proved it is that
Serpent (`verified_http`); anything else is `NotRunning`. JSON and SSE answers go to a sink (the
client's stdout, or the bridge itself for its own requests); after `notifications/initialized`
a GET stream carries the server's own notifications. When Serpent restarted (on the same or
another port), the client's `initialize` (and `notifications/initialized`, and its last
`logging/setLevel`) is replayed on the new run; a 401 makes it look again too before it blames
the credential.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2
from httpx2 import EventSource
from mcp.shared.inbound import encode_header_value
from mcp_types import PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serpent_tk.mcp.bridge.standin import OWN_ID
from serpent_tk.mcp.bridge.verified_http import NotSerpent, verified_client
from serpent_tk.mcp.endpoint import Endpoint

log = logging.getLogger(__name__)

REFUSED = -32001
UPSTREAM = -32603
RETRY_DELAYS_S = (0.5, 1.0, 2.0, 5.0)
NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
REFUSED_MESSAGE = ("Serpent refused this client's credential: it was revoked or is wrong. "
                   "In Serpent → Settings → MCP create a credential, copy the Claude Desktop "
                   "config again, and restart this client.")

Sink = Callable[[dict[str, Any]], None]


class NotRunning(Exception):
    """No published Serpent, or the published one does not answer (or is not Serpent): the
    message reached no Serpent."""


class Interrupted(Exception):
    """Serpent went away in the middle of its answer: whether the request took effect is
    unknown."""


class SessionGone(Exception):
    """Serpent answered 404 for our session and it could not be renewed."""


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Unauthorized(Refused):
    """Serpent answered 401: the token is unknown or revoked (once it was looked for again)."""


def modern_version(message: dict[str, Any]) -> str | None:
    """The 2026-07-28-era protocol version a request carries in its `_meta`, if any."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    return version if version in MODERN_PROTOCOL_VERSIONS else None


@dataclass
class _Link:
    """The verified HTTP pool to one published endpoint; replaced when Serpent moves on."""

    endpoint: Endpoint
    http: httpx2.AsyncClient


class Upstream:
    """Serpent's MCP endpoint, for one stdio client."""

    def __init__(self, locate: Callable[[], Endpoint | None], token: str, write: Sink, *,
                 on_renewed: Callable[[], None], timeout_s: float = 30.0) -> None:
        self.locate = locate
        self._token = token
        self._write = write
        self._on_renewed = on_renewed
        self._timeout = httpx2.Timeout(timeout_s, read=None)
        self._link_now: _Link | None = None
        self._old_links: list[_Link] = []  # closed when the bridge ends
        self._get_task: asyncio.Task[None] | None = None
        self._renew_lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self.session_id: str | None = None
        self.protocol_version: str | None = None  # negotiated by initialize (handshake era)
        self.initialize: dict[str, Any] | None = None  # the client's, replayed on a new run
        self.initialized_sent = False
        self.set_level: dict[str, Any] | None = None  # the client's last, replayed too

    # -- plumbing ---------------------------------------------------------------------------

    def _link(self) -> _Link:
        """The pool to the published Serpent; `NotRunning` when none is published."""
        if self._link_now is None:
            endpoint = self.locate()
            if endpoint is None:
                raise NotRunning()
            http = verified_client(
                lambda port: endpoint.secret if port == endpoint.port else None, self._timeout)
            self._link_now = _Link(endpoint, http)
        return self._link_now

    def _drop(self, link: _Link) -> None:
        """Stop using `link`: the next request reads the endpoint file and verifies again."""
        if self._link_now is link:
            self._link_now = None
            self._old_links.append(link)

    def _moved_on(self, link: _Link) -> bool:
        """After `link` failed: does the endpoint file now name another run of Serpent?"""
        self._drop(link)
        fresh = self.locate()
        return fresh is not None and fresh != link.endpoint

    def _headers(self, message: dict[str, Any] | None = None) -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream",
                   "content-type": "application/json",
                   "authorization": f"Bearer {self._token}"}
        if self.session_id:
            headers["mcp-session-id"] = self.session_id
        modern = modern_version(message) if message is not None else None
        if message is not None and modern is not None:  # 2026 era: stamp the routing headers
            method = message.get("method")
            headers["mcp-protocol-version"] = modern
            if isinstance(method, str):
                headers["mcp-method"] = method
                key = NAME_PARAMS.get(method)
                name = (message.get("params") or {}).get(key) if key else None
                if isinstance(name, str):
                    headers["mcp-name"] = encode_header_value(name)
        elif self.protocol_version and message is not None and \
                message.get("method") != "initialize":
            headers["mcp-protocol-version"] = self.protocol_version
        return headers

    async def close(self) -> None:
        if self._get_task is not None:
            self._get_task.cancel()
            await asyncio.gather(self._get_task, return_exceptions=True)
        link = self._link_now
        if self.session_id and link is not None:
            with contextlib.suppress(httpx2.HTTPError):
                await link.http.delete(link.endpoint.url, headers=self._headers(), timeout=2.0)
        for each in [*self._old_links, *([link] if link else [])]:
            with contextlib.suppress(httpx2.HTTPError, RuntimeError):
                await each.http.aclose()

    # -- requests ---------------------------------------------------------------------------

    async def deliver(self, message: dict[str, Any], sink: Sink | None = None) -> None:
        """POST `message` to the published Serpent, renewing the session when it restarted;
        what comes back goes to `sink` (default: the client).

        When the connection could not be made (nothing there, or not Serpent), the endpoint
        file is read again and, if it now names another run, the message goes there. A 401
        drops the verified connections, reads the file and verifies again before the 401 is
        believed (and told as a refused credential). Nothing reached a server in either case,
        so sending again is safe."""
        for last_try in (False, True):
            link = self._link()
            session = self.session_id
            try:
                try:
                    await self._exchange(message, link, sink or self._write)
                except SessionGone:
                    await self.renew_session(session, link)
                    await self._exchange(message, link, sink or self._write)
                return
            except httpx2.ConnectError as error:
                stranger = isinstance(error.__cause__, NotSerpent)
                log.info("Serpent on port %d %s", link.endpoint.port,
                         f"could not be verified: {error}" if stranger else "does not answer")
                if self._moved_on(link) and not last_try:
                    continue
                raise NotRunning() from error
            except httpx2.TransportError as error:  # it went away before it answered
                log.info("Serpent stopped answering %s: %r", message.get("method"), error)
                self._drop(link)
                raise NotRunning() from error
            except Interrupted:
                self._drop(link)
                raise
            except Unauthorized as refused:
                self._drop(link)  # the next try verifies a fresh connection
                if self.locate() is None:
                    raise NotRunning() from refused
                if last_try:
                    raise
                # look again (this run or a newer one), verify again, then believe the 401

    async def ask(self, method: str, meta: dict[str, Any] | None) -> dict[str, Any]:
        """The bridge's own request (`meta`: the 2026-07-28 envelope, None in the handshake
        era); its result, or `Refused` when Serpent answered an error."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": f"{OWN_ID}{next(self._ids)}",
                                   "method": method}
        if meta is not None:
            message["params"] = {"_meta": meta}
        answers: list[dict[str, Any]] = []
        await self.deliver(message, lambda answer: answers.append(answer))
        for answer in answers:
            if answer.get("id") == message["id"]:
                if isinstance(answer.get("result"), dict):
                    result: dict[str, Any] = answer["result"]
                    return result
                break
        raise Refused(UPSTREAM, f"Serpent did not answer {method}")

    async def _exchange(self, message: dict[str, Any], link: _Link, sink: Sink) -> None:
        """POST one message; hand what comes back (a JSON answer or an SSE stream) to sink."""
        http = link.http
        is_initialize = message.get("method") == "initialize"
        request = http.build_request("POST", link.endpoint.url, headers=self._headers(message),
                                     content=json.dumps(message).encode("utf-8"))
        response = await http.send(request, stream=True)
        try:
            if await self._protocol_error(response, sink):
                return
            self._check(response, message)
            if is_initialize:
                self.session_id = response.headers.get("mcp-session-id")
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if response.status_code == 202:
                return
            try:
                if kind == "text/event-stream":
                    async for event in EventSource(response):
                        if event.data:
                            self._relay(json.loads(event.data), is_initialize, sink)
                else:
                    body = await response.aread()
                    if body.strip():
                        self._relay(json.loads(body), is_initialize, sink)
            except httpx2.TransportError as error:
                raise Interrupted() from error
        finally:
            await response.aclose()

    def _relay(self, answer: Any, is_initialize: bool, sink: Sink) -> None:
        if is_initialize and isinstance(answer, dict) and isinstance(answer.get("result"), dict):
            version = answer["result"].get("protocolVersion")
            if isinstance(version, str):
                self.protocol_version = version
        sink(answer)

    async def _protocol_error(self, response: httpx2.Response, sink: Sink) -> bool:
        """A JSON-RPC error Serpent answered with an HTTP error status (2026-07-28 does so
        for an unknown tool, prompt or resource: 400 with the error in the body) is relayed
        as it is, so the client sees -32602 and its message, not a transport failure."""
        if response.status_code < 400 or response.status_code in (401, 404):
            return False
        if not response.headers.get("content-type", "").startswith("application/json"):
            return False
        body = await response.aread()
        try:
            answer = json.loads(body)
        except ValueError:
            return False
        if not (isinstance(answer, dict) and isinstance(answer.get("error"), dict)):
            return False
        self._relay(answer, False, sink)
        return True

    def _check(self, response: httpx2.Response, message: dict[str, Any]) -> None:
        status = response.status_code
        if status < 400:
            return
        if status == 401:
            raise Unauthorized(REFUSED, REFUSED_MESSAGE)
        if status == 404 and self.session_id and message.get("method") != "initialize":
            raise SessionGone()
        raise Refused(UPSTREAM, f"Serpent answered HTTP {status} "
                                f"({response.reason_phrase or 'error'}).")

    async def open_session(self) -> None:
        """A session on the running Serpent for a client that opened its own elsewhere (the
        stand-in answered its initialize): the same replay as after a restart."""
        link = self._link()
        try:
            await self._replay(None, link, renewed=False)
        except (httpx2.TransportError, Interrupted) as error:  # not there after all
            self._drop(link)
            raise NotRunning() from error

    async def renew_session(self, failed: str | None, link: _Link) -> None:
        """Serpent restarted: replay the client's initialize (its answer is not forwarded).

        `failed` is the session id that got 404; when another task already replaced it,
        there is nothing left to do."""
        await self._replay(failed, link, renewed=True)

    async def _replay(self, failed: str | None, link: _Link, *, renewed: bool) -> None:
        async with self._renew_lock:
            if self.initialize is None:
                raise SessionGone()
            if self.session_id != failed:
                return
            self.session_id = None

            def drop(_answer: dict[str, Any]) -> None:
                return None

            await self._exchange(self.initialize, link, drop)
            if self.initialized_sent:
                await self._exchange({"jsonrpc": "2.0", "method": "notifications/initialized"},
                                     link, drop)
                if self.set_level is not None:
                    await self._exchange({**self.set_level, "id": f"{OWN_ID}level"}, link, drop)
                self.start_get_stream()
            if renewed:
                log.warning("Serpent restarted; the MCP session was renewed")
                self._on_renewed()

    # -- the server's own stream ------------------------------------------------------------

    def start_get_stream(self) -> None:
        if self.session_id and (self._get_task is None or self._get_task.done()):
            self._get_task = asyncio.ensure_future(self._get_stream())

    async def _get_stream(self) -> None:
        attempt = 0
        while self.session_id:
            session = self.session_id
            link: _Link | None = None
            try:
                link = self._link()
                async with link.http.stream("GET", link.endpoint.url, headers={
                        **self._headers(), "accept": "text/event-stream"}) as response:
                    if response.status_code == 405:
                        return  # the server offers no stream
                    if response.status_code == 404:
                        await self.renew_session(session, link)
                        continue
                    if response.status_code >= 400:
                        raise httpx2.TransportError(f"HTTP {response.status_code}")
                    attempt = 0
                    async for event in EventSource(response):
                        if event.data:
                            self._write(json.loads(event.data))
            except asyncio.CancelledError:
                raise
            except (httpx2.HTTPError, SessionGone, Refused, NotRunning, Interrupted,
                    ValueError) as error:
                if isinstance(error, httpx2.TransportError) and link is not None:
                    self._drop(link)
                log.info("GET stream interrupted (%s); retrying", type(error).__name__)
            await asyncio.sleep(RETRY_DELAYS_S[min(attempt, len(RETRY_DELAYS_S) - 1)])
            attempt += 1
