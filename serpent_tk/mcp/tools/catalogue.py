"""The MCP tool list, generated from the automation registry for one credential (its mode
and its toolset: `automation/policy.py` decides what each sees).

Thread-safe. Schemas come from the registry's pydantic models, made lean (`schemas.py`).
Tools whose answers hold lists also take `cursor` here, to continue an answer the output budget
cut (`continuations.py`); long work says it may run as a task (`execution.taskSupport`). Tools
are cached per command spec and rebuilt only when the registry's contents change (a plugin came
or went).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection
from typing import Any

import mcp_types as types

from serpent_tk.automation import policy
from serpent_tk.automation.plugins.exposure import PluginExposure
from serpent_tk.automation.registry import CommandSpec, Registry, tool_name_for
from serpent_tk.mcp.tools import schemas
from serpent_tk.mcp.tools.budget import cuttable_fields


def continued_here(spec: CommandSpec) -> bool:
    """Whether the MCP layer takes `cursor` for this tool to continue a cut answer (tools
    whose answers hold lists but that take no cursor of their own; see continuations.py)."""
    return bool(cuttable_fields(spec.output_model)) and "cursor" not in \
        spec.input_model.model_fields


# long work an MCP client may run as a task (`mcp.tasks`); the 2026-07-28 wire drops the field
TASK_OPTIONAL = types.ToolExecution(task_support="optional")

CONTINUATION_ARGUMENT = {
    "type": "string",
    "description": "nextCursor, to go on."}


def input_schema(spec: CommandSpec) -> dict[str, Any]:
    extra = {"cursor": CONTINUATION_ARGUMENT} if continued_here(spec) else None
    return schemas.input_schema(spec, extra)


def hints_for(spec: CommandSpec) -> types.ToolAnnotations:
    """The hints, leaving out what equals the MCP default or means nothing for a read-only
    tool (destructive, idempotent)."""
    hints = spec.annotations
    if hints.read_only:
        return types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return types.ToolAnnotations(destructive_hint=hints.destructive,
                                 idempotent_hint=hints.idempotent or None,
                                 open_world_hint=False)


COMMAND_MENTION = re.compile(r"\b[a-z]+(?:-[a-z]+)*\.[a-z]+(?:-[a-z]+)*\b")


def agent_text(text: str, known: Collection[str]) -> str:
    """`text` with other commands named as an MCP client calls them (`asset.trash` →
    `serpent_asset_trash`); words that are not commands stay as they are."""
    return COMMAND_MENTION.sub(
        lambda m: tool_name_for(m.group(0)) if m.group(0) in known else m.group(0), text)


def _described(schema: Any, known: Collection[str]) -> Any:
    """`schema` with the commands its descriptions name as MCP tool names."""
    if isinstance(schema, list):
        return [_described(item, known) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: agent_text(value, known) if key == "description" and isinstance(value, str)
            else _described(value, known) for key, value in schema.items()}


def tool_for(spec: CommandSpec, meta: dict[str, Any] | None = None,
             known: Collection[str] = ()) -> types.Tool:
    return types.Tool(
        name=spec.tool_name,
        title=spec.title or None,
        description=agent_text(spec.description, known),
        input_schema=_described(input_schema(spec), known),
        output_schema=schemas.output_schema(spec),
        annotations=hints_for(spec),
        execution=TASK_OPTIONAL if spec.long_work else None,  # 2025-11-25 wire only
        _meta=meta,
    )


class Catalogue:
    """Tools per credential (mode and toolset), built from `registry`. Thread-safe."""

    def __init__(self, registry: Registry, tool_meta: dict[str, dict[str, Any]] | None = None,
                 exposure: PluginExposure | None = None) -> None:
        self.registry = registry
        self.exposure = exposure  # plugin commands are tools only while exposed
        self._tool_meta = tool_meta or {}  # tool name -> `_meta` (MCP Apps binding)
        self._lock = threading.Lock()
        self._tools: dict[str, tuple[CommandSpec, types.Tool]] = {}

    def _tool(self, spec: CommandSpec) -> types.Tool:
        with self._lock:
            cached = self._tools.get(spec.tool_name)
            if cached is not None and cached[0] is spec:
                return cached[1]
        tool = tool_for(spec, self._tool_meta.get(spec.tool_name), self.registry.commands)
        with self._lock:
            self._tools[spec.tool_name] = (spec, tool)
        return tool

    def specs(self, mode: str, toolset: str) -> list[CommandSpec]:
        """The commands a credential in `mode` with `toolset` finds in tools/list."""
        return [spec for _, spec in sorted(self.registry.commands.items())
                if self._visibility(spec, mode, toolset) == "listed"]

    def tools(self, mode: str, toolset: str) -> list[types.Tool]:
        """What a credential in `mode` with `toolset` sees."""
        return [self._tool(spec) for spec in self.specs(mode, toolset)]

    def visible(self, tool_name: str, mode: str, toolset: str) -> CommandSpec | None:
        """The command behind `tool_name` if such a credential may call it (a call its mode
        does not allow answers PERMISSION_DENIED), else None: hidden like an unknown tool."""
        spec = self.registry.get(tool_name)
        if spec is None or spec.tool_name != tool_name:
            return None
        return None if self._visibility(spec, mode, toolset) == "hidden" else spec

    def _visibility(self, spec: CommandSpec, mode: str, toolset: str) -> policy.Visibility:
        """The one decision behind tools/list and tools/call: the credential's mode and
        toolset (`policy.visibility`), and whether a plugin's commands are exposed."""
        exposed = spec.plugin_id is None or self.exposure is None or self.exposure.exposed(spec)
        return policy.visibility(spec, mode, toolset, exposed=exposed)

    def _shown(self, spec: CommandSpec, mode: str) -> bool:
        """The one visibility decision behind both tools/list and tools/call."""
        return self._plugin_shown(spec, mode)

    def _plugin_shown(self, spec: CommandSpec, mode: str) -> bool:
        """Plugin commands (issue 14): full access only, and only while exposed."""
        if spec.plugin_id is None:
            return True
        return mode == "full-access" and (self.exposure is None or self.exposure.exposed(spec))

    def input_schema(self, tool_name: str) -> dict[str, Any] | None:
        spec = self.registry.get(tool_name)
        if spec is None or spec.tool_name != tool_name:
            return None
        return self._tool(spec).input_schema

    def output_schema(self, tool_name: str) -> dict[str, Any] | None:
        """The `outputSchema` tools/list advertises for `tool_name` (None: no such tool)."""
        spec = self.registry.get(tool_name)
        if spec is None or spec.tool_name != tool_name:
            return None
        return self._tool(spec).output_schema

    def names(self) -> frozenset[str]:
        """Every tool name of the registry right now (to notice contribution changes)."""
        return frozenset(spec.tool_name for spec in self.registry.commands.values())
