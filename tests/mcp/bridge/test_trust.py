"""The bridge hands its token only to the Serpent this user runs: it finds it through the
owner-only endpoint file, and every connection must answer the identify challenge with that
run's secret before the token is written to it. Anything else is "Serpent is not running" (the
bridge's stand-in answers, see test_before_serpent.py)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import stat
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from serpent_tk.automation.gateway import Gateway
from serpent_tk.credentials import Credential, CredentialStore
from serpent_tk.mcp.endpoint import (
    IDENTIFY_PATH,
    Endpoint,
    accepting,
    endpoint_file,
    new_nonce,
    new_secret,
    proof,
    publish,
    read_endpoint,
)
from serpent_tk.mcp.http.listener import free_port
from serpent_tk.paths import USER_DATA_ENV, app_dirs
from serpent_tk.settings import SettingsStore
from tests.mcp.bridge.test_relay import bridge_params
from tests.mcp.conftest import Server, call, create_library, ok, run


class Stranger:
    """Any program on a port: an HTTP server that records every request it gets and
    answers identify with a made-up proof and everything else with 401."""

    def __init__(self, port: int = 0) -> None:
        self.requests: list[bytes] = []
        stranger = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                self._record()
                if self.path == IDENTIFY_PATH:
                    self._answer(200, {"proof": "0" * 64})
                else:
                    self._answer(401, {"error": "invalid_token"})

            do_GET = do_DELETE = do_POST  # noqa: N815

            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                stranger.requests.append(self.requestline.encode() + b"\n"
                                         + bytes(self.headers) + body)

            def _answer(self, status: int, payload: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def saw(self, secret: str) -> bool:
        return any(secret.encode() in request for request in self.requests)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stranger() -> Iterator[Stranger]:
    running = Stranger()
    yield running
    running.close()


class RecordingCredentials(CredentialStore):
    """Another Serpent's real credential store that also remembers every token it was shown."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.shown: list[str] = []

    def verify(self, token: str) -> Credential | None:
        self.shown.append(token)
        return super().verify(token)


def configure_port(port: int) -> None:
    SettingsStore(app_dirs().settings_file).update(lambda s: setattr(s.mcp, "port", port))


async def refused_with(client: Client, pattern: str) -> None:
    with pytest.raises(MCPError, match=pattern):
        await client.list_tools()


async def told_to_start_serpent(client: Client) -> None:
    """What a client hears while no Serpent it may trust runs: the stand-in's tool error."""
    answer = await call(client, "serpent_library_list_open")
    assert answer["error"]["code"] == "SERPENT_NOT_RUNNING", answer


def test_the_endpoint_file_is_owner_only_and_exists_before_the_port_accepts(
        gateway: Gateway, credentials: CredentialStore) -> None:
    port = free_port()
    published_when_accepting: list[bool] = []
    stop = threading.Event()

    def first_connection() -> None:
        while not stop.is_set():
            if accepting(port, timeout=0.05):
                published_when_accepting.append(read_endpoint() is not None)
                return

    watcher = threading.Thread(target=first_connection, daemon=True)
    watcher.start()
    running = Server(gateway, credentials)
    seen_while_binding: list[bool] = []
    status = running.service.start(port, before_listening=lambda: seen_while_binding.append(
        accepting(port) or endpoint_file().exists()))
    try:
        assert status.running, status
        watcher.join(10)
        assert seen_while_binding == [False]  # bound, not yet accepting, nothing published
        assert published_when_accepting == [True]
        if os.name == "posix":
            assert stat.S_IMODE(endpoint_file().stat().st_mode) == 0o600
        endpoint = read_endpoint()
        assert endpoint is not None and endpoint.port == port and endpoint.pid == os.getpid()
    finally:
        stop.set()
        running.service.stop()


def identify(port: int, body: bytes, host: str | None = None) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{IDENTIFY_PATH}", data=body,
                                     headers={"content-type": "application/json"})
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_serpent_proves_it_knows_the_published_secret(server: Server) -> None:
    endpoint = read_endpoint()
    assert endpoint is not None
    nonce = new_nonce()
    status, answer = identify(server.port, json.dumps({"nonce": nonce}).encode())
    assert status == 200 and answer == {"proof": proof(endpoint.secret, nonce, server.port)}
    assert endpoint.secret not in json.dumps(answer)
    assert identify(server.port, b'{"nonce": "short"}')[0] == 400
    assert identify(server.port, b"not json")[0] == 400
    assert identify(server.port, json.dumps({"nonce": nonce}).encode(),
                    host="evil.example:80")[0] == 421
    restarted_secret = read_endpoint()
    server.service.stop()
    server.start(0)
    assert read_endpoint() != restarted_secret  # a new secret for every run


def test_a_stranger_on_the_configured_port_never_sees_the_token(
        server: Server, stranger: Stranger, tmp_path: Path) -> None:
    token = server.token()
    configure_port(stranger.port)  # what the old bridge fell back to

    async def scenario() -> None:
        async with Client(bridge_params(token, server.port), mode="legacy") as bridged:
            await create_library(bridged, tmp_path)
            await asyncio.to_thread(server.service.stop)
            await told_to_start_serpent(bridged)
            await told_to_start_serpent(bridged)

    run(scenario())
    assert not stranger.saw(token)
    assert stranger.requests == []  # nothing published: the bridge did not even knock


def test_a_stale_endpoint_file_pointing_at_a_stranger_is_refused(
        gateway: Gateway, stranger: Stranger, credentials: CredentialStore) -> None:
    token = credentials.create("Claude Desktop")[1]
    # a Serpent that crashed left its file behind, and another program took its port
    publish(endpoint_file(), Endpoint(port=stranger.port, pid=1, secret=new_secret()))

    async def scenario() -> None:
        async with Client(bridge_params(token, 0), mode="legacy") as bridged:
            await told_to_start_serpent(bridged)

    run(scenario())
    assert stranger.requests, "the bridge asked the stranger to identify itself"
    assert all(r.startswith(f"POST {IDENTIFY_PATH} ".encode()) for r in stranger.requests)
    assert not stranger.saw(token)


def test_a_restart_on_a_new_port_is_picked_up(server: Server, tmp_path: Path) -> None:
    token = server.token()
    old_port = server.port

    async def scenario() -> None:
        async with Client(bridge_params(token, old_port), mode="legacy") as bridged:
            library = await create_library(bridged, tmp_path)
            await asyncio.to_thread(server.service.stop)
            await told_to_start_serpent(bridged)
            assert (await asyncio.to_thread(server.service.start, 0)).running
            assert server.port != old_port
            # the very next request finds the new run, verifies it and renews the session
            await ok(bridged, "serpent_folder_list", {"libraryId": library})

    run(scenario())


def test_another_data_folders_serpent_on_the_same_port_never_sees_the_token(
        server: Server, tmp_path: Path) -> None:
    token = server.token()
    port = server.port

    async def scenario() -> None:
        async with Client(bridge_params(token, port), mode="legacy") as bridged:
            await create_library(bridged, tmp_path / "mine")
            await asyncio.to_thread(server.service.stop)
            # another Serpent, with another data folder, starts on the very same port
            other = await asyncio.to_thread(start_other_serpent, tmp_path / "other", port)
            try:
                await told_to_start_serpent(bridged)
                assert other.service.status.port == port
                assert isinstance(other.credentials, RecordingCredentials)
                assert other.credentials.shown == []
            finally:
                await asyncio.to_thread(other.service.stop)
                await asyncio.to_thread(other.gateway.shutdown)

    run(scenario())


def start_other_serpent(data: Path, port: int) -> Server:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(USER_DATA_ENV, str(data))
        dirs = app_dirs().ensure()
        gateway = Gateway(SettingsStore(dirs.settings_file))
        other = Server(gateway, RecordingCredentials(dirs.credentials_file), port=port)
        other.service.endpoint_file = endpoint_file(dirs)
    other.start(port)
    return other


def test_a_401_after_a_restart_with_a_fresh_data_folder_blames_the_credential(
        server: Server, tmp_path: Path) -> None:
    token = server.token()
    port = server.port

    async def scenario() -> None:
        async with Client(bridge_params(token, port), mode="legacy") as bridged:
            await ok(bridged, "serpent_library_list_open")
            await asyncio.to_thread(server.service.stop)
            # Serpent starts again on a fresh data folder in the same place: no credentials
            shutil.rmtree(os.environ[USER_DATA_ENV])
            fresh = Server(server.gateway, CredentialStore(app_dirs().ensure().credentials_file),
                           port=port)
            assert (await asyncio.to_thread(fresh.service.start, port)).running
            try:
                assert read_endpoint() is not None  # the new run is published (and verified)
                await refused_with(bridged, "refused this client's credential")
            finally:
                await asyncio.to_thread(fresh.service.stop)

    run(scenario())


def test_a_revoked_credential_is_told_as_such(server: Server) -> None:
    token = server.token()

    async def scenario() -> None:
        async with Client(bridge_params(token, server.port), mode="legacy") as bridged:
            await ok(bridged, "serpent_library_list_open")
            server.credentials.revoke("Claude Desktop")
            await refused_with(bridged, "refused this client's credential")

    run(scenario())


def test_nothing_listens_on_a_published_port(gateway: Gateway,
                                             credentials: CredentialStore) -> None:
    token = credentials.create("Claude Desktop")[1]
    with socket.socket() as reserved:  # bound, never listening: connections are refused
        reserved.bind(("127.0.0.1", 0))
        publish(endpoint_file(), Endpoint(port=reserved.getsockname()[1], pid=1,
                                          secret=new_secret()))

        async def scenario() -> None:
            async with Client(bridge_params(token, 0), mode="legacy") as bridged:
                await told_to_start_serpent(bridged)

        run(scenario())
