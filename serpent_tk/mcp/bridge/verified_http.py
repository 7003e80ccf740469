"""An HTTP client that writes nothing to a connection before its peer proved it is Serpent.

Runs on the bridge's asyncio loop. Every new TCP connection first carries one
`POST /serpent/identify` with a fresh nonce; only when the answer is the HMAC that the
published endpoint's per-run secret gives (`endpoint.proof`) is the connection handed to the
HTTP pool, which then reuses it (keep-alive) for the MCP requests and their bearer token.
So the check costs one round trip per connection, not per message, and a program that took
over the port after Serpent stopped never sees a token: it cannot answer the nonce.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import h11
import httpcore2
import httpx2

from serpent_tk.mcp.endpoint import IDENTIFY_PATH, LOOPBACK, new_nonce, proof_matches

IDENTIFY_TIMEOUT_S = 10.0
MAX_ANSWER_BYTES = 4096
KEEPALIVE_S = 25.0  # below the server's 30 s keep-alive, so we never reuse a dying connection
READ_CHUNK = 65536

SecretFor = Callable[[int], str | None]  # port -> the secret published for it, if any


class NotSerpent(httpcore2.ConnectError):
    """What answers on the port could not prove it is the published Serpent."""


class VerifyingBackend(httpcore2.AsyncNetworkBackend):
    """Connects only to 127.0.0.1 ports that have a published secret, and checks the peer."""

    def __init__(self, secret_for: SecretFor) -> None:
        self._secret_for = secret_for
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None,
                          ) -> httpcore2.AsyncNetworkStream:
        secret = self._secret_for(port) if host == LOOPBACK else None
        if secret is None:
            raise NotSerpent(f"no Serpent is published for {host}:{port}")
        stream = await self._inner.connect_tcp(host, port, timeout=timeout,
                                               local_address=local_address,
                                               socket_options=socket_options)
        try:
            await identify(stream, port, secret)
        except BaseException:
            await stream.aclose()
            raise
        return stream

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None,
                                  ) -> httpcore2.AsyncNetworkStream:
        raise NotSerpent("Serpent listens on TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


async def identify(stream: httpcore2.AsyncNetworkStream, port: int, secret: str) -> None:
    """Send the challenge on `stream` and check the answer; `NotSerpent` unless it is right.

    Leaves the connection at a clean message boundary, ready for the next request."""
    nonce = new_nonce()
    body = b'{"nonce": "' + nonce.encode("ascii") + b'"}'
    client = h11.Connection(h11.CLIENT)
    request = h11.Request(method="POST", target=IDENTIFY_PATH, headers=[
        ("Host", f"{LOOPBACK}:{port}"), ("Content-Type", "application/json"),
        ("Content-Length", str(len(body))), ("Accept", "application/json")])
    try:
        await stream.write(client.send(request) + (client.send(h11.Data(data=body)) or b"")
                           + (client.send(h11.EndOfMessage()) or b""),
                           timeout=IDENTIFY_TIMEOUT_S)
        status, answer = await _read_answer(stream, client)
    except (h11.ProtocolError, httpcore2.NetworkError, httpcore2.TimeoutException) as error:
        raise NotSerpent(f"what listens on port {port} did not answer like Serpent "
                         f"({type(error).__name__})") from error
    if status != 200 or not proof_matches(secret, nonce, port, _proof_of(answer)):
        raise NotSerpent(f"what listens on port {port} is not the Serpent this user runs")
    if client.our_state is not h11.DONE or client.their_state is not h11.DONE \
            or client.trailing_data[0]:
        raise NotSerpent(f"Serpent on port {port} did not keep the connection open")


async def _read_answer(stream: httpcore2.AsyncNetworkStream,
                       client: h11.Connection) -> tuple[int, bytes]:
    status, body = 0, b""
    while True:
        event = client.next_event()
        if event is h11.NEED_DATA:
            chunk = await stream.read(READ_CHUNK, timeout=IDENTIFY_TIMEOUT_S)
            client.receive_data(chunk)  # b"" means closed: h11 then reports it
        elif isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_ANSWER_BYTES:
                raise h11.RemoteProtocolError("answer too large")
        elif isinstance(event, h11.EndOfMessage):
            return status, body
        elif isinstance(event, h11.ConnectionClosed):
            raise h11.RemoteProtocolError("connection closed")


def _proof_of(answer: bytes) -> object:
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    return data.get("proof") if isinstance(data, dict) else None


def verified_client(secret_for: SecretFor, timeout: httpx2.Timeout) -> httpx2.AsyncClient:
    """An `AsyncClient` whose every connection went through `identify` first."""
    return httpx2.AsyncClient(transport=_VerifiedTransport(VerifyingBackend(secret_for)),
                              timeout=timeout)


class _VerifiedTransport(httpx2.AsyncHTTPTransport):
    """httpx2's own transport over a connection pool that uses `VerifyingBackend`."""

    def __init__(self, backend: VerifyingBackend) -> None:
        super().__init__(trust_env=False)
        # httpx2 takes no network backend; its pool is the documented httpcore2 one
        self._pool = httpcore2.AsyncConnectionPool(
            max_connections=100, max_keepalive_connections=20, keepalive_expiry=KEEPALIVE_S,
            network_backend=backend)
