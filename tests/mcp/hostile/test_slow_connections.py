"""Slow and idle connections: read deadlines and the connection cap keep the door open.

Real server on 127.0.0.1, raw sockets for the hostile side, the SDK's client for the person's.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from serpent_tk.mcp.http import connections
from tests.mcp.conftest import Server, connect, ok, run
from tests.waiting import async_wait_until

SLOW_CONNECTIONS = 80
HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def closed_by_server(sock: socket.socket) -> bool:
    """True once the server closed its end (EOF, reset), reading whatever it said first."""
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


class SlowLoris:
    """Connections that send one byte of a request head every `interval` seconds."""

    def __init__(self, port: int, count: int, interval: float = 2.0) -> None:
        self.sockets = []
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), 5)
            sock.setblocking(False)
            self.sockets.append(sock)
        self.open_since = time.monotonic()
        self.closed: dict[int, float] = {}
        self._stop = threading.Event()
        self._interval = interval
        self._thread = threading.Thread(target=self._drip, daemon=True)
        self._thread.start()

    def _drip(self) -> None:
        position = 0
        while not self._stop.wait(self._interval):
            byte = HEAD[position % len(HEAD):position % len(HEAD) + 1]
            position += 1
            for index, sock in enumerate(self.sockets):
                if index in self.closed:
                    continue
                if closed_by_server(sock):
                    self.closed[index] = time.monotonic()
                    continue
                with contextlib.suppress(OSError):
                    sock.send(byte)

    def all_closed(self) -> bool:
        for index, sock in enumerate(self.sockets):
            if index not in self.closed and closed_by_server(sock):
                self.closed[index] = time.monotonic()
        return len(self.closed) == len(self.sockets)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def loris(server: Server) -> Iterator[SlowLoris]:
    attack = SlowLoris(server.port, SLOW_CONNECTIONS)
    yield attack
    attack.stop()


def test_slow_connections_are_closed_within_seconds_while_a_real_client_works(
        server: Server, loris: SlowLoris) -> None:
    token = server.token()
    silent = socket.create_connection(("127.0.0.1", server.port), 5)  # sends nothing at all

    async def scenario() -> int:
        calls = 0
        async with connect(server.url, token, "legacy") as client:
            async def closed_while_the_client_works() -> bool:
                nonlocal calls
                if loris.all_closed():
                    return True
                await ok(client, "serpent_library_list_open")  # the person's client works
                calls += 1
                return False

            await async_wait_until(closed_while_the_client_works, lambda: (
                f"the slow connections to be closed "
                f"({SLOW_CONNECTIONS - len(loris.closed)} still open)"), 30, interval=0.2)
        return calls

    assert run(scenario()) > 0
    slowest = max(loris.closed.values()) - loris.open_since
    print(f"\n{SLOW_CONNECTIONS} slow connections closed, the last after {slowest:.1f} s")
    with silent:
        silent.settimeout(connections.HEAD_TIMEOUT_S + 10)
        assert silent.recv(4096).startswith(b"HTTP/1.1 408")
        assert silent.recv(4096) == b""


def test_a_refused_request_does_not_keep_its_connection(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), 5) as sock:
        sock.settimeout(10)
        sock.sendall(HEAD.replace(b"127.0.0.1", f"127.0.0.1:{server.port}".encode())
                     + b"Content-Length: 2\r\n\r\n{}")
        answer = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break  # closed by the server right after its answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 401") and b"connection: close" in answer.lower()


def test_a_body_that_never_arrives_is_cut(server: Server,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connections, "BODY_TIMEOUT_S", 1.0)
    token = server.token()
    with socket.create_connection(("127.0.0.1", server.port), 5) as sock:
        sock.settimeout(15)
        sock.sendall(HEAD.replace(b"127.0.0.1", f"127.0.0.1:{server.port}".encode())
                     + f"Authorization: Bearer {token}\r\n".encode()
                     + b"Accept: application/json, text/event-stream\r\n"
                     + b"Content-Length: 1000\r\n\r\n{\"jsonrpc\"")
        while sock.recv(4096):  # a TimeoutError here: the server kept waiting for it
            pass


def test_at_the_connection_cap_idle_connections_make_room_for_a_real_client(
        server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connections, "HEAD_TIMEOUT_S", 120.0)  # only the cap closes them here
    token = server.token()
    idle = [socket.create_connection(("127.0.0.1", server.port), 5)
            for _ in range(connections.MAX_CONNECTIONS + 20)]
    try:
        async def scenario() -> None:
            for mode in ("legacy", "auto"):
                async with connect(server.url, token, mode) as client:
                    for _ in range(3):
                        await ok(client, "serpent_library_list_open")

        run(scenario())
        for sock in idle:
            sock.setblocking(False)
        assert sum(closed_by_server(s) for s in idle) >= 20  # the oldest idle ones went
    finally:
        for sock in idle:
            sock.close()
