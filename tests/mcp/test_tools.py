"""The tool catalogue and tool calls over real HTTP, in both protocol eras: names and schemas
from the registry, explicit libraryId, the envelope, unknown versus hidden plugin tools, the
search-grid MCP App."""

from __future__ import annotations

import asyncio
import base64
import io
import re
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from mcp.server.apps import APP_MIME_TYPE
from mcp.shared.exceptions import MCPError
from PIL import Image
from pydantic import Field

from library.protocol import CallMeta
from library.schemas.common import AssetId, Model
from serpent_tk.automation.plugins.specs import plugin_command
from serpent_tk.mcp.apps.search_app import SEARCH_APP_URI
from serpent_tk.mcp.server import INSTRUCTIONS
from serpent_tk.mcp.tools.catalogue import agent_text
from tests.mcp.conftest import (
    ERAS,
    Server,
    call,
    connect,
    create_library,
    error_code,
    make_images,
    ok,
    run,
)

NAME = re.compile(r"^[a-z0-9_]{1,64}$")


def test_the_catalogue_follows_the_registry(server: Server, era: str) -> None:
    registry = server.gateway.registry

    async def listing() -> tuple[Any, Any]:
        async with connect(server.url, server.token("Full", "full-access"), era) as client:
            return (await client.list_tools()).tools, client

    tools, _ = run(listing())
    by_name = {t.name: t for t in tools}
    expected = {s.tool_name for s in registry.tools("full-access")}
    assert set(by_name) == expected
    for name, tool in by_name.items():
        spec = registry.get(name)
        assert spec is not None and NAME.match(name)
        assert name == "serpent_" + spec.name.replace(".", "_").replace("-", "_")
        schema = tool.input_schema
        assert schema["type"] == "object" and schema.get("additionalProperties") is False
        assert "$ref" not in repr(schema)  # inlined: every client can read it
        properties, required = schema["properties"], schema.get("required", [])
        if spec.scope == "library":
            assert "libraryId" in properties and "libraryId" in required
        else:  # library.repair may name a damaged library that is open by its id instead
            assert "libraryId" not in required                # of its path (contracts.md §1)
            assert "libraryId" not in properties or spec.name == "library.repair"
        assert ("confirmChallenge" in properties) == spec.dangerous
        keyed = spec.writes and (spec.scope == "library" or spec.name == "library.import-exported")
        assert ("idempotencyKey" in properties) == keyed
        assert "stateToken" not in properties
        assert tool.output_schema is not None and "status" in tool.output_schema["properties"]
        hints = tool.annotations  # what equals the MCP default is left out (it is short)
        assert hints is not None and hints.open_world_hint is False
        assert bool(hints.read_only_hint) == (spec.risk == "read")
        if spec.risk != "read":  # (meaningless for a read-only tool)
            assert hints.destructive_hint == spec.annotations.destructive
            assert bool(hints.idempotent_hint) == spec.annotations.idempotent
        assert tool.title == spec.title
        assert tool.description
        assert agent_text(spec.summary, registry.commands) in tool.description
        # other tools are named as this client must call them, never by registry name
        mentioned = set(re.findall(r"\b[a-z]+(?:-[a-z]+)*\.[a-z]+(?:-[a-z]+)*\b",
                                   tool.description))
        assert not mentioned & set(registry.commands), tool.name


def test_the_server_tells_agents_how_to_use_it(server: Server) -> None:
    async def instructions() -> str | None:
        async with connect(server.url, server.token(), "legacy") as client:
            return client.instructions

    text = run(instructions())
    assert text == INSTRUCTIONS
    assert "serpent_library_list_open" in text and "libraryId" in text
    assert "explicitly" in text


def test_libraries_are_only_ever_targeted_explicitly(server: Server, era: str,
                                                     tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            assert (await ok(client, "serpent_library_list_open"))["items"] == []
            assert await error_code(client, "serpent_asset_search") == "LIBRARY_REQUIRED"
            library = await create_library(client, tmp_path)
            listed = await ok(client, "serpent_library_list_open")
            assert [i["libraryId"] for i in listed["items"]] == [library]
            # an open library is still never a default
            assert await error_code(client, "serpent_asset_search") == "LIBRARY_REQUIRED"
            assert await error_code(client, "serpent_asset_search",
                                    {"libraryId": "lib_doesnotexist0"}) == "LIBRARY_NOT_FOUND"
            envelope = await call(client, "serpent_asset_search", {"libraryId": library})
            assert envelope["libraryId"] == library
            assert isinstance(envelope["libraryChangeSequence"], int)
            assert envelope["result"]["items"] == [] and envelope["result"]["total"] == 0

    run(scenario())


def test_import_from_explicit_paths_then_search(server: Server, era: str,
                                                tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 3, prefix="sky")

    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures],
                "tags": ["sky"], "idempotencyKey": "import-1"})
            assert imported["imported"] == 3
            found = await ok(client, "serpent_asset_search",
                             {"libraryId": library, "tags": ["sky"]})
            assert found["total"] == 3
            assert {a["name"] for a in found["items"]} == {p.stem for p in pictures} or {
                a["name"] for a in found["items"]} == {p.name for p in pictures}
            sequence = await ok(client, "serpent_library_change_sequence",
                                {"libraryId": library})
            assert sequence["changeSequence"] >= 1
            again = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures],
                "tags": ["sky"], "idempotencyKey": "import-1"})
            assert again == imported  # a retried key returns the first result

    run(scenario())


class EchoIn(Model):
    asset_ids: list[AssetId] = Field(min_length=1)


class EchoOut(Model):
    echoed: int


def _echo(library_id: str, args: dict[str, Any], meta: CallMeta) -> Future[dict[str, Any]]:
    done: Future[dict[str, Any]] = Future()
    done.set_result({"echoed": len(args["assetIds"])})
    return done


def test_plugin_tools_are_full_access_only_and_hidden_ones_are_unknown_tools(
        server: Server, era: str, tmp_path: Path) -> None:
    server.gateway.registry.add_plugin_commands("echo", [plugin_command(
        "echo", "count", input_model=EchoIn, output_model=EchoOut,
        summary="Count the given assets.", returns="echoed: how many.",
        example={"libraryId": "lib_01j9z3k4m5n6p7q8", "assetIds": ["ast_01j9z3k4m5n6p7q8"]},
        handler=_echo)])
    server.gateway.exposure.set_exposed("echo", True)
    tool = "serpent_plugin_echo_count"

    async def scenario() -> None:
        async with connect(server.url, server.token("Full", "full-access"), era) as full, \
                connect(server.url, server.token("Auto", "auto"), era) as auto:
            library = await create_library(full, tmp_path)
            args = {"libraryId": library, "assetIds": ["ast_01j9z3k4m5n6p7q8"]}
            assert tool in {t.name for t in (await full.list_tools()).tools}
            assert tool not in {t.name for t in (await auto.list_tools()).tools}
            assert (await ok(full, tool, args)) == {"echoed": 1}
            answers = []
            for name in (tool, "serpent_plugin_echo_nothing"):
                with pytest.raises(MCPError) as raised:
                    await auto.call_tool(name, args)
                answers.append((raised.value.code, raised.value.message.replace(name, "X"),
                                raised.value.data))
            hidden, unknown = answers
            # a protocol error (docs/contracts.md §3), identical apart from the name typed
            assert hidden == unknown == (-32602, "Unknown tool: X", None)
            # argument errors stay tool results
            bad = await call(full, tool, {"libraryId": library, "assetIds": ["nope"]})
            assert bad["error"]["code"] == "INVALID_ARGUMENT"

    try:
        run(scenario())
    finally:
        server.gateway.registry.remove_plugin("echo")


def test_the_search_result_has_a_grid_app_and_a_text_fallback(server: Server, era: str,
                                                              tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            meta = tools["serpent_asset_search"].meta or {}
            assert meta["ui"]["resourceUri"] == SEARCH_APP_URI
            resources = (await client.list_resources()).resources
            app = next(r for r in resources if str(r.uri) == SEARCH_APP_URI)
            assert app.mime_type == APP_MIME_TYPE
            page = (await client.read_resource(SEARCH_APP_URI)).contents[0]
            assert page.mime_type == APP_MIME_TYPE
            html = getattr(page, "text", "")
            assert html.startswith("<!doctype html>") and "ui/initialize" in html
            assert "serpent_asset_thumbnail" in html
            library = await create_library(client, tmp_path)
            result = await client.call_tool("serpent_asset_search", {"libraryId": library})
            texts = [c.text for c in result.content if c.type == "text"]
            assert len(texts) == 1 and '"total":0' in texts[0]  # readable without the app

    run(scenario())


def test_thumbnails_arrive_as_images_that_fit_the_budget(server: Server, era: str,
                                                         tmp_path: Path) -> None:
    picture = tmp_path / "big.png"
    Image.effect_noise((1400, 1000), 90).convert("RGB").save(picture)
    server.service.set_output_budget(64)

    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import",
                                {"libraryId": library, "sourcePaths": [str(picture)]})
            asset = imported["items"][0]["assetId"]
            for _ in range(100):  # previews are made in the background
                result = await client.call_tool("serpent_asset_thumbnail",
                                                {"libraryId": library, "assetId": asset,
                                                 "size": 1024})
                if not result.is_error:
                    break
                await asyncio.sleep(0.1)
            images = [c for c in result.content if c.type == "image"]
            assert len(images) == 1, result
            raw = base64.b64decode(images[0].data)
            assert len(result.model_dump_json()) <= 64 * 1024
            with Image.open(io.BytesIO(raw)) as shown:
                assert shown.size[0] > 0
            assert result.structured_content is not None
            assert "path" not in result.structured_content["result"]

    run(scenario())


@pytest.mark.parametrize("mode", ERAS)
def test_ui_notify_is_a_toast_only(server: Server, mode: str) -> None:
    from serpent_tk.automation.events import Toast

    toasts: list[Toast] = []
    unsubscribe = server.gateway.subscribe(
        lambda event: toasts.append(event) if isinstance(event, Toast) else None)

    async def scenario() -> dict[str, Any]:
        async with connect(server.url, server.token("Claude Desktop"), mode) as client:
            return await ok(client, "serpent_ui_notify", {"text": "Tagged 3 photos."})

    try:
        assert run(scenario()) == {"shown": False}  # no window here; it never waits
    finally:
        unsubscribe()
    assert [(t.text, t.actor_label) for t in toasts] == [
        ("Tagged 3 photos.", "Claude Desktop via MCP")]


def test_a_dangerous_tool_needs_the_challenge_back(server: Server, era: str,
                                                   tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 2)

    async def scenario() -> None:
        async with connect(server.url, server.token("Full", "full-access"), era) as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            ids = [item["assetId"] for item in imported["items"]]
            args = {"libraryId": library, "assetIds": ids}
            first = await call(client, "serpent_asset_delete_permanently", args)
            assert first["status"] == "confirmation_required", first
            assert first["riskReport"]["irreversible"] is True
            assert (await ok(client, "serpent_asset_search", {"libraryId": library}))[
                "total"] == 2  # nothing changed yet
            challenge = first["challenge"]["id"]
            done = await call(client, "serpent_asset_delete_permanently",
                              {**args, "confirmChallenge": challenge})
            assert done["status"] == "ok", done
            assert (await ok(client, "serpent_asset_search", {"libraryId": library}))[
                "total"] == 0
            assert await error_code(client, "serpent_asset_delete_permanently",
                                    {**args, "confirmChallenge": challenge}) \
                == "CHALLENGE_INVALID"  # a replay changes nothing

    run(scenario())


def test_a_damaged_library_is_said_and_repaired_over_mcp(server: Server, era: str,
                                                          tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 3)

    async def scenario() -> None:
        async with connect(server.url, server.token("Cursor"), era) as client:
            library = await create_library(client, tmp_path / "libs")
            await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            path = tmp_path / "libs" / "Refs.serpent"
            await ok(client, "serpent_library_close", {"libraryId": library})
            database = path / "library.sqlite"
            database.write_bytes(b"garbage!" * 16 + database.read_bytes()[128:])
            refused = await call(client, "serpent_library_open", {"path": str(path)})
            assert refused["error"]["code"] == "LIBRARY_DAMAGED"
            assert refused["error"]["hint"] == "library.repair"
            repaired = await ok(client, "serpent_library_repair", {"path": str(path)})
            assert repaired["assets"] == 3 and repaired["name"] == "Refs (recovered)"
            found = await ok(client, "serpent_asset_search",
                             {"libraryId": repaired["libraryId"]})
            assert found["total"] == 3

    run(scenario())


def test_bad_arguments_name_the_field(server: Server, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(server.url, server.token(), "legacy") as client:
            library = await create_library(client, tmp_path)
            envelope = await call(client, "serpent_asset_search",
                                  {"libraryId": library, "limit": 0})
            assert envelope["error"]["code"] == "INVALID_ARGUMENT"
            assert envelope["error"]["field"] == "limit"
            assert await error_code(client, "serpent_asset_search",
                                    {"libraryId": library, "colour": "red"}) \
                == "INVALID_ARGUMENT"

    run(scenario())
