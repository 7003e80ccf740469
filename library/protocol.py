"""Messages between the main process and a library worker: typed, JSON on the wire.

Imported by both processes. Every message is one JSON object sent with
`Connection.send_bytes` (never pickled objects), built and read through these models on
both sides, the hot path included (pydantic's JSON is faster than a `json` round trip:
`bench/bench_protocol.py`). The worker's first message is `Hello` (protocol version, pid,
library identity); the client refuses a worker that speaks another protocol version.
Requests carry an id; responses and progress echo it. `Cancel` jumps the queue: the worker
reads it on its reader thread while a request runs.

`LibraryChanged` and `TaskProgress` are declared here once: the worker builds them and the
same objects travel on, through `library.client.LibraryHost` and the gateway, to the window
and the MCP layer (whose notification is a projection of `LibraryChanged`).
"""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

from library.schemas.common import Actor

PROTOCOL_VERSION = 3
CRASH_EXIT_CODE = 70  # the worker exits with this when our own code crashed (EX_SOFTWARE)


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CallMeta(_Message):
    """Who asked, for the audit trail. Never changes validation or effects."""

    source: Literal["ui", "mcp", "plugin", "cli", "system"] = "system"
    credential: str | None = None  # credential *name*, never a token
    label: str = "Serpent"  # what the UI shows: "Claude Desktop via MCP"
    person: str | None = Field(default=None, max_length=60)  # Settings → General's name
    idempotency_key: str | None = Field(default=None, max_length=200)
    # a write's request id (`idempotency.new_request_id`), committed with it: sent again
    # after its worker died, it is answered, not run again (`worker/store/requests.py`)
    request_id: str | None = Field(default=None, max_length=64)
    ticket: str | None = Field(default=None, max_length=100)  # the caller's name for this
    # call's work, echoed on its `TaskProgress` (an MCP task follows its import this way)


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


class Waiting(_Message):
    """Sent instead of Hello while a studio library's database server cannot be reached: the
    worker holds the folder and tries again by itself, then sends `Hello` (or
    `StartupFailed`). `error`: what calls are answered with meanwhile (DATABASE_UNAVAILABLE)."""

    type: Literal["waiting"] = "waiting"
    library_id: str
    name: str
    path: str
    error: ErrorInfo


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
    lookup: bool = False  # True: answer the write's stored outcome (by request id); never run


class Open(_Message):
    """A spare worker's first message from the main process: the library it is to serve
    (the `opening` a worker is otherwise started with, see `process.worker_main`)."""

    type: Literal["open"] = "open"
    opening: dict[str, Any]


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
    """A notice from the worker for the host itself: `worker.log`, `library.vanished`."""

    type: Literal["event"] = "event"
    name: str
    data: dict[str, Any] = Field(default_factory=dict)


class _LibraryEvent(BaseModel):
    """News of a library that travels on to the window and MCP: camelCase for them
    (`model_dump(by_alias=True)`), field names on the pipe."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)


class LibraryChanged(_LibraryEvent):
    """A write committed (any source): the library is now at `change_sequence`."""

    type: Literal["library.changed"] = "library.changed"
    library_id: str
    change_sequence: int
    kinds: list[str]  # "asset", "tag", "folder", "library", "history", "task", ...
    command: str  # the command whose call wrote it: "asset.tag", "history.undo"; or ""
    actor: Actor  # who asked for it
    task_kind: str = ""  # background work that wrote it, when no command did ("analysis")
    entity_ids: list[str] = Field(default_factory=list)  # what it touched (the first 500)
    library_name: str | None = None  # the library's name, when the library itself changed

    @property
    def actor_label(self) -> str:
        return self.actor.label

    @property
    def source(self) -> str:
        return self.actor.source


class TaskProgress(_LibraryEvent):
    """A long command (an import) or a background task (analysis) moved on: `done` of
    `total` items (0: not known yet). `request_id` is the call's (0 for a background task);
    `task_id` names the task row (`task.get`) when the work is one: background tasks,
    refresh, export, a long import; `kind` is then that task's kind
    (`library.catalogue.task_kinds`), what a listener tells tasks apart by. `command` is the
    command whose work it is, as the audit trail records it ("" for the previews of an
    import, which no command runs). `ticket` is the one the call's
    `CallMeta` carried."""

    type: Literal["task.progress"] = "task.progress"
    library_id: str
    request_id: int = 0
    command: str
    done: int
    total: int = 0
    message: str = ""
    task_id: str | None = None
    kind: str = ""  # the task's kind, when `task_id` names one ("analysis", "previews", ...)
    ticket: str | None = None


LibraryNews = LibraryChanged | TaskProgress
ToWorker = Annotated[Request | Cancel | Shutdown, Field(discriminator="type")]
FromWorkerMessage = (Hello | Waiting | StartupFailed | Response | Event | LibraryChanged
                     | TaskProgress)
FromWorker = Annotated[FromWorkerMessage, Field(discriminator="type")]

ToSpare = Annotated[Open | Shutdown, Field(discriminator="type")]


# Each built when first used: each process decodes only one direction.
@functools.cache
def _to_worker() -> TypeAdapter[Request | Cancel | Shutdown]:
    return TypeAdapter(ToWorker)


@functools.cache
def _to_spare() -> TypeAdapter[Open | Shutdown]:
    return TypeAdapter(ToSpare)


@functools.cache
def _from_worker() -> TypeAdapter[FromWorkerMessage]:
    return TypeAdapter(FromWorker)


def encode(message: _Message | _LibraryEvent) -> bytes:
    return message.model_dump_json().encode("utf-8")


def decode_to_worker(data: bytes) -> Request | Cancel | Shutdown:
    return _to_worker().validate_json(data)


def decode_to_spare(data: bytes) -> Open | Shutdown:
    return _to_spare().validate_json(data)


def decode_from_worker(data: bytes) -> FromWorkerMessage:
    return _from_worker().validate_json(data)


def json_safe(value: Any) -> Any:
    """Round-trip through JSON: what crosses the pipe is exactly what JSON can carry."""
    return json.loads(json.dumps(value))


StartupFailed.model_rebuild()
Waiting.model_rebuild()
