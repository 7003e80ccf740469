"""A raw JSON-RPC MCP client over real HTTP, for what no SDK client here sends: a 2025-11-25
session (initialize, its GET stream, `task` on tools/call, `tasks/*`) and 2026-07-28 requests
written by hand. Also what these tests import: 2,000 tiny distinct pictures, a library, and
`writes_held` (from `tests.library.factories`).

Its own thread per GET stream; everything else on the test's thread.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from tests import waiting
from tests.library.factories import writes_held as writes_held  # the tasks tests' own
from tests.library.pictures import tiny_png

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
ACCEPT = "application/json, text/event-stream"
TIMEOUT = 60.0
ROUTED_BY = {"tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId",
             "tasks/cancel": "taskId"}  # 2026-07-28: the param an Mcp-Name header repeats


def messages(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a POST's answer (one JSON body, or an SSE stream)."""
    if not response.headers.get("content-type", "").startswith("text/event-stream"):
        return [response.json()] if response.content else []
    return [json.loads(line[5:]) for line in response.text.splitlines()
            if line.startswith("data:") and line[5:].strip()]


def make_pictures(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True)
    for number in range(count):
        (folder / f"scan-{number:05d}.png").write_bytes(tiny_png(number))
    return folder


def new_library(gateway: Gateway, parent: Path, name: str = "Scans") -> tuple[str, Path]:
    """A new open library: its id and its folder."""
    parent.mkdir(parents=True, exist_ok=True)
    envelope = gateway.submit("library.create", {"selectedParentPath": str(parent),
                                                 "name": name}, Caller.ui()).result(TIMEOUT)
    assert envelope["status"] == "ok", envelope
    return str(envelope["result"]["libraryId"]), Path(envelope["result"]["path"])


def as_person(gateway: Gateway, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """What the window asks (its status bar asks `task.get`), asked the same way."""
    envelope = gateway.submit(name, args, Caller.ui()).result(TIMEOUT)
    assert envelope["status"] == "ok", envelope
    return dict(envelope["result"])


def wait_until(check: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    """`tests.waiting.wait_until`, polling every 50 ms (each poll is an HTTP request)."""
    return waiting.wait_until(check, what, timeout, interval=0.05)


class Rpc:
    """Requests of one client (a 2025-11-25 session once `open`ed, else 2026-07-28 POSTs)."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx2.Client(timeout=httpx2.Timeout(TIMEOUT, read=300),
                                  headers={"Authorization": f"Bearer {token}"})
        self.session_id: str | None = None
        self.version = MODERN
        self.notifications: list[dict[str, Any]] = []
        self._ids = iter(range(1, 1_000_000))
        self._stream: threading.Thread | None = None
        self._closing = threading.Event()

    def _headers(self, method: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json",
                   "MCP-Protocol-Version": self.version, **(extra or {})}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.version == MODERN:
            headers["Mcp-Method"] = method
        return headers

    def post(self, method: str, params: dict[str, Any] | None = None, *,
             tasks: bool = True, headers: dict[str, str] | None = None) -> dict[str, Any]:
        """One request; its JSON-RPC answer (`result` or `error`). Notifications that came on
        its stream are kept in `notifications`. A 2026-07-28 request declares the tasks
        extension unless `tasks` is false."""
        params = dict(params or {})
        if self.version == MODERN:
            extensions = {TASKS: {}} if tasks else {}
            params["_meta"] = {**params.get("_meta", {}),
                               "io.modelcontextprotocol/protocolVersion": MODERN,
                               "io.modelcontextprotocol/clientCapabilities": {
                                   "extensions": extensions}}
            named = params.get(ROUTED_BY.get(method, ""))
            if isinstance(named, str):  # the routing header the revision asks for
                headers = {"Mcp-Name": named, **(headers or {})}
        request_id = next(self._ids)
        response = self.http.post(self.url, headers=self._headers(method, headers),
                                  json={"jsonrpc": "2.0", "id": request_id, "method": method,
                                        "params": params})
        if response.status_code != 200:  # 2026-07-28 maps some errors to HTTP statuses too
            answer = response.json()
            assert "error" in answer, (response.status_code, response.text[:500])
            return dict(answer)
        answer = None
        for message in messages(response):
            if message.get("id") == request_id:
                answer = message
            elif "method" in message:
                self.notifications.append(message)
        assert answer is not None, response.text[:500]
        return answer

    def result(self, method: str, params: dict[str, Any] | None = None,
               **kwargs: Any) -> dict[str, Any]:
        answer = self.post(method, params, **kwargs)
        assert "result" in answer, answer
        return dict(answer["result"])

    # -- a 2025-11-25 session --------------------------------------------------------------

    def open(self, version: str = LEGACY) -> dict[str, Any]:
        """initialize + notifications/initialized; the GET stream starts listening."""
        self.version = version
        response = self.http.post(self.url, headers=self._headers("initialize"), json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "raw-json-rpc", "version": "1"}}})
        assert response.status_code == 200, response.text[:500]
        self.session_id = response.headers["mcp-session-id"]
        initialized = messages(response)[0]["result"]
        sent = self.http.post(self.url, headers=self._headers("notifications/initialized"),
                              json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert sent.status_code == 202, sent.text
        self._stream = threading.Thread(target=self._listen, daemon=True)
        self._stream.start()
        wait_until(lambda: self._listening, "the GET stream to open")
        return dict(initialized)

    _listening = False

    def _listen(self) -> None:
        try:
            with self.http.stream("GET", self.url, headers={
                    "Accept": "text/event-stream", "MCP-Protocol-Version": self.version,
                    "Mcp-Session-Id": self.session_id or ""}) as stream:
                self._listening = stream.status_code == 200
                for line in stream.iter_lines():
                    if self._closing.is_set():
                        return
                    if line.startswith("data:") and line[5:].strip():
                        self.notifications.append(json.loads(line[5:]))
        except httpx2.HTTPError:
            return

    def heard(self, method: str) -> Iterator[dict[str, Any]]:
        return (n for n in list(self.notifications) if n.get("method") == method)

    def close(self) -> None:
        self._closing.set()
        if self.session_id:
            self.http.delete(self.url, headers=self._headers("DELETE"))
        self.http.close()
        if self._stream is not None:
            self._stream.join(10)
