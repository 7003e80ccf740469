"""The messages between the main process and a plugin host: small JSON objects, typed here once.

Imported by both processes; thread-safe (pure). The host's first message is `Loaded` (what
the plugin declares) or `LoadFailed`. Then the main process sends `Invoke` (run a command, a
plan, a hook or an analyser) and the host answers each with `Done`; while one runs, the
plugin's API calls come as `ApiCall` and are answered with `ApiReply` (the gateway's
envelope). `Log` carries the plugin's log lines; `Stop` ends the host.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from library.risk import Risk

Kind = Literal["command", "plan", "will", "did", "analyse"]
JsonObject = dict[str, Any]


class _Wire(BaseModel):
    # built when first used: plugins start after the window's first page
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class CommandInfo(_Wire):
    """One command as the plugin declared it (its models as JSON schemas)."""

    verb: str
    risk: Risk
    summary: str
    returns: str
    example: JsonObject
    idempotent: bool
    timeout_s: float
    input_schema: JsonObject
    output_schema: JsonObject
    planned: bool  # it has a plan (a dangerous command must)
    title: str = ""  # its short name for people ("Make contact sheet")


class HookInfo(_Wire):
    name: str  # the function's name: what the main process asks the host to run
    commands: list[str]  # fnmatch patterns of the commands it wants


class AnalyserInfo(_Wire):
    name: str
    kinds: list[str]  # the asset kinds it reads
    version: int  # a newer one reads every asset again


class Declaration(_Wire):
    commands: list[CommandInfo] = Field(default_factory=list)
    will_hooks: list[HookInfo] = Field(default_factory=list)
    did_hooks: list[HookInfo] = Field(default_factory=list)
    analysers: list[str] = Field(default_factory=list)
    analyser_info: list[AnalyserInfo] = Field(default_factory=list)


class Failure(_Wire):
    """Why an invocation did not succeed. `raised`: an unexpected exception in the plugin
    (the caller hears PLUGIN_FAILED with `message`; `trace` goes to the log); otherwise the
    plugin refused on purpose (`PluginError`, `Veto`) and the caller hears `code` and
    `message`."""

    code: str
    message: str
    raised: bool = False
    vetoed: bool = False
    details: JsonObject = Field(default_factory=dict)
    trace: str = ""  # the traceback of a crash, for the log only


# -- host -> main -----------------------------------------------------------------------

class Loaded(_Wire):
    type: Literal["loaded"] = "loaded"
    declaration: Declaration


class LoadFailed(_Wire):
    type: Literal["load-failed"] = "load-failed"
    message: str
    trace: str = ""


class Done(_Wire):
    type: Literal["done"] = "done"
    id: int
    result: JsonObject | None = None
    failure: Failure | None = None


class ApiCall(_Wire):
    type: Literal["api-call"] = "api-call"
    id: int
    invoke_id: int  # the invocation it belongs to (its clock stops while this waits)
    command: str
    arguments: JsonObject
    library_id: str | None = None  # given to a library-level command without libraryId


class Log(_Wire):
    type: Literal["log"] = "log"
    level: str
    message: str


# -- main -> host -----------------------------------------------------------------------

class Invoke(_Wire):
    type: Literal["invoke"] = "invoke"
    id: int
    kind: Kind
    name: str  # a command's verb, a hook's function name, an analyser's name
    library_id: str | None = None
    payload: JsonObject = Field(default_factory=dict)


class ApiReply(_Wire):
    type: Literal["api-reply"] = "api-reply"
    id: int
    envelope: JsonObject


class Stop(_Wire):
    type: Literal["stop"] = "stop"


FromHost = Annotated[Loaded | LoadFailed | Done | ApiCall | Log, Field(discriminator="type")]
ToHost = Annotated[Invoke | ApiReply | Stop, Field(discriminator="type")]


@functools.cache
def _from_host() -> TypeAdapter[Loaded | LoadFailed | Done | ApiCall | Log]:
    return TypeAdapter(FromHost)  # built when first used: plugins start after the first page


@functools.cache
def _to_host() -> TypeAdapter[Invoke | ApiReply | Stop]:
    return TypeAdapter(ToHost)


def encode(message: _Wire) -> bytes:
    return message.model_dump_json().encode("utf-8")


def decode_from_host(data: bytes) -> Loaded | LoadFailed | Done | ApiCall | Log:
    return _from_host().validate_json(data)


def decode_to_host(data: bytes) -> Invoke | ApiReply | Stop:
    return _to_host().validate_json(data)
