"""Lean tool definitions: what the model reads stays under its limits (tokens per toolset), the
whole tools/list answer under 66 KiB, every argument is described, the lean schemas take every
example, every envelope a tool answers with is valid against its output schema, and MCP
Inspector's `--strict` lint (its rules here, and the real CLI) finds nothing."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import httpx2
import pytest
from jsonschema import Draft202012Validator

from serpent_tk.automation.commands import build_registry, examples
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.mcp.apps.search_app import tool_meta
from serpent_tk.mcp.tools import schemas, sizes
from serpent_tk.mcp.tools.catalogue import Catalogue
from tests.mcp.conftest import Server
from tests.nodejs import node_executable, node_project

REGISTRY = build_registry()
SPECS = sorted((s for s in REGISTRY.commands.values() if not s.internal),
               key=lambda s: s.name)  # internal commands are never tools
CATALOGUE = Catalogue(REGISTRY, tool_meta())
DEFAULT_SAID = re.compile(r"\bdefault (\d+)\b")


@pytest.mark.parametrize("toolset", ["everything", "essentials"])
def test_what_the_model_reads_stays_under_its_limit(toolset: str) -> None:
    size = sizes.measure(CATALOGUE.tools("full-access", toolset))
    limit = sizes.MODEL_TOKEN_LIMITS[toolset]
    assert size.model_tokens <= limit, (
        f"{toolset}: {size.model_tokens} tokens ({size.model_chars} chars) of names, "
        f"descriptions and input schemas; the limit is {limit}: shorten them "
        "(bench/bench_catalogue.py prints the largest)")


def test_the_whole_tools_list_answer_stays_under_its_limit(server: Server) -> None:
    size = sizes.measure(CATALOGUE.tools("full-access", "everything"))
    assert size.whole_bytes <= sizes.WHOLE_ANSWER_LIMIT, size
    # the same, as a real client gets it (2026-07-28: one POST, no session)
    token = server.token("Full", "full-access")
    answer = httpx2.post(server.url, timeout=30, headers={
        "Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/list",
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    assert answer.status_code == 200, answer.text[:500]
    body = answer.text
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        body = "".join(line[len("data:"):].strip() for line in body.splitlines()
                       if line.startswith("data:"))
    message = json.loads(body)
    assert len(message["result"]["tools"]) == len(SPECS)
    assert len(body.encode("utf-8")) <= sizes.WHOLE_ANSWER_LIMIT


def described(node: Any, path: str) -> list[str]:
    """Where `node` has a property without a description."""
    missing: list[str] = []
    if not isinstance(node, dict):
        return missing
    for name, sub in (node.get("properties") or {}).items():
        if not isinstance(sub, dict) or not str(sub.get("description", "")).strip():
            missing.append(f"{path}.{name}")
        missing += described(sub, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        missing += described(node.get(key), f"{path}[]")
    for branch in node.get("anyOf", []):
        missing += described(branch, path)
    return missing


def test_every_argument_is_described_and_its_default_is_the_one_said() -> None:
    tools = CATALOGUE.tools("full-access", "everything")
    missing = [m for tool in tools for m in described(tool.input_schema, tool.name)]
    assert not missing, "arguments without a description:\n" + "\n".join(missing)
    for tool in tools:
        for name, prop in tool.input_schema["properties"].items():
            said = DEFAULT_SAID.search(str(prop.get("description", "")))
            if said:  # e.g. tag.cooccurrence once said "default 50" with 20 in its schema
                assert prop.get("default") == int(said.group(1)), (tool.name, name)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_the_advertised_schema_takes_the_example(spec: CommandSpec) -> None:
    """Lean, never stricter than the gateway: the example validates as clients check it."""
    tool = CATALOGUE.tools("full-access", "everything")[SPECS.index(spec)]
    assert tool.name == spec.tool_name
    validator = Draft202012Validator(tool.input_schema)
    errors = [e.message for e in validator.iter_errors(spec.example)]
    assert not errors, errors
    assert set(spec.example.get("assetIds", [])) <= set(examples.PLACEHOLDER_IDS)


ERROR_ENVELOPES = [
    {"status": "error", "error": {"code": "LIBRARY_NOT_FOUND",
                                  "message": "There is no library with this id."}},
    {"status": "error", "error": {"code": "VERSION_CONFLICT", "message": "It changed.",
                                  "retryable": False, "currentVersion": 7,
                                  "libraryId": examples.LIB}},
    {"status": "error", "error": {"code": "BUSY", "message": "Try again.", "retryable": True,
                                  "field": "assetIds", "incidentId": "inc_1"}},
]
CONFIRMATION = {"status": "confirmation_required",
                "challenge": {"id": "ch_1", "expiresAt": "2026-12-01T10:00:00Z",
                              "command": "trash.empty"},
                "riskReport": {"summary": "Permanently delete 3 assets.", "targets": [],
                               "irreversible": True},
                "libraryId": examples.LIB}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_envelope_is_valid_against_the_output_schema(spec: CommandSpec) -> None:
    # TypeScript-SDK clients (Ajv) validate structuredContent even on isError results
    schema = schemas.output_schema(spec)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for envelope in ERROR_ENVELOPES:
        assert validator.is_valid(envelope), list(validator.iter_errors(envelope))
    assert validator.is_valid(CONFIRMATION) == spec.dangerous
    ok = {"status": "ok", "libraryId": examples.LIB, "libraryChangeSequence": 3,
          "result": {"items": [], "nextCursor": "c1", "truncated": True}}
    assert validator.is_valid(ok)
    # ... and still says what each status carries
    assert not validator.is_valid({"status": "error"})
    assert not validator.is_valid({"status": "error", "error": {"code": "NOT_FOUND"}})
    assert not validator.is_valid({"status": "ok"})
    assert not validator.is_valid({"status": "failed", "error": ERROR_ENVELOPES[0]["error"]})
    assert not validator.is_valid({"result": {}})


# MCP Inspector's `--strict` lint (clients/cli, 2.12): what makes a tool schema less portable
CONSTRAINING = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "format", "contentMediaType",
    "contentEncoding", "contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "allOf",
    "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems",
    "unevaluatedItems", "properties", "patternProperties", "additionalProperties",
    "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref",
    "$dynamicRef", "$recursiveRef"})
SUBSCHEMA = ("items", "contains", "not", "propertyNames", "if", "then", "else",
             "additionalProperties", "unevaluatedProperties", "additionalItems",
             "unevaluatedItems", "contentSchema")
SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs",
                  "definitions")
BOOLEAN_ALLOWED = frozenset({"additionalProperties", "unevaluatedProperties", "items",
                             "additionalItems", "unevaluatedItems"})


def strict_findings(node: Any, path: str, keyword: str | None = None) -> list[str]:
    """What `inspector --cli --strict` reports of one schema (empty: nothing)."""
    if isinstance(node, bool):
        return [] if keyword in BOOLEAN_ALLOWED else [f"{path}: a bare {node}"]
    if not isinstance(node, dict):
        return []
    found = []
    if isinstance(node.get("type"), list):
        found.append(f"{path}: type {node['type']} (use anyOf, one type each)")
    ref = node.get("$ref")
    if isinstance(ref, str) and ref and not ref.startswith("#"):
        found.append(f"{path}: a remote $ref")
    constrains = bool(CONSTRAINING & set(node)) or ("if" in node and (
        "then" in node or "else" in node))
    if not constrains and keyword != "not":
        found.append(f"{path}: no validation keyword (accepts anything)")
    for key in SUBSCHEMA_MAPS:
        for name, sub in (node.get(key) or {}).items() if isinstance(node.get(key), dict) \
                else ():
            found += strict_findings(sub, f"{path}.{key}.{name}", key)
    for key in SUBSCHEMA_LISTS:
        for index, sub in enumerate(node.get(key) or []):
            found += strict_findings(sub, f"{path}.{key}[{index}]", key)
    for key in SUBSCHEMA:
        if key in node:
            found += strict_findings(node[key], f"{path}.{key}", key)
    return found


def test_every_schema_passes_mcp_inspectors_strict_lint() -> None:
    """No `type: [T, "null"]` (Gemini's function declarations take one type), every property
    says what it is, no bare booleans, no remote refs: in the input and output schemas of
    every tool."""
    found = [finding for tool in CATALOGUE.tools("full-access", "everything")
             for kind in ("input_schema", "output_schema")
             for finding in strict_findings(getattr(tool, kind), f"{tool.name}.{kind}")]
    assert not found, "\n".join(found)


def test_mcp_inspector_strict_finds_nothing(server: Server) -> None:
    """The real MCP Inspector CLI (tests/node/inspector) lists the tools with --strict."""
    project = node_project("inspector")
    token = server.token("Inspector", "full-access")
    launcher = project / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / \
        "launcher" / "build" / "index.js"
    for toolset in ("everything", "essentials"):
        server.credentials.set_toolset("Inspector", toolset)
        done = subprocess.run(
            [str(node_executable()), str(launcher), "--cli", server.url, "--header",
             f"Authorization: Bearer {token}", "--method", "tools/list", "--strict"],
            cwd=project, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]
        listed = json.loads(done.stdout)["tools"]
        assert len(listed) == len(CATALOGUE.tools("full-access", toolset))
        assert "Warning" not in done.stderr and "Error" not in done.stderr, done.stderr[-3000:]
