"""`serpent-tk mcp-bridge`: a stdio ↔ Streamable HTTP bridge for stdio-only clients.

Runs as its own small process (Claude Desktop starts it), one asyncio loop plus a thread that
reads stdin. While Serpent runs, every JSON-RPC line from the client is POSTed unchanged to its
MCP endpoint (`initialize` included, so the client's capabilities reach the server as sent;
`upstream.py`). While it does not, the stand-in answers (`standin.py`): the same `initialize`,
the credential's tools and prompts from this installation's registry, and a tool error telling
the person to start Serpent. The bridge looks for Serpent again every second; once it runs,
the client's session moves there by itself (the client's `initialize` replayed), and when
Serpent's tools or prompts differ from what the client last saw (a plugin's tools, say) the
client hears `notifications/tools/list_changed` (or `prompts/list_changed`). So a client
started before Serpent, or across a Serpent restart, keeps one working session. stdout carries
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
from typing import Any, BinaryIO, Literal

from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
)

from serpent_tk.credentials import Credential, CredentialStore
from serpent_tk.mcp.bridge.standin import (
    NOT_RUNNING,
    NOT_RUNNING_MESSAGE,
    StandIn,
    StandInHandlers,
    not_running_result,
)
from serpent_tk.mcp.bridge.upstream import (
    REFUSED,
    REFUSED_MESSAGE,
    Interrupted,
    NotRunning,
    Refused,
    SessionGone,
    Upstream,
    modern_version,
)
from serpent_tk.mcp.endpoint import Endpoint

log = logging.getLogger(__name__)

__all__ = ["NOT_RUNNING", "NOT_RUNNING_MESSAGE", "Bridge", "rpc_error", "run_bridge"]

LOOK_AGAIN_S = 1.0  # how often the bridge looks for a Serpent that is not running
NO_TOKEN_MESSAGE = ("No Serpent credential was given to the bridge. Copy the config for this "
                    "client from Serpent → Settings → MCP (it sets SERPENT_MCP_TOKEN).")
INTERRUPTED_MESSAGE = ("Serpent stopped while it was answering this call, so whether it was "
                       "done is unknown. Open Serpent again and check before repeating it.")
LISTS = {"tools/list": ("tools", "notifications/tools/list_changed"),
         "prompts/list": ("prompts", "notifications/prompts/list_changed")}
Route = Literal["serpent", "stand-in"]
ENVELOPE = (PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY)


def rpc_error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _canonical(value: Any) -> Any:
    """`value` without null fields: the SDK leaves unset fields out, Serpent's server and the
    stand-in may differ there without differing in anything a client sees."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


class Bridge:
    """One stdio client ↔ Serpent (or the stand-in while Serpent is not running)."""

    def __init__(self, locate: Callable[[], Endpoint | None], token: str | None, *,
                 stdin: BinaryIO, stdout: BinaryIO,
                 credential: Callable[[], Credential | None] | None = None,
                 store_problem: Callable[[], str | None] = lambda: None,
                 timeout_s: float = 30.0) -> None:
        self._token = token
        self._stdin = stdin
        self._stdout = stdout
        self._store_problem = store_problem
        self._up = Upstream(locate, token or "", self._write, on_renewed=self._renewed,
                            timeout_s=timeout_s)
        self._standin = StandIn(StandInHandlers(credential or (lambda: None), self._seen_tools),
                                self._write)
        self._credential = credential or (lambda: None)
        self._era: Literal["handshake", "modern"] | None = None
        self._modern_meta: dict[str, Any] | None = None  # the last request's envelope
        self._online = False  # the last message reached Serpent
        self._online_lock = asyncio.Lock()
        self._asked: dict[Any, str] = {}  # the client's open request ids -> method
        self._routes: dict[Any, Route] = {}
        self._in_flight: dict[Any, asyncio.Task[None]] = {}
        self._seen: dict[str, list[Any]] = {}  # method -> the list the client last got
        self._background: set[asyncio.Task[None]] = set()

    # -- stdin and stdout -------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        method = self._asked.pop(request_id, None) if "method" not in message else None
        if method in LISTS and isinstance(message.get("result"), dict):
            listed = message["result"].get(LISTS[method][0])
            if isinstance(listed, list):
                self._seen[method] = _canonical(listed)
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._stdout.write(line.encode("utf-8"))
        self._stdout.flush()

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()

        def read_stdin() -> None:
            try:
                for line in iter(self._stdin.readline, b""):
                    loop.call_soon_threadsafe(lines.put_nowait, line)
            finally:
                loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read_stdin, name="bridge-stdin", daemon=True).start()
        watcher = asyncio.ensure_future(self._look_for_serpent())
        try:
            while (line := await lines.get()) is not None:
                if line.strip():
                    await self._handle_line(line)
        finally:
            watcher.cancel()
            await self._close()
        return 0

    async def _close(self) -> None:
        tasks = [*self._in_flight.values(), *self._background]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._standin.close()
        await self._up.close()

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
        if method is not None and request_id is not None:
            self._asked[request_id] = method
        if method == "initialize":
            self._era = "handshake"
            self._up.initialize = message
            await self._request(message)  # inline: everything else needs its session
        elif method is not None and request_id is not None:
            if modern_version(message) is not None:
                self._era = "modern"
                meta = message["params"]["_meta"]
                self._modern_meta = {key: meta[key] for key in ENVELOPE if key in meta}
            elif method == "logging/setLevel":
                self._up.set_level = message
            task = asyncio.ensure_future(self._request(message))
            self._in_flight[request_id] = task

            def forget(_task: asyncio.Task[None], rid: Any = request_id) -> None:
                self._in_flight.pop(rid, None)
                self._routes.pop(rid, None)

            task.add_done_callback(forget)
        else:  # a notification, or the client's answer to a server request
            await self._notification(message)

    # -- where each message goes ------------------------------------------------------------

    async def _request(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        if not self._token:
            self._write(rpc_error(request_id, REFUSED, NO_TOKEN_MESSAGE))
            return
        if await self._to_serpent(message):
            return
        if self._credential() is None:  # Serpent would refuse it too
            problem = self._store_problem()
            self._write(rpc_error(request_id, REFUSED, problem or REFUSED_MESSAGE))
            return
        self._routes[request_id] = "stand-in"
        if message.get("method") != "initialize" and self._era == "handshake" and \
                not self._standin.primed and self._up.initialize is not None:
            await self._standin.prime(self._up.initialize, self._up.initialized_sent)
        await self._standin.send(message)

    async def _to_serpent(self, message: dict[str, Any]) -> bool:
        """Deliver `message` to Serpent: False when Serpent is not running (nothing was
        sent), True when it was answered (or an answer about it was written)."""
        request_id = message.get("id")
        try:
            if message.get("method") == "initialize":
                await self._up.deliver(message)
                self._online = True
            else:
                await self._go_online()
                self._routes[request_id] = "serpent"
                await self._up.deliver(message)
        except NotRunning:
            self._online = False
            return False
        except Interrupted:
            self._online = False
            if message.get("method") == "tools/call":
                self._write({"jsonrpc": "2.0", "id": request_id, "result": not_running_result(
                    (message.get("params") or {}).get("arguments"), INTERRUPTED_MESSAGE,
                    retryable=False).model_dump(by_alias=True, exclude_none=True, mode="json")})
            else:
                self._write(rpc_error(request_id, NOT_RUNNING, INTERRUPTED_MESSAGE))
        except SessionGone:
            self._write(rpc_error(request_id, NOT_RUNNING,
                                  "Serpent restarted and the session could not be renewed; "
                                  "restart this client."))
        except Refused as refused:
            self._write(rpc_error(request_id, refused.code, refused.message))
        return True

    async def _notification(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "notifications/initialized":
            self._up.initialized_sent = True
        if method == "notifications/cancelled":
            cancelled = (message.get("params") or {}).get("requestId")
            if self._routes.get(cancelled) == "stand-in":
                await self._standin.send(message)
                return
            if self._cancel_modern(cancelled):
                return
        if not self._token:
            return
        if self._online:
            try:
                await self._up.deliver(message)
                if method == "notifications/initialized":
                    self._up.start_get_stream()
                return
            except (NotRunning, Interrupted, SessionGone, Refused) as error:
                self._online = False
                log.warning("could not deliver %s: %s", method or "a response",
                            type(error).__name__)
        if method is not None and (self._standin.primed or self._era == "modern"):
            await self._standin.send(message)

    def _cancel_modern(self, request_id: Any) -> bool:
        """2026 era: cancelling means closing the request's stream (no notification POST)."""
        task = self._in_flight.get(request_id)
        if task is None or self._up.session_id is not None:
            return False
        task.cancel()
        return True

    # -- moving to Serpent once it runs -----------------------------------------------------

    async def _go_online(self) -> None:
        """Before the first message to a Serpent that was not running: a session there
        (handshake era), and the client told when Serpent's lists differ from what it saw.
        `NotRunning` when Serpent is still not there."""
        async with self._online_lock:
            if self._online:
                return
            try:
                if self._era == "handshake" and self._up.session_id is None:
                    await self._up.open_session()
                await self._compare_lists()
            except Interrupted as error:  # the client's own message is not sent yet
                raise NotRunning() from error
            self._online = True

    async def _look_for_serpent(self) -> None:
        """While Serpent is not running: look for it every LOOK_AGAIN_S and move there at once,
        so the client hears about changed lists before its next call."""
        while True:
            await asyncio.sleep(LOOK_AGAIN_S)
            if self._online or self._era is None or self._credential() is None or \
                    self._up.locate() is None:
                continue
            if self._era == "handshake" and not self._up.initialized_sent:
                continue
            try:
                await self._go_online()
            except (NotRunning, Interrupted, SessionGone, Refused) as error:
                log.info("Serpent is published but not reachable yet (%s)", type(error).__name__)

    def _renewed(self) -> None:
        """Serpent restarted under an open session: its lists may differ now."""
        task = asyncio.ensure_future(self._after_renewal())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _after_renewal(self) -> None:
        async with self._online_lock:
            with contextlib.suppress(NotRunning, Interrupted, SessionGone, Refused):
                await self._compare_lists()

    async def _compare_lists(self) -> None:
        """Ask Serpent for the lists the client has seen; tell it of each that differs."""
        changed: dict[str, bool] = {}
        meta = self._modern_meta if self._era == "modern" else None
        for method, (key, _note) in LISTS.items():
            seen = self._seen.get(method)
            if seen is None:
                continue
            real = _canonical((await self._up.ask(method, meta)).get(key, []))
            changed[method] = real != seen
            self._seen[method] = real
        if not any(changed.values()):
            return
        log.info("Serpent lists other %s than the client saw",
                 " and ".join(LISTS[m][0] for m, c in changed.items() if c))
        if self._era == "modern":
            await self._standin.lists_changed(changed.get("tools/list", False),
                                              changed.get("prompts/list", False))
            return
        for method, differs in changed.items():
            if differs:
                self._write({"jsonrpc": "2.0", "method": LISTS[method][1]})

    def _seen_tools(self) -> set[str]:
        return {t["name"] for t in self._seen.get("tools/list", [])
                if isinstance(t, dict) and isinstance(t.get("name"), str)}


def run_bridge(locate: Callable[[], Endpoint | None], token: str | None,
               store: CredentialStore | None = None) -> int:
    """Serve stdin/stdout until the client closes stdin. `store`: where the credential's
    mode and toolset are read while Serpent is not running."""
    if sys.stdin is None or sys.stdout is None:
        print("serpent-tk mcp-bridge needs stdin and stdout (it is started by an MCP client).",
              file=sys.stderr)
        return 2

    def credential() -> Credential | None:
        return store.verify(token) if store is not None and token else None

    bridge = Bridge(locate, token, stdin=sys.stdin.buffer, stdout=sys.stdout.buffer,
                    credential=credential,
                    store_problem=store.problem if store is not None else lambda: None)
    try:
        return asyncio.run(bridge.run())
    except KeyboardInterrupt:
        return 130
