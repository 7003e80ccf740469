"""The MCP tool list, generated from the automation registry for one credential mode.

Thread-safe. Schemas come straight from the registry's pydantic models (`$ref`s inlined so
every client can read them; the registry leaves output schemas open to added keys). Tools whose
answers hold lists also take `cursor` here, to continue an answer the output budget cut
(`continuations.py`), and their results declare `nextCursor` and `truncated`. Tools are cached
per command spec and rebuilt only when the registry's contents change (a plugin came or went).
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Collection
from typing import Any

import mcp_types as types

from serpent_tk.automation.plugins.exposure import PluginExposure
from serpent_tk.automation.registry import CommandSpec, Registry, tool_name_for
from serpent_tk.mcp.tools.budget import cuttable_fields


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with local `#/$defs/X` references replaced by their definitions.

    A recursive definition keeps its `$ref` (and the `$defs` it needs), so the result is always
    a valid schema.
    """
    defs: dict[str, Any] = schema.get("$defs", {})
    kept: set[str] = set()

    def resolve(node: Any, trail: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, trail) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in trail or name not in defs:
                kept.add(name)
                return node
            resolved = resolve(copy.deepcopy(defs[name]), (*trail, name))
            siblings = {k: resolve(v, trail) for k, v in node.items() if k != "$ref"}
            return {**resolved, **siblings}
        return {k: resolve(v, trail) for k, v in node.items() if k != "$defs"}

    result: dict[str, Any] = resolve(schema, ())
    if kept:
        result["$defs"] = {name: defs[name] for name in kept}
    return result


def continued_here(spec: CommandSpec) -> bool:
    """Whether the MCP layer takes `cursor` for this tool to continue a cut answer (tools
    whose answers hold lists but that take no cursor of their own; see continuations.py)."""
    return bool(cuttable_fields(spec.output_model)) and "cursor" not in \
        spec.input_model.model_fields


CONTINUATION_ARGUMENT = {
    "type": "string", "maxLength": 100,
    "description": "Only to continue: the nextCursor of this tool's previous answer when it "
                   "was cut to fit (truncated: true). Returns the next part of that same answer; "
                   "nothing runs again."}


def input_schema(spec: CommandSpec) -> dict[str, Any]:
    schema: dict[str, Any] = inline_refs(spec.input_schema())
    if continued_here(spec):
        schema["properties"]["cursor"] = CONTINUATION_ARGUMENT
    return schema


def output_schema(spec: CommandSpec) -> dict[str, Any]:
    schema: dict[str, Any] = inline_refs(spec.output_schema())
    if cuttable_fields(spec.output_model):  # what a cut answer adds (CONTRACTS.md §5)
        declared = schema["properties"]["result"].setdefault("properties", {})
        declared.setdefault("nextCursor", {"type": ["string", "null"]})
        declared.setdefault("truncated", {"type": "boolean"})
    if spec.returns_image:
        # The MCP layer sends the picture itself as image content, never the file path.
        result = schema["properties"]["result"]
        result.get("properties", {}).pop("path", None)
        if "required" in result:
            result["required"] = [r for r in result["required"] if r != "path"]
    return schema


_COMMAND_MENTION = re.compile(r"\b[a-z]+(?:-[a-z]+)*\.[a-z]+(?:-[a-z]+)*\b")


def agent_text(text: str, known: Collection[str]) -> str:
    """`text` with other commands named as an MCP client calls them (`asset.trash` →
    `serpent_asset_trash`); words that are not commands stay as they are."""
    return _COMMAND_MENTION.sub(
        lambda m: tool_name_for(m.group(0)) if m.group(0) in known else m.group(0), text)


def tool_for(spec: CommandSpec, meta: dict[str, Any] | None = None,
             known: Collection[str] = ()) -> types.Tool:
    hints = spec.annotations
    return types.Tool(
        name=spec.tool_name,
        title=agent_text(spec.one_line, known),
        description=agent_text(spec.description, known),
        input_schema=input_schema(spec),
        output_schema=output_schema(spec),
        annotations=types.ToolAnnotations(
            read_only_hint=hints.read_only, destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent, open_world_hint=False),
        _meta=meta,
    )


class Catalogue:
    """Tools per mode, built from `registry`. Thread-safe."""

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

    def tools(self, mode: str) -> list[types.Tool]:
        """What a credential in `mode` sees: the commands its mode allows."""
        return [self._tool(spec) for spec in self.registry.tools(mode) if self._shown(spec, mode)]

    def visible(self, tool_name: str, mode: str) -> CommandSpec | None:
        """The command behind `tool_name` if a credential in `mode` may call it, else None."""
        spec = self.registry.get(tool_name)
        if spec is None or spec.tool_name != tool_name or not self._shown(spec, mode):
            return None
        return spec

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
