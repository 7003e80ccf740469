"""The HTTP side: who may connect (Host, Origin, token, body size), no OAuth discovery, the port
(in use, any free one), stopping with open streams, restarting."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from typing import Any

import httpx2
import pytest

from serpent_tk.automation.gateway import Gateway
from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.endpoint import endpoint_file, running_port
from serpent_tk.mcp.http.connections import mark_useful
from serpent_tk.mcp.http.listener import Listener, PortInUse
from serpent_tk.mcp.server import MAX_REQUEST_BODY_BYTES
from tests.mcp.conftest import ERAS, Server, connect, ok, run

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "raw-http-test", "version": "1"}}}
ACCEPT = "application/json, text/event-stream"


def post(server: Server, *, token: str | None, body: bytes | None = None,
         headers: dict[str, str] | None = None, path: str = "/mcp") -> httpx2.Response:
    sent = {"content-type": "application/json", "accept": ACCEPT, **(headers or {})}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    with httpx2.Client(timeout=10) as http:
        return http.post(f"http://127.0.0.1:{server.port}{path}", headers=sent,
                         content=body if body is not None else json.dumps(INITIALIZE).encode())


def test_a_valid_token_opens_a_session(server: Server) -> None:
    response = post(server, token=server.token())
    assert response.status_code == 200
    assert response.headers.get("mcp-session-id")


@pytest.mark.parametrize("token", [None, "not-a-token", "Bearer"])
def test_a_missing_or_unknown_token_gets_401_without_oauth_hints(server: Server,
                                                                  token: str | None) -> None:
    server.token()
    response = post(server, token=token)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert "resource_metadata" not in response.text
    assert response.json()["error"] == "invalid_token"


def test_a_foreign_host_gets_421(server: Server) -> None:
    token = server.token()
    for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1",
                 f"127.0.0.1:{server.port + 1}"):
        assert post(server, token=token, headers={"host": host}).status_code == 421, host
    assert post(server, token=token, headers={"host": f"localhost:{server.port}"}
                ).status_code == 200


def test_a_foreign_origin_gets_403_even_with_a_token(server: Server) -> None:
    token = server.token()
    for origin in ("http://evil.example", "https://attacker.test:8443", "null",
                   "http://127.0.0.1.evil.example"):
        response = post(server, token=token, headers={"origin": origin})
        assert response.status_code == 403, origin
    assert post(server, token=token, headers={"origin": f"http://localhost:{server.port}"}
                ).status_code == 200


def test_an_oversized_body_gets_413(server: Server) -> None:
    body = json.dumps({**INITIALIZE, "params": {**INITIALIZE["params"],
                                                "padding": "x" * MAX_REQUEST_BODY_BYTES}})
    response = post(server, token=server.token(), body=body.encode())
    assert response.status_code == 413


def test_no_oauth_discovery_routes_and_no_redirects(server: Server) -> None:
    with httpx2.Client(timeout=10) as http:
        base = f"http://127.0.0.1:{server.port}"
        for path in ("/.well-known/oauth-protected-resource",
                     "/.well-known/oauth-protected-resource/mcp",
                     "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
                     "/register", "/authorize", "/token"):
            response = http.get(base + path)
            assert response.status_code == 404, path
            assert "www-authenticate" not in response.headers
    response = post(server, token=server.token())
    assert response.status_code == 200  # POST /mcp is served, not redirected to /mcp/


def test_a_taken_port_is_a_clear_error_naming_the_port(gateway: Gateway,
                                                        credentials: CredentialStore) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken = blocker.getsockname()[1]
        with pytest.raises(PortInUse, match=str(taken)):
            Listener(taken)
        busy = Server(gateway, credentials, port=taken)
        status = busy.service.start()
        assert status.state == "error" and status.port_in_use
        assert str(taken) in (status.last_error or "")
        assert busy.statuses[-1] == status
        assert busy.service.start(0).running  # the person picks another port: it works
        busy.service.stop()


async def _answer_ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A tiny ASGI app: lifespan, and 200 "ok" to every request (kept alive, as an
    authenticated request's connection is)."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    mark_useful(scope)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def test_accepted_connections_have_tcp_nodelay() -> None:
    # Without TCP_NODELAY, Nagle + delayed ACK hold every two-part response ~40 ms.
    listener = Listener(0)
    listener.start(_answer_ok)
    try:
        with socket.create_connection(("127.0.0.1", listener.port), 5) as client:
            client.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = b""
            while not answer.endswith(b"ok"):
                chunk = client.recv(4096)
                assert chunk, answer
                answer += chunk

            async def server_side_flags() -> list[int]:
                # the server's end of each live connection (uvicorn keeps their protocols)
                server = listener._server
                assert server is not None
                return [protocol.transport.get_extra_info("socket").getsockopt(
                            socket.IPPROTO_TCP, socket.TCP_NODELAY)
                        for protocol in server.server_state.connections]

            flags = listener.submit(server_side_flags()).result(5)
    finally:
        listener.stop()
    assert flags and all(flags), flags


def test_only_loopback_is_listened_on(server: Server) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}/mcp"
    addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)}
    for address in addresses - {"127.0.0.1", "::1", "127.0.1.1"}:
        with pytest.raises(OSError), socket.create_connection((address, server.port), 1):
            pass


def test_stop_with_open_streams_then_restart_on_the_same_port(server: Server) -> None:
    token = server.token()
    port = server.port
    assert running_port() == port  # published for the bridge and mcp-config

    async def hold_streams_open_while_stopping() -> list[str]:
        async with connect(server.url, token, "legacy") as client:
            await ok(client, "serpent_library_list_open")
            await asyncio.sleep(0.2)  # the GET stream is open now
            stopped = await asyncio.to_thread(server.service.stop)
            assert stopped.state == "stopped" and stopped.last_error is None, stopped
            with pytest.raises(Exception):  # noqa: B017 - the server is gone
                await client.list_tools()
        return []

    with contextlib.suppress(httpx2.ConnectError):  # leaving: its DELETE finds no server
        run(hold_streams_open_while_stopping())
    assert not endpoint_file().exists()
    restarted = server.start(port)
    assert restarted.port == port

    async def works_again(mode: str) -> list[str]:
        async with connect(server.url, token, mode) as client:
            await ok(client, "serpent_library_list_open")
            return sorted(t.name for t in (await client.list_tools()).tools)

    assert run(works_again("legacy")) == run(works_again("auto"))
    states = [s.state for s in server.statuses]
    assert [a for a, b in zip(states, [None, *states], strict=False) if a != b] == [
        "running", "stopped", "running"]


@pytest.mark.parametrize("mode", ERAS)
def test_status_reports_connected_clients(server: Server, mode: str) -> None:
    token = server.token("Cursor")

    async def use() -> None:
        async with connect(server.url, token, mode) as client:
            await ok(client, "serpent_library_list_open")

    run(use())
    status = server.service.status
    assert status.running and "Cursor" in status.clients
    assert status.last_request_at is not None
    assert server.credentials.get("Cursor").last_used_at is not None  # type: ignore[union-attr]


def sse_events(text: str) -> list[dict[str, str]]:
    """The events of an SSE body: each a dict of its fields (id, retry, data, event)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
        if fields:
            events.append(fields)
    return events


def test_a_post_stream_opens_with_a_priming_event_and_a_retry(server: Server) -> None:
    """2025-11-25 transport: every POST SSE stream starts with an event that has an id and
    empty data, and says how long to wait before reconnecting (`retry`)."""
    opened = post(server, token=server.token())
    events = sse_events(opened.text)
    assert events[0]["data"] == "" and events[0]["id"] and events[0]["retry"] == "1000"
    assert json.loads(events[-1]["data"])["result"]["serverInfo"]["name"] == "serpent"
    assert events[-1]["id"] and events[-1]["id"] != events[0]["id"]


def test_a_client_that_lost_its_stream_gets_the_answer_again(server: Server) -> None:
    """A POST stream cut after its priming event: a GET with `Last-Event-ID` brings the
    answer of that very request (and nothing of another session)."""
    token = server.token()
    session = post(server, token=token).headers["mcp-session-id"]
    headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    post(server, token=token, headers=headers, body=json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "serpent_library_list_open", "arguments": {}}}
    sent = {"content-type": "application/json", "accept": ACCEPT,
            "authorization": f"Bearer {token}", **headers}
    with httpx2.Client(timeout=10) as http:
        with http.stream("POST", server.url, headers=sent, content=json.dumps(call)) as stream:
            first = next(stream.iter_lines())  # the priming event's first line, then hang up
        assert first.startswith("id: ")
        primed = first.removeprefix("id: ")
        other = post(server, token=token).headers["mcp-session-id"]
        stranger = http.get(server.url, headers={
            **sent, "mcp-session-id": other, "accept": "text/event-stream",
            "last-event-id": primed}, timeout=3)
        with http.stream("GET", server.url, headers={
                **sent, "accept": "text/event-stream", "last-event-id": primed}) as resumed:
            for line in resumed.iter_lines():
                if line.startswith("data: ") and line != "data: ":
                    answer = json.loads(line.removeprefix("data: "))
                    break
    assert answer["id"] == 9 and answer["result"]["structuredContent"]["status"] == "ok"
    assert '"id":9' not in stranger.text


def test_a_sessions_event_store_is_bounded_and_replays_one_stream() -> None:
    from mcp.server.streamable_http import EventMessage
    from mcp_types import JSONRPCNotification

    from serpent_tk.mcp.http.event_store import MAX_EVENTS, RecentEvents

    def note(text: str) -> Any:
        return JSONRPCNotification(jsonrpc="2.0", method="notifications/message",
                                   params={"data": text})

    async def scenario() -> tuple[list[str], int, list[str]]:
        store = RecentEvents(max_bytes=64 * 1024)
        first = await store.store_event("7", None)  # a priming event
        ids = [await store.store_event("7" if n % 2 else "8", note(f"n{n}")) for n in range(6)]
        replayed: list[str] = []

        async def collect(event: EventMessage) -> None:
            replayed.append(event.message.params["data"])  # type: ignore[union-attr]

        assert await store.replay_events_after(first, collect) == "7"
        huge = await store.store_event("7", note("x" * 70_000))  # larger than the store
        for n in range(2 * MAX_EVENTS):
            await store.store_event("9", note(str(n)))
        gone = await store.replay_events_after(ids[0], collect)
        return replayed, store.kept, [huge, str(gone)]

    replayed, kept, (huge, gone) = run(scenario())
    assert replayed == ["n1", "n3", "n5"]  # its own stream only, in order
    assert kept == MAX_EVENTS and gone == "None" and huge.isdigit()
