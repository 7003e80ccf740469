"""`serpent-tk mcp-bridge`: a stdio ↔ Streamable HTTP bridge for stdio-only clients.

Runs as its own small process (Claude Desktop starts it), one asyncio loop plus a thread that
reads stdin. Every JSON-RPC line from the client is POSTed unchanged to Serpent's MCP endpoint
(`initialize` included, so the client's capabilities reach the server as sent); JSON and SSE
answers are written back as lines; after `notifications/initialized` a GET stream carries the
server's own notifications. Serpent is found only through the endpoint file this user's
running Serpent publishes, and the token goes only over connections whose peer proved it is
that Serpent (`verified_http`); anything else is "Serpent is not running". When Serpent
restarted (on the same or another port), the bridge looks again and replays the client's
`initialize`; a 401 makes it look again too before it blames the credential. stdout carries
nothing but protocol lines; diagnostics go to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import httpx2
from httpx2 import EventSource
from mcp.shared.inbound import encode_header_value
from mcp_types import PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serpent_tk.mcp.bridge.verified_http import NotSerpent, verified_client
from serpent_tk.mcp.endpoint import Endpoint

log = logging.getLogger(__name__)

NOT_RUNNING = -32000
REFUSED = -32001
UPSTREAM = -32603
RETRY_DELAYS_S = (0.5, 1.0, 2.0, 5.0)
NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def rpc_error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


NOT_RUNNING_MESSAGE = ("Serpent is not running, so its library tools are unavailable. Open "
                       "the Serpent app (or run `serpent-tk serve`), then try again.")


REFUSED_MESSAGE = ("Serpent refused this client's credential: it was revoked or is wrong. "
                   "In Serpent → Settings → MCP create a credential, copy the Claude Desktop "
                   "config again, and restart this client.")
NO_TOKEN_MESSAGE = ("No Serpent credential was given to the bridge. Copy the config for this "
                    "client from Serpent → Settings → MCP (it sets SERPENT_MCP_TOKEN).")


class _SessionGone(Exception):
    """Serpent answered 404 for our session: it restarted, the session must be renewed."""


class _NotRunning(Exception):
    """No published Serpent, or the published one does not answer (or is not Serpent)."""


@dataclass
class _Link:
    """The verified HTTP pool to one published endpoint; replaced when Serpent moves on."""

    endpoint: Endpoint
    http: httpx2.AsyncClient


@dataclass
class _State:
    session_id: str | None = None
    protocol_version: str | None = None  # negotiated by initialize (handshake era)
    initialize: dict[str, Any] | None = None  # the client's initialize, replayed on restart
    initialized_sent: bool = False
    in_flight: dict[Any, asyncio.Task[None]] = field(default_factory=dict)


class Bridge:
    """One stdio client ↔ Serpent's HTTP endpoint."""

    def __init__(self, locate: Callable[[], Endpoint | None], token: str | None, *,
                 stdin: BinaryIO, stdout: BinaryIO, timeout_s: float = 30.0) -> None:
        self._locate = locate
        self._token = token
        self._stdin = stdin
        self._stdout = stdout
        self._state = _State()
        self._timeout = httpx2.Timeout(timeout_s, read=None)
        self._link_now: _Link | None = None
        self._old_links: list[_Link] = []  # closed when the bridge ends
        self._get_task: asyncio.Task[None] | None = None
        self._renew_lock: asyncio.Lock | None = None

    # -- plumbing ---------------------------------------------------------------------------

    def _link(self) -> _Link:
        """The pool to the published Serpent; `_NotRunning` when none is published."""
        if self._link_now is None:
            endpoint = self._locate()
            if endpoint is None:
                raise _NotRunning()
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
        fresh = self._locate()
        return fresh is not None and fresh != link.endpoint

    def _write(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._stdout.write(line.encode("utf-8"))
        self._stdout.flush()

    def _headers(self, message: dict[str, Any] | None = None) -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream",
                   "content-type": "application/json"}
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        if self._state.session_id:
            headers["mcp-session-id"] = self._state.session_id
        modern = _modern_version(message) if message is not None else None
        if message is not None and modern is not None:  # 2026 era: stamp the routing headers
            method = message.get("method")
            headers["mcp-protocol-version"] = modern
            if isinstance(method, str):
                headers["mcp-method"] = method
                key = NAME_PARAMS.get(method)
                name = (message.get("params") or {}).get(key) if key else None
                if isinstance(name, str):
                    headers["mcp-name"] = encode_header_value(name)
        elif self._state.protocol_version and message is not None and \
                message.get("method") != "initialize":
            headers["mcp-protocol-version"] = self._state.protocol_version
        return headers

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._renew_lock = asyncio.Lock()

        def read_stdin() -> None:
            try:
                for line in iter(self._stdin.readline, b""):
                    loop.call_soon_threadsafe(lines.put_nowait, line)
            finally:
                loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read_stdin, name="bridge-stdin", daemon=True).start()
        try:
            while (line := await lines.get()) is not None:
                if line.strip():
                    await self._handle_line(line)
        finally:
            await self._close()
        return 0

    async def _close(self) -> None:
        for task in list(self._state.in_flight.values()):
            task.cancel()
        if self._get_task is not None:
            self._get_task.cancel()
        tasks = [*self._state.in_flight.values(), *([self._get_task] if self._get_task else [])]
        await asyncio.gather(*tasks, return_exceptions=True)
        link = self._link_now
        if self._state.session_id and link is not None:
            with contextlib.suppress(httpx2.HTTPError):
                await link.http.delete(link.endpoint.url, headers=self._headers(), timeout=2.0)
        for each in [*self._old_links, *([link] if link else [])]:
            with contextlib.suppress(httpx2.HTTPError, RuntimeError):
                await each.http.aclose()

    async def _handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self._write(rpc_error(None, -32700, "Parse error: a line was not JSON."))
            return
        if not isinstance(message, dict):
            self._write(rpc_error(None, -32600, "Batches are not supported by this bridge."))
            return
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            self._state.initialize = message
            await self._request(message)  # inline: everything else needs its session
        elif method is not None and request_id is not None:
            task = asyncio.ensure_future(self._request(message))
            self._state.in_flight[request_id] = task

            def forget(_task: asyncio.Task[None], rid: Any = request_id) -> None:
                self._state.in_flight.pop(rid, None)

            task.add_done_callback(forget)
        elif method == "notifications/cancelled" and self._cancel_modern(message):
            return
        else:  # a notification, or the client's answer to a server request
            await self._post_quietly(message)
            if method == "notifications/initialized":
                self._state.initialized_sent = True
                self._start_get_stream()

    def _cancel_modern(self, message: dict[str, Any]) -> bool:
        """2026 era: cancelling means closing the request's stream (no notification POST)."""
        request_id = (message.get("params") or {}).get("requestId")
        task = self._state.in_flight.get(request_id)
        if task is None or self._state.session_id is not None:
            return False
        task.cancel()
        return True

    # -- requests ---------------------------------------------------------------------------

    async def _request(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        if not self._token:
            self._write(rpc_error(request_id, REFUSED, NO_TOKEN_MESSAGE))
            return
        try:
            await self._deliver(message)
        except asyncio.CancelledError:
            raise
        except _NotRunning:
            self._write(rpc_error(request_id, NOT_RUNNING, NOT_RUNNING_MESSAGE))
        except _SessionGone:
            self._write(rpc_error(request_id, NOT_RUNNING,
                                  "Serpent restarted and the session could not be renewed; "
                                  "restart this client."))
        except _Refused as refused:
            self._write(rpc_error(request_id, refused.code, refused.message))

    async def _deliver(self, message: dict[str, Any]) -> None:
        """POST `message` to the published Serpent, renewing the session when it restarted.

        When the connection could not be made (nothing there, or not Serpent), the endpoint
        file is read again and, if it now names another run, the message goes there. A 401
        drops the verified connections, reads the file and verifies again before the 401 is
        believed (and told as a refused credential). Nothing reached a server in either case,
        so sending again is safe."""
        for last_try in (False, True):
            link = self._link()
            session = self._state.session_id
            try:
                try:
                    await self._exchange(message, link)
                except _SessionGone:
                    await self._renew_session(session, link)
                    await self._exchange(message, link)
                return
            except httpx2.ConnectError as error:
                stranger = isinstance(error.__cause__, NotSerpent)
                log.info("Serpent on port %d %s", link.endpoint.port,
                         f"could not be verified: {error}" if stranger else "does not answer")
                if self._moved_on(link) and not last_try:
                    continue
                raise _NotRunning() from error
            except httpx2.TransportError as error:  # it went away in the middle of an answer
                log.info("Serpent stopped answering %s: %r", message.get("method"), error)
                self._drop(link)
                raise _NotRunning() from error
            except _Unauthorized as refused:
                self._drop(link)  # the next try verifies a fresh connection
                if self._locate() is None:
                    raise _NotRunning() from refused
                if last_try:
                    raise
                # look again (this run or a newer one), verify again, then believe the 401

    async def _exchange(self, message: dict[str, Any], link: _Link, *,
                        forward: bool = True) -> None:
        """POST one message; write what comes back (a JSON answer or an SSE stream)."""
        http = link.http
        is_initialize = message.get("method") == "initialize"
        request = http.build_request("POST", link.endpoint.url, headers=self._headers(message),
                                     content=json.dumps(message).encode("utf-8"))
        response = await http.send(request, stream=True)
        try:
            if await self._protocol_error(response, forward):
                return
            self._check(response, message)
            if is_initialize:
                self._state.session_id = response.headers.get("mcp-session-id")
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if response.status_code == 202:
                return
            if kind == "text/event-stream":
                async for event in EventSource(response):
                    if event.data:
                        self._relay(json.loads(event.data), is_initialize, forward)
            else:
                body = await response.aread()
                if body.strip():
                    self._relay(json.loads(body), is_initialize, forward)
        finally:
            await response.aclose()

    def _relay(self, answer: Any, is_initialize: bool, forward: bool) -> None:
        if is_initialize and isinstance(answer, dict) and isinstance(answer.get("result"), dict):
            version = answer["result"].get("protocolVersion")
            if isinstance(version, str):
                self._state.protocol_version = version
        if forward:
            self._write(answer)

    async def _protocol_error(self, response: httpx2.Response, forward: bool) -> bool:
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
        self._relay(answer, False, forward)
        return True

    def _check(self, response: httpx2.Response, message: dict[str, Any]) -> None:
        status = response.status_code
        if status < 400:
            return
        if status == 401:
            raise _Unauthorized(REFUSED, REFUSED_MESSAGE)
        if status == 404 and self._state.session_id and message.get("method") != "initialize":
            raise _SessionGone()
        raise _Refused(UPSTREAM, f"Serpent answered HTTP {status} "
                                 f"({response.reason_phrase or 'error'}).")

    async def _post_quietly(self, message: dict[str, Any]) -> None:
        """Notifications and responses: nobody waits for an answer, so failures are logged."""
        if not self._token:
            return
        try:
            await self._deliver(message)
        except (_NotRunning, _SessionGone, _Refused) as error:
            log.warning("could not deliver %s: %s", message.get("method", "a response"),
                        type(error).__name__)

    async def _renew_session(self, failed: str | None, link: _Link) -> None:
        """Serpent restarted: replay the client's initialize (its answer is not forwarded).

        `failed` is the session id that got 404; when another task already replaced it,
        there is nothing left to do."""
        assert self._renew_lock is not None
        async with self._renew_lock:
            if self._state.initialize is None:
                raise _SessionGone()
            if self._state.session_id != failed:
                return
            self._state.session_id = None
            await self._exchange(self._state.initialize, link, forward=False)
            if self._state.initialized_sent:
                await self._exchange({"jsonrpc": "2.0", "method": "notifications/initialized"},
                                     link)
                self._start_get_stream()
            log.warning("Serpent restarted; the MCP session was renewed")

    # -- the server's own stream ------------------------------------------------------------

    def _start_get_stream(self) -> None:
        if self._state.session_id and (self._get_task is None or self._get_task.done()):
            self._get_task = asyncio.ensure_future(self._get_stream())

    async def _get_stream(self) -> None:
        attempt = 0
        while self._state.session_id:
            session = self._state.session_id
            link: _Link | None = None
            try:
                link = self._link()
                async with link.http.stream("GET", link.endpoint.url, headers={
                        **self._headers(), "accept": "text/event-stream"}) as response:
                    if response.status_code == 405:
                        return  # the server offers no stream
                    if response.status_code == 404:
                        await self._renew_session(session, link)
                        continue
                    if response.status_code >= 400:
                        raise httpx2.TransportError(f"HTTP {response.status_code}")
                    attempt = 0
                    async for event in EventSource(response):
                        if event.data:
                            self._write(json.loads(event.data))
            except asyncio.CancelledError:
                raise
            except (httpx2.HTTPError, _SessionGone, _Refused, _NotRunning, ValueError) as error:
                if isinstance(error, httpx2.TransportError) and link is not None:
                    self._drop(link)
                log.info("GET stream interrupted (%s); retrying", type(error).__name__)
            await asyncio.sleep(RETRY_DELAYS_S[min(attempt, len(RETRY_DELAYS_S) - 1)])
            attempt += 1


class _Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Unauthorized(_Refused):
    """Serpent answered 401: the token is unknown or revoked (once it was looked for again)."""


def _modern_version(message: dict[str, Any]) -> str | None:
    meta = (message.get("params") or {}).get("_meta") if isinstance(
        message.get("params"), dict) else None
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    return version if version in MODERN_PROTOCOL_VERSIONS else None


def run_bridge(locate: Callable[[], Endpoint | None], token: str | None) -> int:
    """Serve stdin/stdout until the client closes stdin."""
    if sys.stdin is None or sys.stdout is None:
        print("serpent-tk mcp-bridge needs stdin and stdout (it is started by an MCP client).",
              file=sys.stderr)
        return 2
    bridge = Bridge(locate, token, stdin=sys.stdin.buffer, stdout=sys.stdout.buffer)
    try:
        return asyncio.run(bridge.run())
    except KeyboardInterrupt:
        return 130
