"""The plugin author's API: declare commands, hooks and analysers on a `Plugin`, and act on the
library through the `Api` every handler is handed.

Runs in the plugin's host process (never in Serpent's window or MCP server). A plugin module
makes one `plugin = Plugin()` and decorates its functions; Serpent reads the declarations when
the host starts. What a plugin changes, it changes by calling Serpent's commands through
`api.call(...)`: the same gateway, checks, undo, toasts and notifications as a person or an
AI client, labelled `plugin:<id>`. docs/plugins.md's “Writing a plugin” explains it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field

from library.errors import ALL_CODES, INVALID_ARGUMENT, ErrorCode
from library.risk import Risk
from library.schemas.common import AssetId, CollectionId, FolderId, Model

__all__ = ["Plugin", "Api", "HookEvent", "PluginError", "CommandFailed", "Veto", "RiskReport",
           "RiskTarget", "Model", "AssetId", "FolderId", "CollectionId", "TARGET_FIELDS",
           "DEFAULT_COMMAND_TIMEOUT_S", "get_assets", "ASSET_GET_BATCH"]

TARGET_FIELDS = {"asset_ids": "assetIds", "folder_ids": "folderIds",
                 "collection_ids": "collectionIds"}
DEFAULT_COMMAND_TIMEOUT_S = 120.0
MAX_COMMAND_TIMEOUT_S = 600.0
MAX_TITLE_LENGTH = 60
ASSET_GET_BATCH = 100  # `asset.get` takes at most this many ids in one call
F = TypeVar("F", bound=Callable[..., Any])


class PluginError(Exception):
    """Refuse on purpose, with a stable error code (docs/contracts.md §3) and a message for the
    person: the caller gets it as the command's error. Any other exception is a bug of the
    plugin: the caller gets PLUGIN_FAILED with its message, the trace goes to the log, and the
    plugin keeps running."""

    def __init__(self, message: str, code: str = INVALID_ARGUMENT, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code if code in ALL_CODES else INVALID_ARGUMENT
        self.details = details


class CommandFailed(PluginError):
    """`api.call(...)` answered an error: `code`, `message` and the whole `envelope`.
    Uncaught, it becomes the plugin command's own error."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        raw = envelope.get("error")
        error: dict[str, Any] = raw if isinstance(raw, dict) else {}
        super().__init__(str(error.get("message", "The command failed.")),
                         str(error.get("code", ErrorCode.INTERNAL)))
        self.envelope = envelope


class Veto(Exception):
    """Raised by a will-hook: the command does not run; the caller reads the message."""


@dataclass(frozen=True)
class HookEvent:
    """A command about to run (will-hooks) or that succeeded (did-hooks)."""

    command: str  # "asset.trash"
    library_id: str | None
    arguments: dict[str, Any]  # as the caller sent them (camelCase)
    source: str  # "ui", "mcp", "plugin", "cli"
    actor: str  # "You", "Claude Desktop via MCP", "plugin:rename-pattern"
    result: dict[str, Any] | None = None  # did-hooks: the command's result
    change_sequence: int | None = None  # did-hooks: the library's, after it


class RiskTarget(Model):
    id: str
    version: int = Field(ge=0)
    name: str = ""


class RiskReport(Model):
    """What a dangerous command's first call shows: the challenge binds `targets`."""

    summary: str = Field(min_length=1, max_length=500)
    targets: list[RiskTarget] = Field(default_factory=list)
    irreversible: bool = True


class Api(Protocol):
    """What a handler is handed. Thread-safe: one per invocation."""

    plugin_id: str
    library_id: str | None  # the library the command or hook is about (explicit, never guessed)

    def call(self, command: str, arguments: dict[str, Any] | None = None, *,
             library_id: str | None = None) -> dict[str, Any]:
        """Run a Serpent command (`"asset.get"`, `"file.import"`, another plugin's
        `"plugin.x.y"`) through the gateway and return its `result`. A library-level command
        gets `libraryId` = `library_id`, else this call's library. Raises `CommandFailed`
        for an error answer (and for `confirmation_required`, with the envelope)."""

    def log(self, message: str, *, level: str = "info") -> None:
        """A line in Serpent's log, under `serpent.plugins.<id>`."""

    def work_dir(self) -> Path:
        """A fresh, empty folder for this invocation's files; removed after it returns."""


def get_assets(api: Api, asset_ids: Sequence[str], *, missing_ok: bool = False,
               library_id: str | None = None) -> list[dict[str, Any]]:
    """Each of `asset_ids` as `asset.get` answers it, in the order given (each once), however
    many: asked `ASSET_GET_BATCH` at a time. When some do not exist (deleted meanwhile),
    raises `PluginError` NOT_FOUND ("2 of the assets do not exist"; `notFound`: the first 100
    of them), or with `missing_ok` leaves them out."""
    wanted = list(dict.fromkeys(asset_ids))
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(wanted), ASSET_GET_BATCH):
        answer = api.call("asset.get", {"assetIds": wanted[start:start + ASSET_GET_BATCH]},
                          library_id=library_id)
        found.update({item["id"]: item for item in answer["items"]})
    missing = [asset_id for asset_id in wanted if asset_id not in found]
    if missing and not missing_ok:
        raise PluginError(f"{len(missing)} of the assets do not exist", ErrorCode.NOT_FOUND,
                          notFound=missing[:100])
    return [found[asset_id] for asset_id in wanted if asset_id in found]


@dataclass(frozen=True)
class CommandDef:
    verb: str
    handler: Callable[..., Any]
    input: type[BaseModel]
    output: type[BaseModel]
    risk: Risk
    summary: str
    returns: str
    example: dict[str, Any]
    idempotent: bool
    timeout_s: float
    title: str = ""


@dataclass(frozen=True)
class HookDef:
    name: str
    handler: Callable[..., Any]
    commands: tuple[str, ...]


@dataclass(frozen=True)
class AnalyserDef:
    name: str
    handler: Callable[..., Any]
    kinds: tuple[str, ...]
    version: int


ANALYSER_KINDS = ("image", "vector", "video", "audio", "document", "font", "model", "archive",
                  "other")


@dataclass
class Plugin:
    """A plugin's contributions, declared with the decorators below."""

    commands: dict[str, CommandDef] = field(default_factory=dict)
    plans: dict[str, Callable[..., Any]] = field(default_factory=dict)
    will_hooks: list[HookDef] = field(default_factory=list)
    did_hooks: list[HookDef] = field(default_factory=list)
    analysers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    analyser_defs: dict[str, AnalyserDef] = field(default_factory=dict)

    def command(self, verb: str, *, input: type[BaseModel], output: type[BaseModel],
                summary: str, returns: str, example: dict[str, Any], risk: Risk = "normal",
                idempotent: bool = False,
                timeout_s: float = DEFAULT_COMMAND_TIMEOUT_S, title: str = "") -> Callable[[F], F]:
        """`handler(api, args) -> output model (or its dict)`: the command
        `plugin.<id>.<verb>`. `input` must take at least one of `asset_ids`, `folder_ids`,
        `collection_ids` (the targets every call names); `example` is one realistic call's
        arguments (with `libraryId`). `title`: its short name in the window's Plugins menu
        ("Make contact sheet"; default: the plugin's name and the verb)."""
        if not any(name in input.model_fields for name in TARGET_FIELDS):
            raise TypeError(f"{verb}: the input takes asset_ids, folder_ids or collection_ids")
        if not 0 < timeout_s <= MAX_COMMAND_TIMEOUT_S:
            raise ValueError(f"{verb}: timeout_s is between 0 and {MAX_COMMAND_TIMEOUT_S}")
        if len(title) > MAX_TITLE_LENGTH:
            raise ValueError(f"{verb}: a title has at most {MAX_TITLE_LENGTH} characters")

        def declare(handler: F) -> F:
            self.commands[verb] = CommandDef(verb, handler, input, output, risk, summary,
                                             returns, example, idempotent, timeout_s,
                                             title.strip())
            return handler
        return declare

    def plan(self, verb: str) -> Callable[[F], F]:
        """`planner(api, args) -> RiskReport`: what a dangerous command would do, changing
        nothing. Serpent shows it with a one-time challenge; only the confirmed second call
        runs the command (whose plan is asked again and must name the same targets)."""
        def declare(planner: F) -> F:
            self.plans[verb] = planner
            return planner
        return declare

    def will_hook(self, *, commands: tuple[str, ...] | list[str] = ("*",)) -> Callable[[F], F]:
        """`hook(api, event)` before every changing command matching `commands` (fnmatch
        patterns: `"asset.*"`); raise `Veto("why")` to refuse it. Keep it quick: every
        matching command waits for it (at most 2 s, see docs/plugins.md)."""
        def declare(hook: F) -> F:
            self.will_hooks.append(HookDef(hook.__name__, hook, tuple(commands)))
            return hook
        return declare

    def did_hook(self, *, commands: tuple[str, ...] | list[str] = ("*",)) -> Callable[[F], F]:
        """`hook(api, event)` after every changing command matching `commands` succeeded.
        Nothing waits for it."""
        def declare(hook: F) -> F:
            self.did_hooks.append(HookDef(hook.__name__, hook, tuple(commands)))
            return hook
        return declare

    def analyser(self, name: str, *, kinds: tuple[str, ...] | list[str] = ("image",),
                 version: int = 1) -> Callable[[F], F]:
        """`analyser(api, asset_ids) -> {asset_id: text} | None`, for the assets of these
        `kinds` (asset kinds: image, video, ...), after Serpent's own analysis of newly
        imported ones (from any source), and for every asset it has not looked at yet when
        the plugin starts (raise `version` to have them all looked at again). Text it
        returns is kept as the asset's found text (searched with its other words, shown in
        the window and `asset.get`; "" means none); assets left out of the answer count as
        not readable. It may also act through `api.call` (tags, notes...) and return None."""
        unknown = sorted(set(kinds) - set(ANALYSER_KINDS))
        if unknown or not kinds:
            raise ValueError(f"{name}: kinds are asset kinds ({', '.join(ANALYSER_KINDS)})")
        if not 1 <= version <= 1_000_000:
            raise ValueError(f"{name}: version is a whole number from 1")

        def declare(analyser: F) -> F:
            self.analysers[name] = analyser
            self.analyser_defs[name] = AnalyserDef(name, analyser, tuple(kinds), version)
            return analyser
        return declare
