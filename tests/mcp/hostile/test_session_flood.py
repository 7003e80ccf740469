"""Hostile clients and sessions: one credential flooding sessions never locks the others out
(it only ever reclaims its own idle sessions), a new session is refused only while every
session of the credential is busy, revoking a credential ends its sessions and open streams at
once, idle sessions expire.

Real server, real HTTP: the flooder speaks raw HTTP (as a misbehaving client would), the others
are the SDK's own client.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from serpent_tk.mcp import server as server_module
from serpent_tk.mcp.http import sessions
from tests.mcp.conftest import Server, connect, ok, run
from tests.waiting import async_wait_until

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
    assert isinstance(manager._session_owners, dict)  # noqa: SLF001
    assert hasattr(manager, "_task_group")


def test_a_session_flood_from_one_credential_leaves_room_for_the_others(
        server: Server) -> None:
    """The flooder's every `initialize` is answered, by reclaiming its own least recently
    used idle session: it never holds more than its cap, and never takes another
    credential's session or room."""
    flooder = server.token("Flooder", "read-only")
    other = server.token("Claude Desktop")
    cap = sessions.SESSIONS_PER_CREDENTIAL

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=20) as http, \
                connect(server.url, other, "legacy") as bystander:
            answers = [await open_session(http, server.url, flooder) for _ in range(cap + 40)]
            assert [a.status_code for a in answers] == [200] * (cap + 40)
            ids = [a.headers["mcp-session-id"] for a in answers]
            alive = [await post_in(http, server.url, flooder, s) for s in ids]
            assert alive == [404] * 40 + [202] * cap  # the oldest went, the newest stayed
            # the other credential's session was never reclaimed, and new ones still open
            assert (await ok(bystander, "serpent_library_list_open"))["items"] == []
        for mode in ("legacy", "auto"):
            async with connect(server.url, other, mode) as client:
                assert (await ok(client, "serpent_library_list_open"))["items"] == []

    run(scenario())


async def post_in(http: httpx2.AsyncClient, url: str, token: str, session: str) -> int:
    """The status of a notification sent in `session` (202 alive, 404 ended)."""
    answer = await http.post(url, headers={
        **HEADERS, "authorization": f"Bearer {token}", "mcp-session-id": session,
        "mcp-protocol-version": VERSION},
        content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return answer.status_code


def test_a_new_session_is_refused_only_while_every_session_is_busy(server: Server) -> None:
    """Every session of the credential has a request in flight (here: a call whose body is
    still arriving): the next `initialize` gets 429 with a sentence a person can act on;
    once one request is done, the next start reclaims that session."""
    token = server.token("Busy")
    cap = sessions.SESSIONS_PER_CREDENTIAL

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=60),
                                      limits=httpx2.Limits(max_connections=cap + 8)) as http:
            ids = [(await open_session(http, server.url, token)).headers["mcp-session-id"]
                   for _ in range(cap)]
            release = asyncio.Event()
            started = [asyncio.Event() for _ in ids]

            async def body(began: asyncio.Event) -> Any:
                yield b'{"jsonrpc": "2.0", "id": 7, '
                began.set()
                await release.wait()
                yield b'"method": "tools/list"}'

            async def slow_call(session: str, began: asyncio.Event) -> int:
                answer = await http.post(server.url, headers={
                    **HEADERS, "authorization": f"Bearer {token}", "mcp-session-id": session,
                    "mcp-protocol-version": VERSION}, content=body(began))
                return answer.status_code

            calls = [asyncio.ensure_future(slow_call(s, e))
                     for s, e in zip(ids, started, strict=True)]
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in started)), 20)
            refused = await open_session(http, server.url, token)
            assert refused.status_code == 429
            message = refused.json()["error"]["message"]
            assert f"{cap} MCP sessions" in message and "in the middle of a request" in message
            assert "Settings → MCP" in message and "connect again" in message
            assert refused.headers.get("retry-after") == "5"
            release.set()
            assert await asyncio.wait_for(asyncio.gather(*calls), 20) == [200] * cap
            again = await open_session(http, server.url, token)
            assert again.status_code == 200
            alive = [await post_in(http, server.url, token, s) for s in ids]
            assert sorted(alive) == [202] * (cap - 1) + [404]  # one went to make room

    run(scenario())


def test_requests_beyond_the_credentials_cap_wait_their_turn_and_never_touch_others(
        server: Server) -> None:
    """A credential with `REQUESTS_PER_CREDENTIAL` requests in flight gets 429 for the next
    one, with `Retry-After` and a sentence; another credential is served meanwhile; once the
    answers are in, the very next request of the first is served (none still counted)."""
    token, other = server.token("Greedy"), server.token("Claude Desktop")
    cap = sessions.REQUESTS_PER_CREDENTIAL

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=60),
                                      limits=httpx2.Limits(max_connections=cap + 8)) as http:
            session = (await open_session(http, server.url, token)).headers["mcp-session-id"]
            release = asyncio.Event()
            started = [asyncio.Event() for _ in range(cap)]

            async def body(number: int, began: asyncio.Event) -> Any:
                yield f'{{"jsonrpc": "2.0", "id": {100 + number}, '.encode()
                began.set()
                await release.wait()
                yield b'"method": "tools/list"}'

            async def slow_call(number: int, began: asyncio.Event) -> int:
                answer = await http.post(server.url, headers={
                    **HEADERS, "authorization": f"Bearer {token}", "mcp-session-id": session,
                    "mcp-protocol-version": VERSION}, content=body(number, began))
                return answer.status_code

            calls = [asyncio.ensure_future(slow_call(n, e)) for n, e in enumerate(started)]
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in started)), 20)
            refused = await http.post(server.url, headers={
                **HEADERS, "authorization": f"Bearer {token}", "mcp-session-id": session,
                "mcp-protocol-version": VERSION},
                content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            assert refused.status_code == 429
            assert refused.headers.get("retry-after") == "2"
            assert f"{cap} requests or streams open at once" in refused.json()["error"][
                "message"]
            theirs = (await open_session(http, server.url, other)).headers["mcp-session-id"]
            assert await post_in(http, server.url, other, theirs) == 202
            release.set()
            assert await asyncio.wait_for(asyncio.gather(*calls), 20) == [200] * cap
            assert await post_in(http, server.url, token, session) == 202

    run(scenario())


def test_abandoned_sessions_holding_get_streams_are_reclaimed(server: Server) -> None:
    """A client that abandons its sessions but keeps their GET streams open (its process
    lives on) is not refused either: the least recently used session goes, its stream ends."""
    token = server.token("Desktop host")
    cap = sessions.SESSIONS_PER_CREDENTIAL

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(20, read=120),
                                      limits=httpx2.Limits(max_connections=cap + 8)) as http:
            ids = [(await open_session(http, server.url, token)).headers["mcp-session-id"]
                   for _ in range(cap)]
            opened = [asyncio.Event() for _ in ids]
            streams = [asyncio.ensure_future(hold_stream(http, server.url, token, s, e))
                       for s, e in zip(ids, opened, strict=True)]
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in opened)), 20)
            newcomer = await open_session(http, server.url, token)
            assert newcomer.status_code == 200
            ended = await asyncio.wait_for(streams[0], 15)
            assert ended == "ended" or ended.startswith("cut"), ended
            assert not any(s.done() for s in streams[1:])
            assert await post_in(http, server.url, token, ids[0]) == 404
            for stream in streams[1:]:
                stream.cancel()

    run(scenario())


def test_at_the_global_cap_the_biggest_holder_gives_way(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """All credentials together may hold `MAX_SESSIONS`; at that cap a newcomer credential
    reclaims an idle session of the credential holding the most, never of a small one."""
    monkeypatch.setattr(server_module, "MAX_SESSIONS", 6)
    server.service.stop()
    server.start()
    big, small, newcomer = (server.token(n) for n in ("Big", "Small", "Newcomer"))

    async def scenario() -> None:
        async with httpx2.AsyncClient(timeout=20) as http:
            small_id = (await open_session(http, server.url, small)).headers["mcp-session-id"]
            big_ids = [(await open_session(http, server.url, big)).headers["mcp-session-id"]
                       for _ in range(5)]
            answer = await open_session(http, server.url, newcomer)
            assert answer.status_code == 200
            assert await post_in(http, server.url, small, small_id) == 202
            alive = [await post_in(http, server.url, big, s) for s in big_ids]
            assert alive == [404] + [202] * 4

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
            async def expired() -> bool:
                return await post(http, idle) == 404

            # a poll is a request: leave the session idle > 1 s between two
            await async_wait_until(expired, "the idle session to expire", 20, interval=2.0)
            held_status = await post(http, held)
            stream.cancel()
            return {"held": held_status}

    assert run(scenario())["held"] == 202
