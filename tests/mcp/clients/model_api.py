"""A local stand-in for the model APIs real AI clients talk to, so they run headless in tests
without a login or the network: Anthropic's Messages API (Claude Code), Gemini's
generateContent (Gemini CLI) and OpenAI's Responses API (Codex), each in its streaming form.

It records every request (what the client hands its model: the tools it offers, tool results,
images, expanded prompts) and answers from a script: the agent's next step is decided by how
many tool results the conversation holds so far, so one script drives one conversation;
requests that offer no tools (the client's own side jobs: titles, summaries, checks) get a
short text. Runs an HTTP server on 127.0.0.1 in a thread of the test process.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "Done."
SIDE_TEXT = "ok"


@dataclass(frozen=True)
class ToolCall:
    """One step of the script: call `name` (as the client names the tool) with `arguments`
    (`namespace`: the tool group it belongs to, where the API has them: Codex's MCP servers)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    namespace: str | None = None


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ModelApi:
    """The stand-in server. `script`: the tool calls the agent makes, in order; then it says
    FINAL_TEXT."""

    def __init__(self) -> None:
        self.script: list[ToolCall] = []
        self.requests: list[Recorded] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unreadable": raw[:200].decode("utf-8", "replace")}
                with api._lock:
                    api.requests.append(Recorded(self.path, dict(self.headers), body))
                api._answer(self, body)

            def do_GET(self) -> None:  # noqa: N802
                self._json(404, {"error": {"message": f"no {self.path} here"}})

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    # -- deciding ---------------------------------------------------------------------------

    def step(self, tool_results: int) -> ToolCall | None:
        """The agent's next move after `tool_results` results: a call, or None (finish)."""
        return self.script[tool_results] if tool_results < len(self.script) else None

    def _answer(self, handler: Any, body: dict[str, Any]) -> None:
        path = handler.path.split("?")[0]
        if path.endswith("/messages") and "count_tokens" not in path:
            from tests.mcp.clients.wire_anthropic import answer
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            from tests.mcp.clients.wire_gemini import answer
        elif ":countTokens" in path:
            handler._json(200, {"totalTokens": 10})
            return
        elif path.endswith("/responses"):
            from tests.mcp.clients.wire_openai import answer
        elif "count_tokens" in path:
            handler._json(200, {"input_tokens": 10})
            return
        else:
            handler._json(404, {"error": {"message": f"the stand-in has no {path}"}})
            return
        answer(self, handler, body)

    # -- what the client sent ---------------------------------------------------------------

    def bodies(self, path_part: str = "") -> Iterator[dict[str, Any]]:
        with self._lock:
            recorded = list(self.requests)
        return (r.body for r in recorded if path_part in r.path)


def send_sse(handler: Any, events: list[tuple[str | None, dict[str, Any]]]) -> None:
    """Write one complete SSE answer (`event:` lines where the API names its events)."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n")
    payload = "".join(chunks).encode("utf-8")
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("content-length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)
