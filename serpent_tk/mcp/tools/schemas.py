"""The JSON schemas a tool advertises, made lean: what the model reads costs context on every
turn, and the whole tools/list answer must stay small (`bench/bench_catalogue.py`).

Thread-safe (pure functions). Input schemas come from the registry's (pydantic) ones with
`$ref`s inlined and what only annotates dropped (pydantic's titles, examples, string length
and id-pattern checks the gateway makes anyway, `null` alternatives of optional fields).
They never refuse an argument the gateway accepts. Output schemas promise the envelope every
answer of the tool has (docs/contracts.md §2: its status, a result object, an error's code and
message, a confirmation's challenge) and nothing of the result's inside, which the
description's "Returns" and docs/mcp.md tell: the schemas travel in every tools/list answer,
models do not read them, and a client validating against them (the TypeScript SDK does, even
on errors) must never reject an answer, also of a newer Serpent that adds fields.
"""

from __future__ import annotations

import copy
from typing import Any

from serpent_tk.automation.registry import CommandSpec

# annotations the gateway checks itself or that tell the model nothing it needs
DROPPED = frozenset({"title", "examples", "minLength", "maxLength", "pattern", "minItems"})
TRIVIAL_DEFAULTS: tuple[Any, ...] = (None, False, [], {})
LITERAL_KEYS = frozenset({"enum", "const", "default", "required"})
NULL = {"type": "null"}
ANNOTATING = ("description", "default", "title", "examples")  # said of a value, not checked


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


def _property(schema: dict[str, Any], required: bool) -> dict[str, Any]:
    """One property: an optional `X | None` (null only means "not given") becomes `X`; a
    null that means something (folderId null: in no folder) stays, as `anyOf` a single type
    and null (never `type: [T, "null"]`, which clients mapping schemas onto one `type` per
    value reject). Alternatives of one type (an http(s) URL or "") become that type."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    nullable = NULL in branches and (required or rest.get("default") is not None)
    others = [b for b in branches if b != NULL]
    kinds = {b.get("type") for b in others}
    if len(others) == 1:
        merged = {**others[0], **rest}
    elif len(kinds) == 1 and isinstance(next(iter(kinds)), str):
        merged = {"type": next(iter(kinds)), **rest}
    else:
        return schema
    if nullable:
        if not isinstance(merged.get("type"), str):
            return schema
        said = {k: merged.pop(k) for k in ANNOTATING if k in merged}
        return {"anyOf": [merged, NULL], **said}
    return merged


def lean(node: Any, top: bool = False) -> Any:
    """A schema without what only annotates it (see the module's docstring)."""
    if isinstance(node, list):
        return [lean(item) for item in node]
    if not isinstance(node, dict):
        return node
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED and not isinstance(value, dict):
            continue
        if key == "default" and any(value == t and type(value) is type(t)
                                    for t in TRIVIAL_DEFAULTS):
            continue
        if key == "minimum" and value in (0, 1) and type(value) is int:
            continue  # counts, pages and versions start there anyway
        if key == "additionalProperties" and value is False and not top:
            continue  # the gateway refuses unknown keys anyway; said once, at the top
        if key == "type" and value == "string" and "enum" in node:
            continue  # the enum says it
        if key == "properties" and isinstance(value, dict):
            required = set(node.get("required", []))
            result[key] = {name: lean(_property(sub, name in required))
                           for name, sub in value.items()}
        elif key in LITERAL_KEYS:
            result[key] = value
        elif key == "description" and isinstance(value, str):
            result[key] = " ".join(value.split())  # a docstring's line breaks
        else:
            result[key] = lean(value)
    return result


def input_schema(spec: CommandSpec, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the model reads about a tool's arguments; `extra`: properties the MCP layer adds
    (the continuation `cursor`)."""
    schema: dict[str, Any] = lean(inline_refs(spec.input_schema()), top=True)
    schema.pop("description", None)  # the tool's description says it
    if extra:
        schema["properties"].update(extra)
    return schema


# What each envelope status requires besides `status` (docs/contracts.md §2).
ENVELOPE_REQUIRES: dict[str, list[str]] = {
    "ok": ["result"], "error": ["error"], "confirmation_required": ["challenge", "riskReport"]}


def output_schema(spec: CommandSpec) -> dict[str, Any]:
    """Every envelope the tool answers with: `ok` with its result (an object), `error` (a
    code and a message for people), and for a dangerous tool `confirmation_required`."""
    statuses = list(ENVELOPE_REQUIRES) if spec.dangerous else ["ok", "error"]
    properties: dict[str, Any] = {"status": {"enum": statuses},
                                  "result": {"type": "object"},
                                  "error": {"required": ["code", "message"]}}
    if spec.dangerous:
        properties["challenge"] = {"required": ["id"]}
        properties["riskReport"] = {"type": "object"}
    return {"type": "object", "properties": properties,
            "anyOf": [{"required": ["status", *ENVELOPE_REQUIRES[s]]} for s in statuses]}
