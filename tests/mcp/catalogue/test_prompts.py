"""MCP prompts in both protocol eras: the jobs a person picks, their text naming the tools to
call (each call's arguments valid against that tool's schema, libraryId always explicit),
argument completion (open libraries, the library's tags), and only for credentials that see
every tool a prompt needs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError

from serpent_tk.automation.caller import Caller
from tests.mcp.conftest import Server, connect, make_images, run

PROMPTS = {"tag-untagged", "file-latest-import", "review-duplicates", "curate-collection"}
CALL = re.compile(r"\b(serpent_[a-z_]+) (?=\{)")
DOTTED = re.compile(r"\b[a-z]+(?:-[a-z]+)*\.[a-z]+(?:-[a-z]+)*\b")


def fixture_library(server: Server, tmp_path: Path) -> str:
    (tmp_path / "libs").mkdir()

    def submit(command: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = server.gateway.submit(command, args, Caller.ui()).result(60)
        assert answer["status"] == "ok", answer
        result: dict[str, Any] = answer["result"]
        return result

    library = str(submit("library.create", {"selectedParentPath": str(tmp_path / "libs"),
                                            "name": "Refs"})["libraryId"])
    pictures = make_images(tmp_path / "pictures", 3)
    ids = [i["assetId"] for i in submit("file.import", {
        "libraryId": library, "sourcePaths": [str(p) for p in pictures]})["items"]]
    submit("asset.tag", {"libraryId": library, "tagsByAsset": {
        ids[0]: ["sky", "skyline"], ids[1]: ["sky"], ids[2]: ["forest"]}})
    return library


def calls_in(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Every `serpent_tool {json}` call the text shows, its arguments decoded."""
    decoder = json.JSONDecoder()
    found = []
    for match in CALL.finditer(text):
        arguments, _ = decoder.raw_decode(text, match.end())
        found.append((match.group(1), arguments))
    return found


def test_prompts_name_the_tools_and_the_library_explicitly(server: Server, era: str,
                                                           tmp_path: Path) -> None:
    library = fixture_library(server, tmp_path)
    token = server.token("Cursor", toolset="essentials")

    async def scenario() -> None:
        async with connect(server.url, token, era) as client:
            assert client.server_capabilities.prompts is not None
            listed = (await client.list_prompts()).prompts
            assert {p.name for p in listed} == PROMPTS
            assert all(p.title and p.description and p.arguments for p in listed)
            tools = {t.name: t for t in (await client.list_tools()).tools}
            arguments = {"tag-untagged": {"library": "refs", "vocabulary": "sky, forest"},
                         "file-latest-import": {"library": library},
                         "review-duplicates": {},  # the only open library
                         "curate-collection": {"library": "Refs", "theme": "skies"}}
            for name, given in arguments.items():
                prompt = await client.get_prompt(name, given)
                assert len(prompt.messages) == 1 and prompt.messages[0].role == "user"
                content = prompt.messages[0].content
                assert isinstance(content, types.TextContent)
                text = content.text
                assert library in text and "explicitly" in text
                assert not {m for m in DOTTED.findall(text) if m in
                            server.gateway.registry.commands}, "tools named as MCP names"
                shown = calls_in(text)
                assert len(shown) >= 4, name
                for tool, args in shown:
                    assert tool in tools, (name, tool)  # the credential sees it
                    spec = server.gateway.registry.get(tool)
                    assert spec is not None
                    if spec.scope == "library":
                        assert args.get("libraryId") == library, (name, tool, args)
                    errors = [e.message for e in Draft202012Validator(
                        tools[tool].input_schema).iter_errors(args)]
                    assert not errors, (name, tool, args, errors)
            sheet = calls_in((await client.get_prompt("tag-untagged", {})).messages[0]
                             .content.text)  # type: ignore[union-attr]
            assert [t for t, _ in sheet][:4] == ["serpent_tag_list", "serpent_asset_search",
                                                 "serpent_asset_thumbnail", "serpent_asset_tag"]
            assert "tagsByAsset" in sheet[3][1]

    run(scenario())


def test_bad_prompt_requests_are_protocol_errors(server: Server, era: str,
                                                 tmp_path: Path) -> None:
    fixture_library(server, tmp_path)

    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            for name, given, words in (
                    ("no-such-prompt", {}, "Unknown prompt"),
                    ("curate-collection", {"library": "Refs"}, "theme"),
                    ("tag-untagged", {"library": "Elsewhere"}, "“Refs”")):
                with pytest.raises(MCPError) as caught:
                    await client.get_prompt(name, given)
                assert caught.value.error.code == types.INVALID_PARAMS
                assert words in caught.value.error.message

    run(scenario())


def test_arguments_complete_open_libraries_and_the_librarys_tags(server: Server, era: str,
                                                                 tmp_path: Path) -> None:
    library = fixture_library(server, tmp_path)

    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            ref = types.PromptReference(name="tag-untagged")
            libraries = await client.complete(ref, {"name": "library", "value": "re"})
            assert libraries.completion.values == ["Refs"]
            by_id = await client.complete(ref, {"name": "library", "value": "lib_"})
            assert by_id.completion.values == [library]
            tags = await client.complete(ref, {"name": "vocabulary", "value": "forest, sk"},
                                         {"library": "Refs"})
            assert tags.completion.values == ["sky", "skyline"]  # most used first
            nothing = await client.complete(ref, {"name": "max", "value": "1"})
            assert nothing.completion.values == []
            theme = await client.complete(types.PromptReference(name="curate-collection"),
                                          {"name": "theme", "value": "f"})
            assert theme.completion.values == ["forest"]  # the only open library's tags

    run(scenario())


def test_prompts_follow_what_the_credential_sees(server: Server, tmp_path: Path) -> None:
    fixture_library(server, tmp_path)

    async def scenario() -> None:
        async with connect(server.url, server.token("Viewer", "read-only"), "legacy") as viewer:
            assert (await viewer.list_prompts()).prompts == []  # they all change things
            with pytest.raises(MCPError) as caught:
                await viewer.get_prompt("tag-untagged", {})
            assert caught.value.error.code == types.INVALID_PARAMS
        server.credentials.set_mode("Viewer", "auto")
        async with connect(server.url, server.token("Viewer"), "auto") as helper:
            names = {p.name for p in (await helper.list_prompts()).prompts}
            assert names == PROMPTS

    run(scenario())
