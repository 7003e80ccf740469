"""Gemini CLI (`@google/gemini-cli`, locked in tests/node/gemini-cli) against Serpent: `gemini mcp
add/list` connect without a login; headless `gemini -p --yolo` runs against the model stand-in
(auth type gemini-api-key, GOOGLE_GEMINI_BASE_URL) show what it hands its model: Serpent's
tools for the credential's toolset, a result, an error it can read, an image, an expanded
prompt (`/tag-untagged --library=...`); 40 starts (Gemini never closes its session) are never
locked out. The project folder is trusted (untrusted folders disable MCP servers)."""

from __future__ import annotations

import json
import re
import subprocess
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
from tests.mcp.clients.wire_gemini import function_responses, offered
from tests.mcp.conftest import Server
from tests.nodejs import node_executable, node_project

PREFIX = "mcp_serpent_"
CONNECTED = re.compile(r"serpent: .* - Connected")
BUNDLE = Path("node_modules") / "@google" / "gemini-cli" / "bundle" / "gemini.js"


class Gemini:
    """`gemini` with its own home folder and settings: the API-key auth type, telemetry,
    usage statistics and update checks off, the project folder trusted."""

    def __init__(self, home: Path, work: Path, model_api: ModelApi) -> None:
        self.home, self.work = home, work
        work.mkdir(parents=True, exist_ok=True)
        self.env = client_env(home, {
            "GEMINI_API_KEY": "stand-in-key", "GOOGLE_GEMINI_BASE_URL": model_api.url,
            "GEMINI_CLI_NO_RELAUNCH": "true"})
        self.settings_file = home / ".gemini" / "settings.json"
        self.settings_file.parent.mkdir(parents=True, exist_ok=True)
        self._settings({"security": {"auth": {"selectedType": "gemini-api-key"}},
                        "telemetry": {"enabled": False},
                        "privacy": {"usageStatisticsEnabled": False},
                        "general": {"disableAutoUpdate": True, "disableUpdateNag": True}})
        (home / ".gemini" / "trustedFolders.json").write_text(
            json.dumps({str(work): "TRUST_FOLDER"}), encoding="utf-8")

    def _settings(self, changes: dict[str, Any]) -> None:
        current = json.loads(self.settings_file.read_text(encoding="utf-8")) \
            if self.settings_file.exists() else {}
        self.settings_file.write_text(json.dumps({**current, **changes}, indent=2),
                                      encoding="utf-8")

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_client([str(node_executable()), str(node_project("gemini-cli") / BUNDLE),
                           *args], self.env, self.work)

    def __call__(self, *args: str) -> str:
        """What a command printed (Gemini CLI prints its `mcp` answers on stderr)."""
        done = self.run(*args)
        return done.stdout + done.stderr

    def ask(self, prompt: str) -> dict[str, Any]:
        out = self.run("-p", prompt, "--yolo", "--output-format", "json").stdout
        result: dict[str, Any] = json.loads(out[out.index("{"):])
        assert "error" not in result, result
        return result


@pytest.fixture
def gemini(server: Server, tmp_path: Path, model_api: ModelApi) -> Gemini:
    client = Gemini(tmp_path / "gemini-home", tmp_path / "project", model_api)
    token = server.token("Gemini CLI", toolset="essentials")
    client("mcp", "add", "--scope", "user", "--transport", "http", "serpent", server.url,
           "--header", f"Authorization: Bearer {token}")
    entry = json.loads(client.settings_file.read_text(encoding="utf-8"))["mcpServers"]["serpent"]
    assert entry["url"] == server.url and entry["type"] == "http"
    return client


def conversation(model_api: ModelApi) -> dict[str, Any]:
    bodies = [b for b in model_api.bodies("GenerateContent") if offered(b)]
    assert bodies, "Gemini CLI never asked its model with tools"
    return bodies[-1]


def envelope(response: dict[str, Any]) -> dict[str, Any]:
    """Serpent's answer inside a functionResponse (Gemini CLI wraps the tool's text in
    `<untrusted_context>` for its model)."""
    output = str((response.get("response") or {}).get("output", ""))
    found: dict[str, Any] = json.loads(output[output.index("{"):output.rindex("}") + 1])
    return found


def error_told(response: dict[str, Any]) -> str:
    """What Gemini CLI tells its model about a tool error (`isError` results)."""
    return str((response.get("response") or {}).get("error", ""))


def test_gemini_cli_connects_without_a_login(gemini: Gemini) -> None:
    listed = gemini("mcp", "list")
    assert CONNECTED.search(listed), listed
    assert not (gemini.work / ".gemini").exists()  # the token stays in the user's settings


def test_gemini_cli_hands_its_model_serpents_tools_results_errors_and_images(
        gemini: Gemini, server: Server, library: dict[str, Any], model_api: ModelApi) -> None:
    library_id, asset_id = library["libraryId"], library["assetId"]
    model_api.script = [
        ToolCall(PREFIX + "serpent_library_list_open"),
        ToolCall(PREFIX + "serpent_asset_search", {"libraryId": library_id, "limit": 0}),
        ToolCall(PREFIX + "serpent_asset_thumbnail",
                 {"libraryId": library_id, "assetId": asset_id}),
    ]
    assert gemini.ask("What is in my Serpent library Refs?")["response"] == "Done."
    last = conversation(model_api)
    names = {d["name"] for d in offered(last) if d["name"].startswith(PREFIX)}
    assert names == {PREFIX + name for name in essentials(server)}
    listed, refused, picture = function_responses(last)
    assert envelope(listed)["result"]["items"][0]["libraryId"] == library_id
    told = error_told(refused)  # the model is told, and reads why
    assert "INVALID_ARGUMENT" in told and "limit" in told, refused
    images = [part["inlineData"] for content in last["contents"]
              for part in content.get("parts", []) if "inlineData" in part] + \
        [part["inlineData"] for part in picture.get("parts", []) if "inlineData" in part]
    assert len(images) == 1, json.dumps(picture)[:2000]
    assert images[0]["mimeType"].startswith("image/") and len(images[0]["data"]) > 100


def test_gemini_cli_expands_serpents_prompt_for_its_model(
        gemini: Gemini, library: dict[str, Any], model_api: ModelApi) -> None:
    gemini.ask('/tag-untagged --library="Refs"')
    asked = json.dumps([b.get("contents") for b in model_api.bodies(":streamGenerateContent")],
                       ensure_ascii=False)
    assert "Tag the untagged pictures" in asked and library["libraryId"] in asked


@STARTS_TIMEOUT
def test_forty_gemini_cli_starts_are_never_locked_out(
        gemini: Gemini, library: dict[str, Any], model_api: ModelApi) -> None:
    """Gemini CLI 0.61 (2025 era) never sends DELETE: every start leaves its session behind,
    so this fails unless Serpent reclaims the credential's idle sessions."""
    watch = Stopwatch("gemini mcp list")

    def start(_number: int) -> None:
        listed = gemini("mcp", "list")
        assert CONNECTED.search(listed), listed

    start_many(start, STARTS)
    watch.report(STARTS)
    model_api.script = [ToolCall(PREFIX + "serpent_library_list_open")]
    gemini.ask("List my Serpent libraries.")
    (listed,) = function_responses(conversation(model_api))
    assert envelope(listed)["result"]["items"][0]["libraryId"] == library["libraryId"]
