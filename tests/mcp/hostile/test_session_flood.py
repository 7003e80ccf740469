"""Hostile clients and sessions: one credential flooding sessions never locks the others out,
revoking it ends its sessions and open streams at once, idle sessions expire.

Real server, real HTTP: the flooder speaks raw HTTP (as a misbehaving client would), the others
are the SDK's own client.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx2
import pytest
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from serpent_tk.mcp import server as server_module
from serpent_tk.mcp.http import sessions
from tests.mcp.conftest import Server, connect, ok, run

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
VERSION = "2025-11-25"
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {},
    "clientInfo": {"name": "flood", "version": "1"}}})


async def open_session(http: httpx2.AsyncClient, url: str, token: str) -> httpx2.Response:
    return await http.post(url, headers={**HEADERS, "authorization": f"Bearer {token}"},
                           content=INITIALIZE)


async def hold_stream(http: httpx2.AsyncClient, url: str, token: str, session: str,
                      opened: asyncio.Event) -> str:
    """Open the session's GET stream and read it until the server ends it."""
    headers = {"authorization": f"Bearer {token}", "accept": "text/event-stream",
               "mcp-session-id": session, "mcp-protocol-version": VERSION}
    async with http.stream("GET", url, headers=headers) as response:
        if response.status_code != 200:
            return f"status {response.status_code}"
        opened.set()
        try:
            async for _chunk in response.aiter_bytes():
                pass
        except httpx2.HTTPError as error:
            return f"cut ({type(error).__name__})"
    return "ended"


def test_the_sdk_hooks_the_session_room_relies_on_still_exist() -> None:
    """CountedSessionManager overrides private SDK methods: fail loudly if they move."""
    for name in ("_admit_session", "_discard_session", "_handle_stateful_request"):
        assert callable(getattr(StreamableHTTPSessionManager, name, None)), name
    manager = sessions.CountedSessionManager(object(), max_sessions=2)  # type: ignore[arg-type]
    assert isinstance(manager._server_instances, dict)  # noqa: SLF001


def test_a_session_flood_from_one_credential_leaves_room_for_the_others(
        server: Server) -> None:
    flooder = server.token("Flooder", "read-only")
    other = server.token("Claude Desktop")
    cap = sessions.SESSIONS_PER_CREDENTIAL

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=20) as http:
            answers = [await open_session(http, server.url, flooder) for _ in range(cap + 40)]
            statuses = [a.status_code for a in answers]
            assert statuses[:cap] == [200] * cap, statuses
            assert set(statuses[cap:]) == {429}, statuses
            refusal = answers[cap].json()["error"]["message"]
            assert f"{cap} open MCP sessions" in refusal and "minutes" in refusal
            assert answers[cap].headers.get("connection") == "close"
        for mode in ("legacy", "auto"):  # another credential still connects and works
            async with connect(server.url, other, mode) as client:
                assert (await ok(client, "serpent_library_list_open"))["items"] == []

    run(scenario())


def test_revoking_a_credential_ends_its_sessions_and_streams_at_once(server: Server) -> None:
    flooder = server.token("Flooder", "read-only")
    other = server.token("Claude Desktop")

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(20, read=120)) as http, \
                connect(server.url, other, "legacy") as bystander:
            ids = []
            for _ in range(sessions.SESSIONS_PER_CREDENTIAL):
                answer = await open_session(http, server.url, flooder)
                assert answer.status_code == 200
                ids.append(answer.headers["mcp-session-id"])
            opened = [asyncio.Event() for _ in ids]
            streams = [asyncio.ensure_future(hold_stream(http, server.url, flooder, s, e))
                       for s, e in zip(ids, opened, strict=True)]
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in opened)), 20)
            assert not any(s.done() for s in streams)
            await asyncio.to_thread(server.credentials.revoke, "Flooder")
            ended = await asyncio.wait_for(asyncio.gather(*streams), 15)  # not at a request
            assert all(e in ("ended",) or e.startswith("cut") for e in ended), ended
            # its room is free again: a new credential may open as many sessions
            newcomer = await asyncio.to_thread(server.token, "Newcomer", "read-only")
            again = [await open_session(http, server.url, newcomer)
                     for _ in range(sessions.SESSIONS_PER_CREDENTIAL)]
            assert {a.status_code for a in again} == {200}
            assert (await ok(bystander, "serpent_library_list_open"))["items"] == []
            refused = await http.post(server.url, headers={
                **HEADERS, "authorization": f"Bearer {flooder}", "mcp-session-id": ids[0],
                "mcp-protocol-version": VERSION},
                content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            assert refused.status_code == 401

    run(scenario())


def test_idle_sessions_expire_but_an_open_stream_holds_its_session(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's idle timeout as wired here: no request and no open GET stream for that
    long ends a session (404 afterwards); a session with its GET stream open stays."""
    monkeypatch.setattr(server_module, "SESSION_IDLE_TIMEOUT_S", 1.0)
    server.service.stop()
    server.start()
    token = server.token()

    async def post(http: httpx2.AsyncClient, session: str) -> int:
        answer = await http.post(server.url, headers={
            **HEADERS, "authorization": f"Bearer {token}", "mcp-session-id": session,
            "mcp-protocol-version": VERSION},
            content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return answer.status_code

    async def scenario() -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(20, read=60)) as http:
            idle = (await open_session(http, server.url, token)).headers["mcp-session-id"]
            held = (await open_session(http, server.url, token)).headers["mcp-session-id"]
            opened = asyncio.Event()
            stream = asyncio.ensure_future(hold_stream(http, server.url, token, held, opened))
            await asyncio.wait_for(opened.wait(), 10)
            deadline = time.monotonic() + 20
            while await post(http, idle) != 404:
                assert time.monotonic() < deadline, "the idle session never expired"
                await asyncio.sleep(2.0)  # a poll is a request: leave the session idle > 1 s
            held_status = await post(http, held)
            stream.cancel()
            return {"held": held_status}

    assert run(scenario())["held"] == 202
