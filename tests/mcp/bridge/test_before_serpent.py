"""A stdio client started before Serpent (Claude Desktop opened first): the bridge answers
`initialize`, lists the credential's tools and prompts, tells the person in every tool result
to start Serpent, and serves real calls in the same session once Serpent runs, with
`tools/list_changed` when Serpent lists other tools than the client saw. Driven by the Python
SDK's stdio client in both protocol eras; the TypeScript SDK does the same in
test_ts_before_serpent.py."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged

from serpent_tk.automation.gateway import Gateway
from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.server import INSTRUCTIONS
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from tests.mcp.bridge.test_relay import bridge_params
from tests.mcp.conftest import Server, call, connect, ok, run
from tests.mcp.test_notifications import PROBE, Inbox
from tests.mcp.test_ts_client import submit
from tests.plugins.conftest import TEST_LIMITS
from tests.plugins.samples import COUNTER, write_plugin

PLUGIN_TOOL = "serpent_plugin_counter_count"


def tool_dicts(tools: list[types.Tool]) -> list[dict[str, Any]]:
    return sorted((t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools),
                  key=lambda t: str(t["name"]))


async def not_running(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The tool error a call gets from the bridge while Serpent is not running."""
    envelope = await call(client, tool, args)  # also: structured == text, isError
    assert envelope["status"] == "error", envelope
    error: dict[str, Any] = envelope["error"]
    assert error["code"] == "SERPENT_NOT_RUNNING" and error["retryable"] is True, error
    assert "Open the Serpent app" in error["message"]
    return error


@pytest.fixture
def later(gateway: Gateway, credentials: CredentialStore) -> Iterator[Server]:
    """Serpent, not started yet: the test starts it when the client is already connected."""
    serpent = Server(gateway, credentials)
    yield serpent
    serpent.service.stop()


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_a_client_started_before_serpent_works_once_serpent_runs(
        later: Server, tmp_path: Path, era: str) -> None:
    token = later.token("Claude Desktop", toolset="essentials")
    inbox = Inbox()

    async def scenario() -> None:
        async with Client(bridge_params(token, 9), mode=era,
                          message_handler=inbox.on_message) as bridged:
            assert bridged.protocol_version == ("2025-11-25" if era == "legacy"
                                                else "2026-07-28")
            assert bridged.instructions == INSTRUCTIONS
            before = tool_dicts((await bridged.list_tools()).tools)
            prompts = sorted(p.name for p in (await bridged.list_prompts()).prompts)
            error = await not_running(bridged, "serpent_library_list_open", {})
            assert "libraryId" not in error
            targeted = await not_running(bridged, "serpent_asset_search",
                                         {"libraryId": "lib_0123456789abcdef"})
            assert targeted["libraryId"] == "lib_0123456789abcdef"
            with pytest.raises(MCPError, match="Unknown tool"):  # outside essentials
                await bridged.call_tool("serpent_tag_merge", {})
            with pytest.raises(MCPError, match="Open the Serpent app"):
                await bridged.get_prompt("tag-untagged", {})

            assert (await asyncio.to_thread(later.start)).running  # Serpent second
            (tmp_path / "libs").mkdir()
            library = (await asyncio.to_thread(submit, later, "library.create", {
                "selectedParentPath": str(tmp_path / "libs"), "name": "Refs"}))["libraryId"]
            listed = await ok(bridged, "serpent_library_list_open")  # the same session
            assert [i["libraryId"] for i in listed["items"]] == [library]
            await ok(bridged, "serpent_folder_create", {"libraryId": library, "name": "Skies"})
            async with connect(later.url, token, era) as direct:
                assert tool_dicts((await direct.list_tools()).tools) == before
                assert prompts == sorted(p.name for p in (await direct.list_prompts()).prompts)
            assert tool_dicts((await bridged.list_tools()).tools) == before
            prompt = await bridged.get_prompt("tag-untagged", {"library": "Refs"})
            assert library in prompt.messages[0].content.text  # type: ignore[union-attr]
        # the same tools as Serpent lists, so nobody was told of a change
        assert PROBE not in inbox.notes

    run(scenario())


def test_the_stand_in_answers_as_serpent_would(later: Server) -> None:
    token = later.token("Everything")

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
        async with Client(bridge_params(token, 9), mode="legacy") as bridged:
            templates = (await bridged.list_resource_templates()).resource_templates
            resources = (await bridged.list_resources()).resources
            page = await bridged.read_resource(resources[0].uri)
            with pytest.raises(MCPError, match="Open the Serpent app"):
                await bridged.read_resource(
                    "serpent://libraries/lib_0123456789abcdef/assets/ast_01j9z3k4m5n6p7q8r9s0t1v2w3")
            capabilities = bridged.server_capabilities.model_dump(mode="json", exclude_none=True)
            return capabilities, [t.model_dump(mode="json") for t in templates], \
                [page.contents[0].mime_type or "", *[r.name for r in resources]]

    offline = run(scenario())
    later.start()

    async def direct() -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
        async with connect(later.url, token, "legacy") as client:
            templates = (await client.list_resource_templates()).resource_templates
            resources = (await client.list_resources()).resources
            page = await client.read_resource(resources[0].uri)
            capabilities = client.server_capabilities.model_dump(mode="json", exclude_none=True)
            return capabilities, [t.model_dump(mode="json") for t in templates], \
                [page.contents[0].mime_type or "", *[r.name for r in resources]]

    assert offline == run(direct())  # no library open: the same resources, the app's page


def test_an_unknown_token_is_refused_without_serpent_too(later: Server) -> None:
    later.token("Claude Desktop")

    async def scenario() -> None:
        async with Client(bridge_params("not-a-token-of-this-serpent-0123", 9), mode="legacy"):
            pass

    with pytest.raises(MCPError, match="refused this client's credential"):
        run(scenario())


@pytest.fixture
def plugins(gateway: Gateway) -> Iterator[PluginManager]:
    dirs = app_dirs().ensure()
    dirs.plugins.mkdir(parents=True, exist_ok=True)
    write_plugin(dirs.plugins, "counter", COUNTER, commands=("count",))
    manager = PluginManager(gateway, SettingsStore(dirs.settings_file), dirs.plugins,
                            status_file=dirs.plugin_status, limits=TEST_LIMITS,
                            entry_points=False, watch_interval_s=0.1)
    manager.start().result(60)
    manager.set_exposed("counter", True)
    manager.set_enabled("counter", True)
    yield manager
    manager.shutdown()


def test_the_client_hears_when_serpent_lists_other_tools(later: Server,
                                                         plugins: PluginManager) -> None:
    """The bridge knows Serpent's own tools; a plugin's come with the running Serpent."""
    token = later.token("Full", "full-access")
    inbox = Inbox()

    async def scenario() -> None:
        async with Client(bridge_params(token, 9), mode="legacy",
                          message_handler=inbox.on_message) as bridged:
            assert PLUGIN_TOOL not in {t.name for t in (await bridged.list_tools()).tools}
            await asyncio.to_thread(later.start)
            await inbox.wait_for(lambda: PROBE in inbox.notes)  # without a call of ours
            assert PLUGIN_TOOL in {t.name for t in (await bridged.list_tools()).tools}
            await asyncio.to_thread(later.service.stop)
            stopped = await call(bridged, PLUGIN_TOOL, {"libraryId": "lib_0123456789abcdef",
                                                        "assetIds": []})
            assert stopped["error"]["code"] == "SERPENT_NOT_RUNNING"  # not "unknown tool"

    run(scenario())


def test_a_modern_client_hears_it_on_its_listen_stream(later: Server,
                                                       plugins: PluginManager) -> None:
    token = later.token("Full", "full-access")

    async def scenario() -> None:
        async with Client(bridge_params(token, 9), mode="auto") as bridged:
            assert PLUGIN_TOOL not in {t.name for t in (await bridged.list_tools()).tools}
            async with bridged.listen(tools_list_changed=True) as subscription:
                await asyncio.to_thread(later.start)
                async for event in subscription:
                    assert event == ToolsListChanged()
                    break
            assert PLUGIN_TOOL in {t.name for t in (await bridged.list_tools()).tools}

    run(scenario())


def test_the_bridge_writes_only_protocol_lines_while_serpent_is_away(later: Server) -> None:
    """A raw stdio session (what Claude Desktop sees): every line is one JSON-RPC message."""
    token = later.token("Claude Desktop")
    params = bridge_params(token, 9)
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "serpent_library_list_open", "arguments": {}}}]
    with subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env={**os.environ, **(params.env or {})}) as bridge:
        try:
            assert bridge.stdin is not None and bridge.stdout is not None
            bridge.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
            bridge.stdin.flush()
            answers = [json.loads(bridge.stdout.readline()) for _ in range(2)]
            bridge.stdin.close()
            assert bridge.wait(30) == 0
            assert bridge.stdout.read() == ""
        finally:
            if bridge.poll() is None:
                bridge.kill()
    assert [a.get("id") for a in answers] == [0, 1], answers
    assert answers[1]["result"]["isError"] is True
    assert answers[1]["result"]["structuredContent"]["error"]["code"] == "SERPENT_NOT_RUNNING"
