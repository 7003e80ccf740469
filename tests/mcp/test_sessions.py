"""Several connections at once, and reconnecting after a server restart: the tool list and the
explicit-libraryId behaviour stay the same; no session ever carries a library."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.conftest import Server, call, connect, create_library, error_code, ok, run


async def tool_list(client: object) -> list[str]:
    return sorted(t.name for t in (await client.list_tools()).tools)  # type: ignore[attr-defined]


def test_many_clients_at_once_each_name_their_library(server: Server, tmp_path: Path) -> None:
    token = server.token()

    async def scenario() -> None:
        async with connect(server.url, token, "legacy") as setup:
            first = await create_library(setup, tmp_path / "a", "First")
            second = await create_library(setup, tmp_path / "b", "Second")
            await ok(setup, "serpent_folder_create", {"libraryId": second, "name": "Only B"})
            reference = await tool_list(setup)

        async def one_client(mode: str, index: int) -> None:
            async with connect(server.url, token, mode) as client:
                assert await tool_list(client) == reference
                target = first if index % 2 else second
                for _ in range(3):
                    envelope = await call(client, "serpent_folder_list", {"libraryId": target})
                    assert envelope["libraryId"] == target
                    names = {f["name"] for f in envelope["result"]["items"]}
                    assert ("Only B" in names) == (target == second)
                    assert await error_code(client, "serpent_folder_list") == "LIBRARY_REQUIRED"

        await asyncio.gather(*(one_client(mode, i) for i, mode in
                               enumerate(["legacy", "legacy", "legacy", "auto", "auto"])))

    run(scenario())


def test_after_a_restart_clients_see_the_same_tools_and_libraries(server: Server,
                                                                   tmp_path: Path) -> None:
    token = server.token()
    port = server.port

    async def scenario() -> None:
        async with connect(server.url, token, "legacy") as old_legacy, \
                connect(server.url, token, "auto") as modern:
            library = await create_library(old_legacy, tmp_path)
            before = await tool_list(old_legacy)
            assert await tool_list(modern) == before
            await asyncio.to_thread(server.service.stop)
            assert (await asyncio.to_thread(server.service.start, port)).running
            # modern clients have no session: they simply carry on
            assert await tool_list(modern) == before
            await ok(modern, "serpent_folder_list", {"libraryId": library})
            assert await error_code(modern, "serpent_folder_list") == "LIBRARY_REQUIRED"
            # a handshake-era session died with the old server: the client reconnects
            with pytest.raises(MCPError, match="Session not found"):
                await old_legacy.list_tools()
            async with connect(server.url, token, "legacy") as new_legacy:
                assert await tool_list(new_legacy) == before
                await ok(new_legacy, "serpent_folder_list", {"libraryId": library})
                assert await error_code(new_legacy, "serpent_folder_list") == \
                    "LIBRARY_REQUIRED"

    run(scenario())
