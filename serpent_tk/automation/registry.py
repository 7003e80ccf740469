"""The registry: every command Serpent offers, declared once as data.

Thread-safe: built at import, read-only afterwards except for plugin commands, which are
added and removed under a lock (listeners hear about it: `plugins.exposure` tells the MCP
layer when the exposed tools changed, for `tools/list_changed`). The MCP tool list and the
tool table of docs/mcp.md are generated from `REGISTRY.commands`; the window runs its actions
as registry commands and reads their words from their specs. The `serpent-tk` subcommands
are not registry commands.

A spec is all the main process knows about a command: its models, risk class and the words
the window tells people with (`Words`) — for a worker command all three come from its one
declaration in `library.catalogue`, which `command()` looks up by name and completes with what
only MCP and the window need —, policy, what a success changes besides its event's kinds
(`recount`), and, for a command the main process answers itself (`gateway_command`, declared
whole here) or a plugin command, its `handler`; an `after` step runs in the main process once
the worker answered. Nothing outside the declarations (`automation/commands/`) looks at a
command's name to decide what to do with it. `Risk` and `Words` are the catalogue's, named
here too for the main process's declarations.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

from library.catalogue import CATALOGUE
from library.catalogue import Risk as Risk  # the catalogue's, for the main process's declarations
from library.catalogue import Words as Words
from library.protocol import CallMeta
from serpent_tk.automation import policy
from serpent_tk.automation.caller import Caller
from serpent_tk.credentials import Mode
from serpent_tk.listeners import Listeners

if TYPE_CHECKING:
    from library.client import LibraryHost
    from serpent_tk.automation.libraries import Libraries

Scope = Literal["global", "library"]
Route = Literal["worker", "gateway", "plugin"]
# Where assets sit after a success, beyond what its change event's kinds say: "everywhere"
# (imports, trash, undo...: every count may move) or "folders" (folder membership)
Recount = Literal["", "folders", "everywhere"]
# Long work an MCP client may run as a task: "call" (the call itself is the work: import,
# export, unpacking), "queued" (the call queues a background task it names in `result.task`,
# which the MCP task follows to its end: analysis)
LongWork = Literal["", "call", "queued"]
T = TypeVar("T")

TOOL_NAME = re.compile(r"^[a-z0-9_]{1,64}$")
COMMAND_NAME = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")
SENTENCE_END = re.compile(r"\.\s+(?=[A-Z])")
PLUGIN_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,30}$")
PLUGIN_PREFIX = "plugin."
PLUGIN_TARGET_FIELDS = ("asset_ids", "folder_ids", "collection_ids")

# Arguments the gateway takes out before validating a command's own model.
LIBRARY_ID = "libraryId"
CONFIRM_CHALLENGE = "confirmChallenge"
IDEMPOTENCY_KEY = "idempotencyKey"
STATE_TOKEN = "stateToken"  # set by the gateway from the plan, never by a caller

# A main-process command's work: yields the futures it waits for, returns the result.
Steps = Generator["Future[Any]", Any, dict[str, Any]]


class GatewaySide(Protocol):
    """What the gateway lends a main-process handler (see `gateway.Gateway`)."""

    host: LibraryHost
    libraries: Libraries
    window_attached: bool

    def in_background(self, work: Callable[..., T], *args: Any) -> Future[T]:
        """Run slow work (disk, settings file) on the gateway's I/O threads."""

    def publish(self, event: object) -> None:
        """Tell every gateway subscriber (the window, the MCP layer)."""


@dataclass(frozen=True)
class CommandCall:
    """A validated, authorised call, as a handler or an after-step sees it."""

    spec: CommandSpec
    caller: Caller
    library_id: str | None  # the library the call targets (library-level commands)
    library: dict[str, Any]  # that library's ref as bound before the call ({} if global)
    arguments: dict[str, Any]  # what the caller set, validated (camelCase JSON)
    meta: CallMeta  # who asked, for the worker's audit trail
    gateway: GatewaySide


# the whole command, in the main process: its steps, or at once its result
Handler = Callable[[CommandCall], "Steps | dict[str, Any]"]
AfterStep = Callable[[CommandCall, dict[str, Any]], Steps]  # after the worker: final result


NO_WORDS = Words()


def tool_name_for(name: str) -> str:
    """`asset.trash` → `serpent_asset_trash` (docs/contracts.md §1)."""
    return "serpent_" + name.replace(".", "_").replace("-", "_")


@dataclass(frozen=True)
class Annotations:
    """The MCP tool hints (`readOnlyHint`, `destructiveHint`, `idempotentHint`)."""

    read_only: bool
    destructive: bool
    idempotent: bool

    def as_mcp(self) -> dict[str, bool]:
        return {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": False}


@dataclass(frozen=True)
class CommandSpec:
    name: str  # dotted: "asset.trash"
    scope: Scope
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    capabilities: frozenset[str]
    risk: Risk
    summary: str  # when to use it (first sentence: what it does)
    returns: str  # what the result holds, when the summary does not make it plain ("")
    example: dict[str, Any]  # arguments of one realistic call (with libraryId if library-level)
    annotations: Annotations
    title: str = ""  # a short name for people ("Search assets"), not the summary again
    essential: bool = False  # in the `essentials` toolset (policy.visibility)
    internal: bool = False  # Serpent's own plumbing for plugins: no MCP tool, plugins only
    route: Route = "worker"
    lifecycle: str | None = None  # LibraryLifecycle action fired on success
    imports: bool = False  # success queues the new assets for analysis
    journaled: bool = False  # success adds a step to the library's undo history
    words: Words = Words()
    recount: Recount = ""
    returns_image: bool = False  # an MCP client gets the picture itself (image content)
    long_work: LongWork = ""  # an MCP client may run it as a task (see LongWork)
    handler: Handler | None = field(default=None, compare=False)  # gateway and plugin routes
    plan: Handler | None = field(default=None, compare=False)  # a dangerous plugin command's
    # risk report (the worker plans its own dangerous commands)
    after: AfterStep | None = field(default=None, compare=False)  # main-process follow-up

    @property
    def tool_name(self) -> str:
        return tool_name_for(self.name)

    @property
    def min_mode(self) -> Mode:
        return policy.lowest_mode(self.capabilities)

    @property
    def plugin_id(self) -> str | None:
        """`contact-sheet` for `plugin.contact-sheet.make`; None for Serpent's own commands."""
        return self.name.split(".")[1] if self.name.startswith(PLUGIN_PREFIX) else None

    @property
    def dangerous(self) -> bool:
        return self.risk == "dangerous"

    @property
    def writes(self) -> bool:
        return self.risk != "read"

    @property
    def paged(self) -> bool:
        return "next_cursor" in self.output_model.model_fields

    @property
    def description(self) -> str:
        """LLM-facing: when to use it, what it returns, one example (run by a test)."""
        parts = [self.summary] + ([f"Returns: {self.returns}"] if self.returns else [])
        if self.dangerous:
            parts.append("Dangerous: the first call only answers confirmation_required with a "
                         "riskReport: show it to the person, then repeat the call with "
                         "confirmChallenge = challenge.id.")
        parts.append("Example: " + json.dumps(self.example, ensure_ascii=False,
                                              separators=(",", ":")))
        return "\n".join(parts)

    @property
    def one_line(self) -> str:
        return SENTENCE_END.split(self.summary, maxsplit=1)[0].rstrip(".")

    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments a caller sends (the gateway's extra fields included)."""
        schema = self.input_model.model_json_schema(by_alias=True, mode="validation")
        properties: dict[str, Any] = {}
        required: list[str] = []
        if self.scope == "library":
            properties[LIBRARY_ID] = {
                "type": "string", "minLength": 1, "maxLength": 64,
                "description": "From library_list_open."}
            required.append(LIBRARY_ID)
        own = dict(schema.get("properties", {}))
        own.pop(STATE_TOKEN, None)
        properties.update(own)
        required.extend(r for r in schema.get("required", []) if r != STATE_TOKEN)
        if self.writes and self.scope == "library":
            properties[IDEMPOTENCY_KEY] = {
                "type": "string", "maxLength": 200,
                "description": "Retry key."}
        if self.dangerous:
            properties[CONFIRM_CHALLENGE] = {
                "type": "string", "maxLength": 100,
                "description": "challenge.id of the first answer."}
        result: dict[str, Any] = {"type": "object", "properties": properties,
                                  "additionalProperties": False}
        if required:
            result["required"] = required
        for key in ("description", "$defs", "anyOf"):  # anyOf: a plugin's "one of the targets"
            if key in schema:
                result[key] = schema[key]
        return result


def hints(risk: Risk, *, idempotent: bool | None = None,
          destructive: bool | None = None) -> Annotations:
    """Tool hints that follow from the risk class unless said otherwise."""
    return Annotations(
        read_only=risk == "read",
        destructive=risk in ("recoverable", "dangerous") if destructive is None else destructive,
        idempotent=(risk == "read") if idempotent is None else idempotent,
    )


def capabilities_for(risk: Risk, scope: Scope) -> frozenset[str]:
    """The usual capabilities of a command of this risk (commands may declare others)."""
    if risk == "read":
        return frozenset({policy.LIBRARY_READ})
    return frozenset({policy.LIBRARY_READ, policy.LIBRARY_WRITE})


def command(name: str, summary: str, returns: str, example: dict[str, Any], *,
            title: str, essential: bool = False, internal: bool = False,
            capabilities: Iterable[str] | None = None,
            idempotent: bool | None = None, destructive: bool | None = None,
            lifecycle: str | None = None, imports: bool = False, recount: Recount = "",
            returns_image: bool = False, after: AfterStep | None = None,
            long_work: LongWork = "") -> CommandSpec:
    """Add, to the catalogue's declaration of a command the library worker serves
    (`library.catalogue`: its models, risk, words, history rule, worker function), what only
    MCP and the window need (library-level). Capabilities and hints follow from the risk by
    default."""
    served = CATALOGUE.get(name)
    if served is None:
        raise ValueError(f"{name} is routed to the worker but not in library.catalogue")
    journaled = served.history == "step"
    return _spec(name, served.input_model, served.output_model, served.risk, summary, returns,
                 example, title=title, essential=essential, internal=internal,
                 words=served.words, scope="library",
                 capabilities=capabilities,
                 idempotent=idempotent, destructive=destructive, route="worker",
                 lifecycle=lifecycle, imports=imports, journaled=journaled, recount=recount,
                 returns_image=returns_image, after=after, long_work=long_work)


def gateway_command(name: str, input_model: type[BaseModel], output_model: type[BaseModel],
                    risk: Risk, summary: str, returns: str, example: dict[str, Any], *,
                    title: str, handler: Handler, essential: bool = False,
                    words: Words = NO_WORDS, scope: Scope = "library",
                    capabilities: Iterable[str] | None = None, idempotent: bool | None = None,
                    destructive: bool | None = None, lifecycle: str | None = None,
                    recount: Recount = "", long_work: LongWork = "") -> CommandSpec:
    """Declare a command the main process answers itself with `handler` (no worker command
    behind it), whole: its models, risk and words too."""
    if name in CATALOGUE:
        raise ValueError(f"{name} is declared in library.catalogue: the worker serves it")
    return _spec(name, input_model, output_model, risk, summary, returns, example,
                 title=title, essential=essential, words=words, scope=scope,
                 capabilities=capabilities, idempotent=idempotent,
                 destructive=destructive, route="gateway", lifecycle=lifecycle,
                 recount=recount, handler=handler, long_work=long_work)


def _spec(name: str, input_model: type[BaseModel], output_model: type[BaseModel], risk: Risk,
          summary: str, returns: str, example: dict[str, Any], *, scope: Scope,
          capabilities: Iterable[str] | None, idempotent: bool | None = None,
          destructive: bool | None = None, **behaviour: Any) -> CommandSpec:
    caps = frozenset(capabilities) if capabilities is not None else capabilities_for(risk, scope)
    return CommandSpec(name=name, scope=scope, input_model=input_model,
                       output_model=output_model, capabilities=caps, risk=risk,
                       summary=summary, returns=returns, example=example,
                       annotations=hints(risk, idempotent=idempotent, destructive=destructive),
                       **behaviour)


class Registry:
    """All commands by dotted name. Thread-safe."""

    def __init__(self, specs: Iterable[CommandSpec] = ()) -> None:
        self._lock = threading.Lock()
        self.commands: dict[str, CommandSpec] = {}
        self._by_tool: dict[str, CommandSpec] = {}
        self._listeners: Listeners[[]] = Listeners("the registry's plugin commands")
        for spec in specs:
            self._add(spec)

    def _add(self, spec: CommandSpec) -> None:
        check_spec(spec)
        if spec.name in self.commands:
            raise ValueError(f"command {spec.name} declared twice")
        if spec.tool_name in self._by_tool:
            raise ValueError(f"tool name {spec.tool_name} is taken by "
                             f"{self._by_tool[spec.tool_name].name}")
        commands = dict(self.commands)
        commands[spec.name] = spec
        by_tool = dict(self._by_tool)
        by_tool[spec.tool_name] = spec
        self.commands, self._by_tool = commands, by_tool  # readers never see a half update

    def get(self, name: str) -> CommandSpec | None:
        """By dotted name (`asset.trash`) or tool name (`serpent_asset_trash`)."""
        return self.commands.get(name) or self._by_tool.get(name)

    def tools(self, mode: str) -> list[CommandSpec]:
        """What a caller in `mode` may see and call as tools, in name order (Serpent's
        internal commands, for plugins only, are never tools)."""
        return [spec for name, spec in sorted(self.commands.items())
                if not spec.internal and policy.mode_allows(mode, spec.min_mode)]

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Hear when plugin commands come or go. Returns the unsubscribe function."""
        return self._listeners.subscribe(listener)

    def add_plugin_commands(self, plugin_id: str, specs: Iterable[CommandSpec]) -> None:
        """Expose a plugin's commands (`plugin.<id>.<verb>`, full-access only)."""
        if not PLUGIN_ID.match(plugin_id):
            raise ValueError(f"bad plugin id {plugin_id!r}")
        specs = list(specs)
        prefix = f"plugin.{plugin_id}."
        with self._lock:
            for spec in specs:
                if not spec.name.startswith(prefix):
                    raise ValueError(f"{spec.name} is not under {prefix}")
                self._add(spec)
        if specs:
            self._listeners.tell()

    def remove_plugin(self, plugin_id: str) -> None:
        prefix = f"plugin.{plugin_id}."
        with self._lock:
            gone = [n for n in self.commands if n.startswith(prefix)]
            self.commands = {n: s for n, s in self.commands.items() if n not in gone}
            self._by_tool = {t: s for t, s in self._by_tool.items() if s.name not in gone}
        if gone:
            self._listeners.tell()


def check_spec(spec: CommandSpec) -> None:
    """Refuse a declaration that breaks docs/contracts.md §1 or the registry's own rules."""
    if not COMMAND_NAME.match(spec.name):
        raise ValueError(f"bad command name {spec.name!r}")
    if not TOOL_NAME.match(spec.tool_name):
        raise ValueError(f"{spec.name}: tool name {spec.tool_name!r} breaks ^[a-z0-9_]{{1,64}}$")
    unknown = spec.capabilities - set(policy.CAPABILITIES)
    if unknown or not spec.capabilities:
        raise ValueError(f"{spec.name}: bad capabilities {sorted(unknown)}")
    if spec.risk != "read" and policy.LIBRARY_READ in spec.capabilities and not (
            spec.capabilities - {policy.LIBRARY_READ, policy.UI_NOTIFY}):
        raise ValueError(f"{spec.name}: a {spec.risk} command needs more than reading")
    if spec.annotations.read_only and spec.risk != "read":
        raise ValueError(f"{spec.name}: only read commands are read-only")
    if spec.plugin_id is not None:
        if spec.scope != "library" or policy.PLUGIN_INVOKE not in spec.capabilities:
            raise ValueError(f"{spec.name}: plugin commands are library-level, plugin.invoke")
        if not any(f in spec.input_model.model_fields for f in PLUGIN_TARGET_FIELDS):
            raise ValueError(f"{spec.name}: a plugin command takes assetIds, folderIds or "
                             "collectionIds")
        if spec.route != "plugin":
            raise ValueError(f"{spec.name}: plugin commands are routed to their plugin")
    if (spec.route == "worker") == (spec.handler is not None):
        raise ValueError(f"{spec.name}: a {spec.route} command "
                         f"{'has no' if spec.route == 'worker' else 'needs a'} handler")
    if spec.dangerous and spec.route != "worker" and spec.plan is None:
        raise ValueError(f"{spec.name}: a dangerous command needs a plan (the worker's, or "
                         "its plugin's)")
    if spec.scope == "library" and LIBRARY_ID not in spec.example:
        raise ValueError(f"{spec.name}: the example of a library-level command has libraryId")
