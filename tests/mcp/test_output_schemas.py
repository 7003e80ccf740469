"""Every envelope a tool answers with is valid against the outputSchema that tools/list
advertised for it (docs/contracts.md §2), errors and confirmation_required included: TypeScript-SDK
clients validate structuredContent even on isError results, with Ajv (Draft 2020-12, formats
checked), and throw the whole answer away when it does not match.

The autouse fixture of tests/conftest.py checks every tool result of the suite this way; this
file shows it on the common error codes, and that the check really catches a broken answer.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from library.protocol import CallMeta
from library.schemas.common import AssetId, Model
from serpent_tk.automation.plugins.specs import plugin_command
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.mcp.tools import schemas
from tests.mcp.conftest import Server, call, connect, create_library, make_images, ok, run
from tests.tool_results import ToolResultChecker, validator_for


def test_error_and_confirmation_envelopes_match_the_advertised_schemas(
        server: Server, era: str, tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 2)

    async def scenario() -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
        async with connect(server.url, server.token("Full", "full-access"), era) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            asset = imported["items"][0]["assetId"]
            missing = "ast_0000000000000000000000zz"
            calls = [
                ("serpent_asset_search", {"libraryId": "lib_doesnotexist0"}),
                ("serpent_asset_search", {}),
                ("serpent_asset_search", {"libraryId": library, "limit": 0}),
                ("serpent_asset_update", {"libraryId": library, "assetId": asset,
                                          "expectedVersion": 99, "rating": 3}),
                ("serpent_asset_update", {"libraryId": library, "assetId": missing,
                                          "rating": 3}),
                ("serpent_asset_delete_permanently", {"libraryId": library,
                                                      "assetIds": [asset]}),
                ("serpent_asset_delete_permanently", {"libraryId": library,
                                                      "assetIds": [asset],
                                                      "confirmChallenge": "ch_forged"}),
                ("serpent_asset_get", {"libraryId": library, "assetIds": [asset]}),
            ]
            answers = [(tool, await call(client, tool, args)) for tool, args in calls]
            return schemas, answers

    schemas, answers = run(scenario())
    outcomes = []
    for tool, envelope in answers:
        schema = schemas[tool]
        assert schema is not None
        errors = [e.message for e in validator_for(schema).iter_errors(envelope)]
        assert not errors, (tool, envelope, errors)
        outcomes.append(envelope["error"]["code"] if envelope["status"] == "error"
                        else envelope["status"])
    assert outcomes == ["LIBRARY_NOT_FOUND", "LIBRARY_REQUIRED", "INVALID_ARGUMENT",
                        "VERSION_CONFLICT", "NOT_FOUND", "confirmation_required",
                        "CHALLENGE_INVALID", "ok"]
    conflict = answers[3][1]["error"]
    assert conflict["currentVersion"] == 1 and conflict["libraryId"]

    # what the check would refuse, as Ajv would: a wrong status, an error without its code or
    # message, a result that is no object; and what it lets through: fields a newer Serpent adds
    got = answers[-1][1]
    validator = validator_for(schemas["serpent_asset_get"] or {})
    assert not validator.is_valid({**got, "status": "failed"})
    assert not validator.is_valid({"status": "error"})
    assert not validator.is_valid({"status": "error", "error": {"code": "NOT_FOUND"}})
    assert not validator.is_valid({**got, "result": ["not", "an", "object"]})
    assert validator.is_valid({**got, "result": {**got["result"], "addedLater": 1},
                               "alsoLater": True})


class CountIn(Model):
    asset_ids: list[AssetId] = Field(min_length=1)


class CountOut(Model):
    counted: int


def _miscount(library_id: str, args: dict[str, Any], meta: CallMeta
              ) -> Future[dict[str, Any]]:
    done: Future[dict[str, Any]] = Future()
    done.set_result({"counted": "three"})  # breaks CountOut
    return done


def test_the_suite_wide_check_catches_an_answer_that_breaks_its_schema(
        server: Server, tool_results_match_their_schemas: ToolResultChecker,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checker = tool_results_match_their_schemas
    # a tool whose schema promises more than its answer keeps (as a bug would have it)
    promised = schemas.output_schema

    def promising(spec: CommandSpec) -> dict[str, Any]:
        schema = promised(spec)
        if spec.name.startswith("plugin.miscount."):
            schema["properties"]["result"] = {
                "type": "object", "properties": {"counted": {"type": "integer"}}}
        return schema

    monkeypatch.setattr(schemas, "output_schema", promising)
    server.gateway.registry.add_plugin_commands("miscount", [plugin_command(
        "miscount", "count", input_model=CountIn, output_model=CountOut,
        summary="Count the given assets, wrongly.", returns="counted: how many.",
        example={"libraryId": "lib_01j9z3k4m5n6p7q8", "assetIds": ["ast_01j9z3k4m5n6p7q8"]},
        handler=_miscount)])
    server.gateway.exposure.set_exposed("miscount", True)

    async def scenario() -> None:
        async with connect(server.url, server.token("Full", "full-access"), "legacy") as client:
            library = await create_library(client, tmp_path)
            with pytest.raises(RuntimeError, match="Invalid structured content"):
                await client.call_tool("serpent_plugin_miscount_count", {  # the SDK checks too
                    "libraryId": library, "assetIds": ["ast_01j9z3k4m5n6p7q8"]})

    try:
        run(scenario())
    finally:
        server.gateway.registry.remove_plugin("miscount")
    found = list(checker.violations)
    checker.violations.clear()  # seen here on purpose: do not fail this test at teardown
    assert checker.checked >= 2
    assert len(found) == 1 and found[0].startswith("serpent_plugin_miscount_count: ")
    assert "result/counted" in found[0] and "'three'" in found[0]
