"""Messages between the main process and a library worker: typed, JSON on the wire.

Imported by both processes. Every message is one JSON object sent with
`Connection.send_bytes` (never pickled objects). The worker's first message is `Hello`
(protocol version, pid, library identity); the client refuses a worker that speaks another
protocol version. Requests carry an id; responses and progress events echo it. `Cancel`
jumps the queue: the worker reads it on its reader thread while a request runs.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

PROTOCOL_VERSION = 1
CRASH_EXIT_CODE = 70  # the worker exits with this when our own code crashed (EX_SOFTWARE)


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CallMeta(_Message):
    """Who asked, for the audit trail. Never changes validation or effects."""

    source: Literal["ui", "mcp", "plugin", "cli", "system"] = "system"
    credential: str | None = None  # credential *name*, never a token
    label: str = "Serpent"  # what the UI shows: "Claude Desktop via MCP"
    idempotency_key: str | None = Field(default=None, max_length=200)


class Hello(_Message):
    type: Literal["hello"] = "hello"
    protocol: int
    pid: int
    library_id: str
    name: str
    path: str
    schema_version: int
    change_sequence: int
    recovery: dict[str, Any] = Field(default_factory=dict)  # what recovery found and did


class StartupFailed(_Message):
    """Sent instead of Hello when the library cannot be served (locked, newer, missing...)."""

    type: Literal["startup_failed"] = "startup_failed"
    error: ErrorInfo


class Request(_Message):
    type: Literal["request"] = "request"
    id: int
    command: str
    args: dict[str, Any] = Field(default_factory=dict)
    meta: CallMeta = Field(default_factory=CallMeta)
    plan: bool = False  # True: only compute the plan / risk report, change nothing


class Cancel(_Message):
    type: Literal["cancel"] = "cancel"
    id: int


class Shutdown(_Message):
    type: Literal["shutdown"] = "shutdown"


class ErrorInfo(_Message):
    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)  # currentVersion, retryable, ...


class Response(_Message):
    type: Literal["response"] = "response"
    id: int
    ok: bool
    result: dict[str, Any] | None = None
    error: ErrorInfo | None = None
    change_sequence: int


class Event(_Message):
    """Unsolicited news from the worker: `library.changed`, `task.progress`, ..."""

    type: Literal["event"] = "event"
    name: str
    data: dict[str, Any] = Field(default_factory=dict)
    request_id: int | None = None


ToWorker = Annotated[Request | Cancel | Shutdown, Field(discriminator="type")]
FromWorker = Annotated[Hello | StartupFailed | Response | Event, Field(discriminator="type")]

_to_worker: TypeAdapter[Request | Cancel | Shutdown] = TypeAdapter(ToWorker)
_from_worker: TypeAdapter[Hello | StartupFailed | Response | Event] = TypeAdapter(FromWorker)


def encode(message: _Message) -> bytes:
    return message.model_dump_json().encode("utf-8")


def decode_to_worker(data: bytes) -> Request | Cancel | Shutdown:
    return _to_worker.validate_json(data)


def decode_from_worker(data: bytes) -> Hello | StartupFailed | Response | Event:
    return _from_worker.validate_json(data)


def json_safe(value: Any) -> Any:
    """Round-trip through JSON: what crosses the pipe is exactly what JSON can carry."""
    return json.loads(json.dumps(value))


StartupFailed.model_rebuild()
