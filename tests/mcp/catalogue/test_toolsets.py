"""Toolsets per credential (docs/contracts.md §7): a new credential sees the essentials, a tool
outside its toolset is hidden exactly like an unknown one, and changing the toolset (window or
CLI) tells that credential's sessions and listen streams only, in both protocol eras."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import PromptsListChanged, ToolsListChanged

from serpent_tk.automation import policy
from serpent_tk.automation.events import ToolsChanged
from tests.mcp.conftest import Server, connect, ok, run
from tests.mcp.test_cli import cli
from tests.mcp.test_notifications import WAIT_S, Inbox, _until, streaming

TOOLS_CHANGED = "ToolListChangedNotification"
PROMPTS_CHANGED = "PromptListChangedNotification"


def essentials(server: Server) -> set[str]:
    return {s.tool_name for s in server.gateway.registry.commands.values() if s.essential}


def test_a_new_credential_sees_the_essentials_and_nothing_else(server: Server, era: str,
                                                               tmp_path: Path) -> None:
    token = server.credentials.create("Cursor")[1]  # as the CLI and the window make them
    assert server.credentials.get("Cursor").toolset == "essentials"  # type: ignore[union-attr]

    async def scenario() -> None:
        async with connect(server.url, token, era) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert listed == essentials(server)
            assert len(listed) <= policy.ESSENTIALS_LIMIT
            library = await asyncio.to_thread(create_library_via_gateway, server, tmp_path)
            assert (await ok(client, "serpent_asset_search", {"libraryId": library}))[
                "total"] == 0
            # outside the toolset: the very answer an unknown tool gets (JSON-RPC -32602)
            answers = []
            for name in ("serpent_library_info", "serpent_no_such_tool"):
                with pytest.raises(MCPError) as caught:
                    await client.call_tool(name, {"libraryId": library})
                answers.append((caught.value.error.code,
                                caught.value.error.message.replace(name, "NAME")))
            assert answers[0] == answers[1] and answers[0][0] == -32602

    run(scenario())


def create_library_via_gateway(server: Server, tmp_path: Path) -> str:
    """A library made at the window (essentials hold no library.create)."""
    from serpent_tk.automation.caller import Caller

    (tmp_path / "libs").mkdir(exist_ok=True)
    answer = server.gateway.submit("library.create", {
        "selectedParentPath": str(tmp_path / "libs"), "name": "Refs"}, Caller.ui()).result(60)
    assert answer["status"] == "ok", answer
    return str(answer["result"]["libraryId"])


def test_a_toolset_change_reaches_that_credentials_sessions_only(server: Server,
                                                                 tmp_path: Path) -> None:
    mine, other = Inbox(), Inbox()
    server.token("Mine", toolset="essentials")
    server.token("Other", toolset="essentials")

    async def scenario() -> None:
        async with connect(server.url, server.token("Mine"), "legacy",
                           message_handler=mine.on_message) as client, \
                connect(server.url, server.token("Other"), "legacy",
                        message_handler=other.on_message):
            assert client.server_capabilities.prompts.list_changed is True  # type: ignore[union-attr]
            await streaming(server, mine, other)  # both GET streams are open
            # (the probes are tools/list_changed for everyone; only a credential's own change
            # also changes its prompts: that notification tells whose change reached whom)
            await asyncio.to_thread(server.credentials.set_toolset, "Mine", "everything")
            await mine.wait_for(lambda: PROMPTS_CHANGED in mine.notes)
            assert mine.notes[-2:] == [TOOLS_CHANGED, PROMPTS_CHANGED]
            listed = {t.name for t in (await client.list_tools()).tools}
            assert listed == {s.tool_name for s in server.gateway.registry.tools("auto")
                              if not s.internal}  # Serpent's internal commands never are
            # a library opening or closing changes no tool list
            library = await asyncio.to_thread(create_library_via_gateway, server, tmp_path)
            await ok(client, "serpent_library_close", {"libraryId": library})
            # the other credential's own change comes after: had mine reached it, it would
            # have arrived first (a stream delivers in order)
            await asyncio.to_thread(server.credentials.set_toolset, "Other", "everything")
            await other.wait_for(lambda: PROMPTS_CHANGED in other.notes)
            assert other.notes.count(PROMPTS_CHANGED) == 1
            assert other.notes[-2:] == [TOOLS_CHANGED, PROMPTS_CHANGED]
            assert mine.notes.count(PROMPTS_CHANGED) == 1

    run(scenario())


def test_modern_listen_streams_hear_their_own_credentials_change(server: Server) -> None:
    server.token("Mine", toolset="everything")
    server.token("Other", toolset="everything")
    heard: dict[str, list[object]] = {"Mine": [], "Other": []}

    async def scenario() -> None:
        async with connect(server.url, server.token("Mine"), "auto") as mine, \
                connect(server.url, server.token("Other"), "auto") as other:
            async with mine.listen(tools_list_changed=True, prompts_list_changed=True) as a, \
                    other.listen(tools_list_changed=True, prompts_list_changed=True) as b:
                async def collect(name: str, subscription: object) -> None:
                    async for event in subscription:  # type: ignore[attr-defined]
                        heard[name].append(event)

                tasks = [asyncio.ensure_future(collect("Mine", a)),
                         asyncio.ensure_future(collect("Other", b))]
                await asyncio.to_thread(server.credentials.set_toolset, "Mine", "essentials")
                await asyncio.wait_for(_until(lambda: len(heard["Mine"]) >= 2), WAIT_S)
                server.gateway.publish(ToolsChanged())  # everyone's: a marker
                await asyncio.wait_for(_until(lambda: len(heard["Other"]) >= 1), WAIT_S)
                await asyncio.wait_for(_until(lambda: len(heard["Mine"]) >= 3), WAIT_S)
                for task in tasks:
                    task.cancel()
            assert heard["Mine"] == [ToolsListChanged(), PromptsListChanged(), ToolsListChanged()]
            assert heard["Other"] == [ToolsListChanged()]  # the marker only
            listed = {t.name for t in (await mine.list_tools()).tools}
            assert listed == essentials(server)

    run(scenario())


def test_the_cli_switches_a_toolset_and_a_live_session_is_told(server: Server) -> None:
    inbox = Inbox()
    token = server.token("Claude Code", toolset="essentials")

    async def scenario() -> None:
        async with connect(server.url, token, "legacy", message_handler=inbox.on_message) as c:
            await streaming(server, inbox)
            done = await asyncio.to_thread(cli, "credential", "toolset", "Claude Code",
                                           "everything")
            assert "everything" in done.stdout
            await inbox.wait_for(lambda: TOOLS_CHANGED in inbox.notes)
            assert "serpent_library_info" in {t.name for t in (await c.list_tools()).tools}

    run(scenario())
    listing = cli("credential", "list").stdout
    assert "TOOLSET" in listing and "everything" in listing
    refused = cli("credential", "toolset", "Claude Code", "all", check=False)
    assert refused.returncode != 0
