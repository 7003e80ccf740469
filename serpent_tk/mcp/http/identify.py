"""`POST /serpent/identify`: the server's half of the bridge's "is this really my Serpent?".

Runs on the listener loop (a pure ASGI endpoint, no token needed). The body is
`{"nonce": "<64 hex digits>"}`; the answer is `{"proof": HMAC(secret, nonce, port)}` with the
per-run secret only this run's endpoint file holds (see `endpoint.proof`). It tells a caller
nothing it could not learn by connecting, and nobody without the file can forge it. The
same Host and Origin checks as `/mcp` apply.
"""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from serpent_tk.mcp.endpoint import proof, valid_nonce
from serpent_tk.mcp.http.connections import mark_useful
from serpent_tk.mcp.http.guard import host_allowed, origin_allowed

MAX_BODY_BYTES = 1024


class IdentifyEndpoint:
    def __init__(self, secret: str, port: int) -> None:
        self._secret = secret
        self._port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if not host_allowed(headers.get("host"), self._port):
            await _reply(send, 421, {"error": "invalid_host"})
            return
        if not origin_allowed(headers.get("origin")):
            await _reply(send, 403, {"error": "invalid_origin"})
            return
        body = await _read_body(receive)
        try:
            nonce = json.loads(body)["nonce"] if body is not None else None
        except (ValueError, KeyError, TypeError):
            nonce = None
        if not valid_nonce(nonce):
            await _reply(send, 400, {"error": "invalid_request",
                                     "error_description": 'Send {"nonce": "<64 hex digits>"}.'})
            return
        assert isinstance(nonce, str)
        mark_useful(scope)  # the bridge sends its MCP requests on this very connection
        await _reply(send, 200, {"proof": proof(self._secret, nonce, self._port)})


async def _read_body(receive: Receive) -> bytes | None:
    """The request body, or None when it is larger than `MAX_BODY_BYTES`."""
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body += bytes(message.get("body", b""))
        if len(body) > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return body


async def _reply(send: Send, status: int, payload: dict[str, str]) -> None:
    data = json.dumps(payload).encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode("ascii")),
        (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": data})
