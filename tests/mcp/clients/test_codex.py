"""Codex (`@openai/codex`, locked in tests/node/codex) against Serpent through `codex app-server`,
which really connects (`codex mcp list` only reads the config): its JSON-RPC over stdio lists
each MCP server's tools (`mcpServerStatus/list`), calls one (`mcpServer/tool/call`) and reads a
resource; a turn against the model stand-in (a Responses API provider in Codex's config) shows
what Codex hands its model: Serpent's tools for the credential's toolset, a result, an error it
can read, and for a picture only the answer's structured part (Codex keeps an image from its
model whenever the result also has structuredContent, as every Serpent tool's does). Codex has
no MCP prompts. 40 starts are never locked out.

The token reaches Codex the documented way: `bearer_token_env_var` names the variable."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.clients.conftest import (
    RUN_S,
    STARTS,
    STARTS_TIMEOUT,
    Stopwatch,
    client_env,
    essentials,
    start_many,
)
from tests.mcp.clients.model_api import ModelApi, ToolCall
from tests.mcp.clients.wire_openai import function_outputs
from tests.mcp.conftest import Server
from tests.nodejs import node_project
from tests.waiting import Deadline

NAMESPACE = "mcp__serpent"
TOKEN_VARIABLE = "SERPENT_MCP_TOKEN"


def config(model_api: ModelApi, url: str) -> str:
    return f"""model = "stand-in-model"
model_provider = "stand-in"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.stand-in]
name = "model stand-in"
base_url = "{model_api.url}/v1"
wire_api = "responses"
env_key = "STAND_IN_API_KEY"

[mcp_servers.serpent]
url = "{url}"
bearer_token_env_var = "{TOKEN_VARIABLE}"
"""


class AppServer:
    """One `codex app-server`: JSON-RPC lines (without the "jsonrpc" member) on stdio."""

    def __init__(self, home: Path, work: Path, token: str) -> None:
        self.notes: list[dict[str, Any]] = []
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._ids = iter(range(1, 1_000_000))
        codex = node_project("codex") / "node_modules" / ".bin" / "codex"
        env = client_env(home, {"CODEX_HOME": str(home / ".codex"),
                                "STAND_IN_API_KEY": "stand-in-key", TOKEN_VARIABLE: token})
        self.process = subprocess.Popen([str(codex), "app-server"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, env=env, cwd=work)
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"clientInfo": {"name": "serpent-tests", "title": None,
                                                   "version": "1"}, "capabilities": None})
        self._send({"method": "initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.strip():
                self._lines.put(json.loads(line))
        self._lines.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def _next(self, deadline: Deadline) -> dict[str, Any]:
        message = self._lines.get(timeout=deadline.remaining())
        assert message is not None, f"codex app-server ended (exit {self.process.poll()})"
        return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        self._send({"method": method, "id": request_id, "params": params})
        deadline = Deadline(RUN_S)
        while True:
            message = self._next(deadline)
            if message.get("id") == request_id and "method" not in message:
                assert "error" not in message, (method, message)
                result: dict[str, Any] = message["result"]
                return result
            self.notes.append(message)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The params of the first notification `method` (one already seen counts)."""
        deadline = Deadline(RUN_S)
        for note in self.notes:
            if note.get("method") == method:
                return dict(note.get("params") or {})
        while True:
            message = self._next(deadline)
            self.notes.append(message)
            if message.get("method") == method:
                return dict(message.get("params") or {})

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        if self.process.stdout is not None:
            self.process.stdout.close()


class Codex:
    def __init__(self, home: Path, work: Path, token: str, model_api: ModelApi,
                 url: str) -> None:
        self.home, self.work, self.token = home, work, token
        (home / ".codex").mkdir(parents=True, exist_ok=True)
        work.mkdir(parents=True, exist_ok=True)
        (home / ".codex" / "config.toml").write_text(config(model_api, url), encoding="utf-8")

    def start(self) -> AppServer:
        return AppServer(self.home, self.work, self.token)


@pytest.fixture
def codex(server: Server, tmp_path: Path, model_api: ModelApi) -> Codex:
    token = server.token("Codex", toolset="essentials")
    return Codex(tmp_path / "codex-home", tmp_path / "project", token, model_api, server.url)


def serpent_status(app: AppServer) -> dict[str, Any]:
    listed = app.request("mcpServerStatus/list", {})["data"]
    (serpent,) = [s for s in listed if s["name"] == "serpent"]
    assert serpent["toolsError"] is None, serpent["toolsError"]
    status: dict[str, Any] = serpent
    return status


def test_codex_app_server_lists_calls_and_reads_serpent(
        codex: Codex, server: Server, library: dict[str, Any]) -> None:
    library_id, asset_id = library["libraryId"], library["assetId"]
    app = codex.start()
    try:
        serpent = serpent_status(app)
        assert set(serpent["tools"]) == essentials(server)
        assert serpent["serverInfo"]["name"] == "serpent"
        thread = app.request("thread/start", {})["thread"]["id"]

        def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return app.request("mcpServer/tool/call", {"threadId": thread, "server": "serpent",
                                                       "tool": tool, "arguments": arguments})

        listed = call("serpent_library_list_open", {})
        assert not listed.get("isError")
        assert listed["structuredContent"]["result"]["items"][0]["libraryId"] == library_id
        refused = call("serpent_asset_search", {"libraryId": library_id, "limit": 0})
        assert refused["isError"] is True
        assert refused["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"
        picture = call("serpent_asset_thumbnail", {"libraryId": library_id,
                                                   "assetId": asset_id})
        images = [c for c in picture["content"] if c.get("type") == "image"]
        assert len(images) == 1 and images[0]["mimeType"].startswith("image/")
        uri = f"serpent://libraries/{library_id}/assets/{asset_id}"
        read = app.request("mcpServer/resource/read", {"threadId": thread,
                                                       "server": "serpent", "uri": uri})
        assert json.loads(read["contents"][0]["text"])["id"] == asset_id
    finally:
        app.close()


def test_codex_hands_its_model_serpents_tools_results_errors_and_images(
        codex: Codex, server: Server, library: dict[str, Any], model_api: ModelApi) -> None:
    library_id, asset_id = library["libraryId"], library["assetId"]
    model_api.script = [
        ToolCall("serpent_library_list_open", namespace=NAMESPACE),
        ToolCall("serpent_asset_search", {"libraryId": library_id, "limit": 0}, NAMESPACE),
        ToolCall("serpent_asset_thumbnail", {"libraryId": library_id, "assetId": asset_id},
                 NAMESPACE),
    ]
    app = codex.start()
    try:
        thread = app.request("thread/start", {})["thread"]["id"]
        app.request("turn/start", {"threadId": thread, "input": [
            {"type": "text", "text": "What is in my Serpent library Refs?",
             "text_elements": []}]})
        finished = app.wait_for("turn/completed")
        assert finished["turn"]["status"] == "completed", finished
    finally:
        app.close()
    last = [b for b in model_api.bodies("/responses") if b.get("tools")][-1]
    (group,) = [t for t in last["tools"] if t.get("name") == NAMESPACE]
    assert {t["name"] for t in group["tools"]} == essentials(server)
    listed, refused, picture = (str(o["output"]) for o in function_outputs(last))
    assert library_id in listed and '"status":"ok"' in listed
    assert "INVALID_ARGUMENT" in refused and "limit" in refused
    # Codex hands its model a tool's structuredContent alone when it has one, so the picture
    # stays with the client (codex-rs/protocol models.rs, as_function_call_output_payload);
    # the model reads what it is (app-server calls above show the image reaches Codex)
    assert '"mime":"image/jpeg"' in picture and "input_image" not in picture


@STARTS_TIMEOUT
def test_forty_codex_starts_are_never_locked_out(
        codex: Codex, library: dict[str, Any]) -> None:
    """Codex (2025-06-18) ends its session with DELETE when it stops."""
    watch = Stopwatch("codex app-server start + mcpServerStatus/list")

    def start(_number: int) -> None:
        app = codex.start()
        try:
            assert serpent_status(app)["tools"]
        finally:
            app.close()

    start_many(start, STARTS)
    watch.report(STARTS)
    app = codex.start()
    try:
        thread = app.request("thread/start", {})["thread"]["id"]
        listed = app.request("mcpServer/tool/call", {
            "threadId": thread, "server": "serpent", "tool": "serpent_library_list_open",
            "arguments": {}})
        assert listed["structuredContent"]["result"]["items"][0]["libraryId"] == \
            library["libraryId"]
    finally:
        app.close()
