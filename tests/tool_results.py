"""Every tool result an in-process MCP server sends during a test is checked against the
`outputSchema` that tool advertises (docs/contracts.md §2), with a Draft 2020-12 validator that also
checks formats, as the TypeScript SDK's Ajv does. TS-SDK clients throw a result away when its
structuredContent does not match, even on `isError` results; the Python SDK does not check.

`ToolResultChecker.install` wraps `Handlers.call_tool` for the duration of one test, so every
McpService a test starts (the `server` fixture, the window's, a bench-like one) is covered and
no test can forget it; `tests/conftest.py` fails the test at teardown when one result broke.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator

from serpent_tk.mcp.tools.handlers import Handlers

FORMATS = Draft202012Validator.FORMAT_CHECKER
CHECKED_FORMATS = ("date-time", "uri")  # the formats our schemas use; Ajv checks them


def validator_for(schema: dict[str, Any]) -> Validator:
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=FORMATS)


class ToolResultChecker:
    """Records every tool result that breaks its tool's advertised schema. Thread-safe."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self.checked = 0
        self._lock = threading.Lock()
        self._validators: dict[tuple[str, int], Validator] = {}

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        missing = [name for name in CHECKED_FORMATS if name not in FORMATS.checkers]
        assert not missing, (f"jsonschema cannot check the formats {missing}: install the "
                             "test extra (rfc3339-validator, rfc3986-validator)")
        original = Handlers.call_tool
        checker = self

        async def call_tool(self: Handlers, ctx: Any, params: Any) -> Any:
            advertised = self.catalogue.output_schema(params.name)  # a call may remove its
            result = await original(self, ctx, params)  # tool (a plugin that crashed)
            checker.check(self, params.name, result, advertised)
            return result

        monkeypatch.setattr(Handlers, "call_tool", call_tool)

    def check(self, handlers: Handlers, tool: str, result: Any,
              advertised: dict[str, Any] | None = None) -> None:
        problems = self._problems(handlers, tool, result, advertised)
        with self._lock:
            self.checked += 1
            self.violations.extend(f"{tool}: {problem}" for problem in problems)

    def _problems(self, handlers: Handlers, tool: str, result: Any,
                  advertised: dict[str, Any] | None = None) -> list[str]:
        schema = advertised or handlers.catalogue.output_schema(tool)
        if schema is None:
            return ["answered as a tool result, but no such tool is listed"]
        envelope = result.structured_content
        if envelope is None:
            return ["no structuredContent"]
        problems = []
        if bool(result.is_error) != (envelope.get("status") == "error"):
            problems.append(f"isError={result.is_error} with status {envelope.get('status')}")
        texts = [c.text for c in result.content if c.type == "text"]
        if not texts or json.loads(texts[-1]) != envelope:
            problems.append("the text content is not the structuredContent's JSON")
        validator = self._validator(tool, schema)
        for error in validator.iter_errors(envelope):
            where = "/".join(str(p) for p in error.absolute_path) or "(envelope)"
            problems.append(f"{where}: {error.message[:300]}")
        return problems

    def _validator(self, tool: str, schema: dict[str, Any]) -> Validator:
        key = (tool, id(schema))
        with self._lock:
            validator = self._validators.get(key)
        if validator is None:
            validator = validator_for(schema)
            with self._lock:
                self._validators[key] = validator
        return validator
