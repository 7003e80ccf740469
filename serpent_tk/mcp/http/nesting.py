"""Request bodies nested deeper than the SDK's JSON parser takes: flattened, so the call still
reaches its tool, which answers `INVALID_ARGUMENT` naming the limit.

Runs on the listener loop (an ASGI `receive` wrapper the guard puts in front of the session
manager; the flattening itself on a worker thread). The SDK parses every POST body with
pydantic-core, whose recursion limit (about 200 levels) turns arguments nested that deep into
a JSON-RPC -32700 "Parse error" that names no limit and that clients show as a broken server.
A body holding more than `FLATTEN_AT` brackets is parsed here first; only when that parse
fails on the recursion limit is every array or object opened deeper than `FLATTEN_AT` levels
replaced by `null`. What remains parses, keeps the request's id, method and tool name, and
still nests deeper than the tools take (`tools.arguments.MAX_DEPTH`), so the tool answers
with the limit. Anything else is passed on untouched.
"""

from __future__ import annotations

import re

import anyio
import pydantic_core
from starlette.types import Message, Receive

FLATTEN_AT = 64  # levels of the whole body (the request, params, arguments, ...)
# a string, a run of opening brackets, or a run of closing ones
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[{]+|[\]}]+')
_QUOTE = ord('"')


def may_be_too_deep(body: bytes) -> bool:
    """Cheap: can `body` nest deeper than `FLATTEN_AT` at all?"""
    return body.count(b"[") + body.count(b"{") > FLATTEN_AT


def parseable(body: bytes) -> bytes:
    """`body`, flattened if the SDK's parser would refuse it for nesting too deep."""
    try:
        pydantic_core.from_json(body)
    except ValueError as error:
        if "recursion limit" in str(error):
            return flattened(body)
    return body


def flattened(body: bytes, limit: int = FLATTEN_AT) -> bytes:
    """`body` with every array or object opened deeper than `limit` levels (strings skipped)
    replaced by `null`. Runs of brackets are taken whole, so a body of a million brackets
    costs a handful of steps."""
    out: list[bytes] = []
    depth = 0
    last = 0
    cut_from: int | None = None
    for token in _TOKEN.finditer(body):
        run = token.group()
        if run[0] == _QUOTE:
            continue
        if run[0] in b"[{":  # the level opened by run[i] is depth + 1 + i
            if cut_from is None and depth <= limit < depth + len(run):
                cut_from = token.start() + limit - depth
            depth += len(run)
        else:  # the level closed by run[i] is depth - i
            if cut_from is not None and depth - len(run) <= limit:
                out += [body[last:cut_from], b"null"]
                last, cut_from = token.start() + depth - limit, None
            depth -= len(run)
    out.append(body[last:])
    return b"".join(out)


def flattening(receive: Receive, max_bytes: int) -> Receive:
    """`receive` for a POST, giving the whole body at once, flattened when it must be.

    A body larger than `max_bytes` is passed on as it came (the SDK answers 413)."""
    pending: list[Message] = []
    read = False

    async def wrapped() -> Message:
        nonlocal read
        if not read:
            read = True
            pending.extend(await _whole_body(receive, max_bytes))
        if pending:
            return pending.pop(0)
        return await receive()

    return wrapped


async def _whole_body(receive: Receive, max_bytes: int) -> list[Message]:
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > max_bytes:
            return messages
        if not message.get("more_body", False):
            break
    body = b"".join(bytes(m.get("body", b"")) for m in messages)
    if may_be_too_deep(body):
        body = await anyio.to_thread.run_sync(parseable, body)
    return [{"type": "http.request", "body": body, "more_body": False}]
