"""Claude Code (`@anthropic-ai/claude-code`, locked in tests/node/claude-code) against Serpent:
`claude mcp add/list/get` connect without a login; headless `claude -p` runs against the model
stand-in show what the client hands its model (Serpent's tools for the credential's toolset, a
result, an error it can read, an image, an expanded prompt); 40 starts in a row are never locked
out (Claude Code 2.1.332 speaks 2026-07-28, which has no sessions; Claude Code 2.1 on the 2025
era left one behind at every start).

Claude Code's tool search (MCP tools deferred behind `ToolSearch` until the model asks for
them) is turned off with ENABLE_TOOL_SEARCH=false, so the model sees Serpent's tools with their
schemas at once; one run keeps the default and checks the deferred names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.clients.conftest import (
    STARTS,
    STARTS_TIMEOUT,
    Stopwatch,
    client_env,
    essentials,
    run_client,
    start_many,
)
from tests.mcp.clients.model_api import ModelApi, ToolCall
from tests.mcp.clients.wire_anthropic import tool_results
from tests.mcp.conftest import Server
from tests.nodejs import node_executable, node_project

PREFIX = "mcp__serpent__"
PACKAGE = Path("node_modules") / "@anthropic-ai" / "claude-code"


def claude_command() -> list[str]:
    """The native `claude` npm's postinstall put in place, or the package's own launcher
    when install scripts did not run."""
    package = node_project("claude-code") / PACKAGE
    native = package / "bin" / "claude.exe"
    if native.is_file() and native.stat().st_size > 1_000_000:
        return [str(native)]
    return [str(node_executable()), str(package / "cli-wrapper.cjs")]


class Claude:
    """`claude` with its own home folder, its telemetry and updater off, and its model API
    pointed at the stand-in (any API key will do)."""

    def __init__(self, home: Path, work: Path, model_api: ModelApi,
                 tool_search: bool = False) -> None:
        self.work = work
        work.mkdir(parents=True, exist_ok=True)
        self.env = client_env(home, {
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_BUG_COMMAND": "1", "ANTHROPIC_BASE_URL": model_api.url,
            "ANTHROPIC_API_KEY": "sk-ant-stand-in-0000",
            **({} if tool_search else {"ENABLE_TOOL_SEARCH": "false"})})

    def __call__(self, *args: str) -> str:
        return run_client([*claude_command(), *args], self.env, self.work).stdout

    def ask(self, prompt: str) -> dict[str, Any]:
        """One headless run that may use Serpent's tools; its JSON result."""
        out = self("-p", prompt, "--output-format", "json", "--allowedTools", "mcp__serpent")
        result: dict[str, Any] = json.loads(out)
        assert result.get("is_error") is False, result
        return result


@pytest.fixture
def claude(server: Server, tmp_path: Path, model_api: ModelApi) -> Claude:
    """Claude Code with Serpent added in the user scope (where a token belongs)."""
    client = Claude(tmp_path / "claude-home", tmp_path / "project", model_api)
    token = server.token("Claude Code", toolset="essentials")
    added = client("mcp", "add", "--transport", "http", "--scope", "user", "serpent",
                   server.url, "--header", f"Authorization: Bearer {token}")
    assert "serpent" in added
    return client


def conversation(model_api: ModelApi) -> dict[str, Any]:
    """The last request of the run's conversation (it holds every tool result)."""
    bodies = [b for b in model_api.bodies("/v1/messages") if b.get("tools")]
    assert bodies, "Claude Code never asked its model with tools"
    return bodies[-1]


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content or [] if c.get("type") == "text")


def test_claude_code_connects_without_a_login(claude: Claude, server: Server,
                                              tmp_path: Path) -> None:
    listed = claude("mcp", "list")
    assert re.search(rf"serpent: {re.escape(server.url)} \(HTTP\) - . Connected", listed), listed
    got = claude("mcp", "get", "serpent")
    assert re.search(r"Status: . Connected", got) and "User config" in got, got
    assert not (claude.work / ".mcp.json").exists()  # nothing with a token in the project


def test_claude_code_hands_its_model_serpents_tools_results_errors_and_images(
        claude: Claude, server: Server, library: dict[str, Any], model_api: ModelApi) -> None:
    library_id, asset_id = library["libraryId"], library["assetId"]
    model_api.script = [
        ToolCall(PREFIX + "serpent_library_list_open"),
        ToolCall(PREFIX + "serpent_asset_search", {"libraryId": library_id, "limit": 0}),
        ToolCall(PREFIX + "serpent_asset_thumbnail",
                 {"libraryId": library_id, "assetId": asset_id}),
    ]
    assert claude.ask("What is in my Serpent library Refs?")["result"] == "Done."
    last = conversation(model_api)
    offered = {t["name"] for t in last["tools"] if t["name"].startswith(PREFIX)}
    assert offered == {PREFIX + name for name in essentials(server)}
    search = next(t for t in last["tools"] if t["name"] == PREFIX + "serpent_asset_search")
    assert search["input_schema"]["properties"]["libraryId"]["type"] == "string"
    listed, refused, picture = tool_results(last)
    assert not listed.get("is_error") and library_id in result_text(listed)
    assert refused.get("is_error") is True  # the model is told, and reads why
    assert "INVALID_ARGUMENT" in result_text(refused) and "limit" in result_text(refused)
    images = [c for c in picture["content"] if c.get("type") == "image"]
    assert len(images) == 1 and images[0]["source"]["type"] == "base64"
    assert images[0]["source"]["media_type"].startswith("image/")
    assert len(images[0]["source"]["data"]) > 100
    assert '"mime":"image/' in result_text(picture)  # and the answer beside it


def test_claude_code_expands_serpents_prompt_for_its_model(
        claude: Claude, library: dict[str, Any], model_api: ModelApi) -> None:
    claude.ask(f"/{PREFIX}tag-untagged Refs")
    first = next(model_api.bodies("/v1/messages"))
    said = "".join(c.get("text", "") for m in first["messages"] if m["role"] == "user"
                   for c in (m["content"] if isinstance(m["content"], list) else []))
    assert "Tag the untagged pictures" in said and library["libraryId"] in said
    assert "serpent_asset_thumbnail" in said  # tool names as the model sees them


def test_claude_codes_tool_search_names_serpents_tools(
        server: Server, tmp_path: Path, model_api: ModelApi) -> None:
    """The default: the tools are listed by name for ToolSearch to load."""
    client = Claude(tmp_path / "claude-home", tmp_path / "project", model_api, tool_search=True)
    token = server.token("Claude Code", toolset="essentials")
    client("mcp", "add", "--transport", "http", "--scope", "user", "serpent", server.url,
           "--header", f"Authorization: Bearer {token}")
    client.ask("Which Serpent tools are there?")
    first = json.dumps(next(model_api.bodies("/v1/messages")))
    named = set(re.findall(re.escape(PREFIX) + r"(serpent_[a-z_]+)", first))
    assert named == essentials(server)


@STARTS_TIMEOUT
def test_forty_claude_code_starts_are_never_locked_out(
        claude: Claude, server: Server, model_api: ModelApi) -> None:
    """Each `claude mcp get` connects and lists Serpent's tools, then leaves."""
    watch = Stopwatch("claude mcp get")

    def start(number: int) -> None:
        got = claude("mcp", "get", "serpent")
        assert re.search(r"Status: . Connected", got), (number, got)

    start_many(start, STARTS)
    watch.report(STARTS)
    model_api.script = [ToolCall(PREFIX + "serpent_library_list_open")]
    claude.ask("List my Serpent libraries.")
    (listed,) = tool_results(conversation(model_api))
    assert not listed.get("is_error") and '"status":"ok"' in result_text(listed)
