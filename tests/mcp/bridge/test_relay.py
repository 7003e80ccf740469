"""The stdio bridge, started exactly as the Claude Desktop config says and driven by the SDK's
stdio client: tools and notifications pass through, capabilities arrive unchanged, a stopped
app gets a clear "open Serpent" tool error, a restarted app is picked up again (a client
started before Serpent: test_before_serpent.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp.shared.exceptions import MCPError

from serpent_tk.mcp.client_configs import server_entry
from tests.mcp.conftest import Server, call, connect, create_library, ok, run
from tests.mcp.test_notifications import Inbox, streaming, ui_write


def bridge_params(token: str | None, port: int) -> StdioServerParameters:
    entry: dict[str, Any] = server_entry("claude-desktop", port=port, token=token or "")
    env = dict(entry["env"])
    if token is None:
        env.pop("SERPENT_MCP_TOKEN")
    return StdioServerParameters(command=entry["command"], args=entry["args"], env=env)


def test_the_claude_desktop_config_starts_a_working_bridge(server: Server,
                                                           tmp_path: Path) -> None:
    token = server.token("Claude Desktop")
    inbox = Inbox()

    async def scenario() -> None:
        apps = advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})
        async with Client(bridge_params(token, server.port), mode="legacy",
                          logging_callback=inbox.on_log, message_handler=inbox.on_message,
                          extensions=[apps]) as bridged, \
                connect(server.url, token, "legacy") as direct:
            assert bridged.protocol_version == "2025-11-25"
            assert bridged.instructions == direct.instructions
            tools = sorted(t.name for t in (await bridged.list_tools()).tools)
            assert tools == sorted(t.name for t in (await direct.list_tools()).tools)
            library = await create_library(bridged, tmp_path)
            assert (await ok(direct, "serpent_library_list_open"))["items"][0]["libraryId"] \
                == library
            # the client's capabilities reached Serpent unchanged (MCP Apps advertised)
            sessions = [s for s in server.service.sessions() if s.apps]
            assert [(s.credential, s.protocol_version) for s in sessions] == [
                ("Claude Desktop", "2025-11-25")]
            # the server's own notifications come through the bridge's GET stream
            await streaming(server, inbox)
            await asyncio.to_thread(ui_write, server, library, "From the window")
            await inbox.wait_for(lambda: any(e["libraryId"] == library
                                             for e in inbox.library_events()))

    run(scenario())


def test_a_modern_stdio_client_works_through_the_bridge(server: Server) -> None:
    token = server.token()

    async def scenario() -> None:
        async with Client(bridge_params(token, server.port), mode="auto") as bridged:
            assert bridged.protocol_version == "2026-07-28"
            assert (await ok(bridged, "serpent_library_list_open"))["items"] == []

    run(scenario())


def test_a_bridge_without_a_token_says_what_to_do(server: Server) -> None:
    async def scenario() -> None:
        async with Client(bridge_params(None, server.port), mode="legacy"):
            pass

    with pytest.raises(MCPError, match="SERPENT_MCP_TOKEN"):
        run(scenario())


def test_the_bridge_survives_a_serpent_restart(server: Server, tmp_path: Path) -> None:
    token = server.token()
    port = server.port

    async def scenario() -> None:
        async with Client(bridge_params(token, port), mode="legacy") as bridged:
            library = await create_library(bridged, tmp_path)
            before = sorted(t.name for t in (await bridged.list_tools()).tools)
            await asyncio.to_thread(server.service.stop)
            assert sorted(t.name for t in (await bridged.list_tools()).tools) == before
            stopped = await call(bridged, "serpent_folder_list", {"libraryId": library})
            assert stopped["error"]["code"] == "SERPENT_NOT_RUNNING"
            assert (await asyncio.to_thread(server.service.start, port)).running
            assert sorted(t.name for t in (await bridged.list_tools()).tools) == before
            await ok(bridged, "serpent_folder_list", {"libraryId": library})

    run(scenario())
