"""Credentials against a live server: modes per credential, isolation, revoke and re-mode from
another process (the CLI) applying to the very next request of a live session."""

from __future__ import annotations

import asyncio
import json
import subprocess

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import serpent_command
from tests.mcp.conftest import ERAS, Server, connect, ok, run

WRITE_TOOLS = {"serpent_asset_tag", "serpent_asset_trash", "serpent_library_create"}
READ_TOOLS = {"serpent_library_list_open", "serpent_asset_search",
              "serpent_library_change_sequence"}


async def tool_names(server: Server, token: str, mode: str) -> set[str]:
    async with connect(server.url, token, mode) as client:
        return {t.name for t in (await client.list_tools()).tools}


def cli(*args: str) -> str:
    done = subprocess.run(serpent_command(*args), capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stdout


@pytest.mark.parametrize("mode", ERAS)
def test_each_credential_sees_the_tools_of_its_own_mode(server: Server, mode: str) -> None:
    reader = server.token("Viewer", "read-only")
    helper = server.token("Helper", "auto")

    async def both() -> tuple[set[str], set[str]]:
        return await asyncio.gather(tool_names(server, reader, mode),
                                    tool_names(server, helper, mode))

    read_only, auto = run(both())
    assert read_only >= READ_TOOLS and not (WRITE_TOOLS & read_only)
    assert auto >= READ_TOOLS | WRITE_TOOLS
    assert read_only < auto


def test_modes_persist_and_a_cli_mode_change_applies_to_the_live_session(
        server: Server) -> None:
    token = server.token("Claude Desktop", "read-only")

    async def scenario() -> None:
        async with connect(server.url, token, "legacy") as client:
            before = {t.name for t in (await client.list_tools()).tools}
            assert not (WRITE_TOOLS & before)
            envelope = (await client.call_tool("serpent_library_create", {
                "selectedParentPath": "/tmp", "name": "X"})).structured_content
            assert envelope is not None
            assert envelope["error"]["code"] == "PERMISSION_DENIED"
            await asyncio.to_thread(cli, "credential", "mode", "Claude Desktop", "auto")
            after = {t.name for t in (await client.list_tools()).tools}
            assert after >= WRITE_TOOLS  # same session, next request

    run(scenario())
    listed = cli("credential", "list")
    assert "Claude Desktop" in listed and "auto" in listed
    assert token not in listed


@pytest.mark.parametrize("mode", ERAS)
def test_a_revoked_token_is_cut_at_its_next_request(server: Server, mode: str) -> None:
    doomed = server.token("Doomed")
    other = server.token("Other")

    async def scenario() -> None:
        async with connect(server.url, other, mode) as survivor:
            async with connect(server.url, doomed, mode) as client:
                await ok(client, "serpent_library_list_open")
                await asyncio.to_thread(cli, "credential", "revoke", "Doomed")
                with pytest.raises(MCPError):
                    await client.call_tool("serpent_library_list_open", {})
            await ok(survivor, "serpent_library_list_open")  # others are untouched

    try:
        run(scenario())
    except BaseExceptionGroup as group:  # closing a refused session reports the 401 too
        assert not group.subgroup(AssertionError), group
    with httpx2.Client(timeout=10) as http:
        response = http.post(server.url, headers={
            "authorization": f"Bearer {doomed}", "content-type": "application/json",
            "accept": "application/json, text/event-stream"},
            content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    assert response.status_code == 401


def test_a_session_belongs_to_the_credential_that_opened_it(server: Server) -> None:
    first = server.token("First")
    second = server.token("Second")
    headers = {"content-type": "application/json",
               "accept": "application/json, text/event-stream"}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    with httpx2.Client(timeout=10) as http:
        opened = http.post(server.url, headers={**headers, "authorization": f"Bearer {first}"},
                           content=json.dumps(initialize))
        session = opened.headers["mcp-session-id"]
        hijack = http.post(server.url, headers={
            **headers, "authorization": f"Bearer {second}", "mcp-session-id": session,
            "mcp-protocol-version": "2025-11-25"},
            content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    assert hijack.status_code == 404
