"""Bad and huge input stays a tool result inside the output budget: arguments nested far too
deep, huge strings in every argument of every tool (no error answer echoes more than a short
excerpt), a cursor sent with other arguments than it was made for, malformed ids in resource
URIs. Real server, real HTTP, the SDK's own client (and raw HTTP where the client would refuse).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from serpent_tk.mcp.tools.budget import Budget
from tests.mcp.conftest import Server, connect, create_library, make_images, ok, run

RUN = "ab" * 1_500  # 3,000 characters: long, and an echo of it still fits the budget
ECHO = "ab" * 60  # 120 characters of it: more than a short excerpt
BUDGET = Budget.from_kib(128).total_bytes


def nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


def nested_text(depth: int) -> str:
    """JSON of `depth` nested arrays (json.dumps cannot write that deep)."""
    return "[" * depth + '"deep"' + "]" * depth


def huge_value(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "array":
        return [RUN]
    if kind == "object":
        return {RUN: RUN}
    return RUN


async def answer_text(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None, (tool, result)
    return "".join(c.text for c in result.content if c.type == "text")


def test_no_error_answer_echoes_more_than_an_excerpt_of_any_argument(
        server: Server, tmp_path: Path) -> None:
    token = server.token("Huge", "full-access")

    async def scenario() -> list[str]:
        problems: list[str] = []
        async with connect(server.url, token) as client:
            library = await create_library(client, tmp_path / "libraries")
            tools = (await client.list_tools()).tools
            for tool in tools:
                properties = tool.input_schema.get("properties", {})
                base = {"libraryId": library} if "libraryId" in properties else {}
                cases = [{**base, RUN: 1}]  # an unknown argument with a huge name
                cases += [{**base, name: huge_value(schema)}
                          for name, schema in properties.items()]
                for args in cases:
                    text = await answer_text(client, tool.name, args)
                    envelope = json.loads(text)
                    if envelope["status"] != "error":
                        continue
                    if ECHO in text or len(text) > BUDGET:
                        shown = {k[:20]: str(v)[:20] for k, v in args.items()}
                        problems.append(f"{tool.name}({shown}): {len(text)} characters, "
                                        f"{text[:300]}")
        return problems

    problems = run(scenario(), timeout=600)
    assert not problems, "\n".join(problems[:20])


def test_a_huge_library_id_is_never_echoed(server: Server) -> None:
    token = server.token()
    huge = "lib_" + "x" * (1024 * 1024)

    async def scenario() -> list[str]:
        async with connect(server.url, token) as client:
            return [await answer_text(client, "serpent_asset_get", {
                        "libraryId": huge, "assetIds": ["ast_0123456789ab"]}),
                    await answer_text(client, "serpent_asset_get", {
                        "libraryId": huge, "cursor": "cut:0123456789abcdef:3"}),
                    await answer_text(client, "serpent_library_info", {"libraryId": huge})]

    for text in run(scenario()):
        envelope = json.loads(text)
        assert envelope["status"] == "error", envelope
        assert len(text) < 2000 and "x" * 100 not in text, text[:300]


def test_arguments_nested_far_too_deep_are_an_invalid_argument_naming_the_limit(
        server: Server) -> None:
    token = server.token()
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json",
               "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28"}

    def body(depth: int) -> str:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "deep", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}
        return ('{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": '
                '"serpent_asset_search", "arguments": {"libraryId": "lib_0123456789ab", '
                f'"tags": {nested_text(depth)}}}, "_meta": {json.dumps(meta)}}}}}')

    async def scenario() -> list[dict[str, Any]]:
        answers = []
        async with httpx2.AsyncClient(timeout=30) as http:
            for depth in (40, 200, 5000):
                answer = await http.post(server.url, headers={
                    **headers, "mcp-method": "tools/call",
                    "mcp-name": "serpent_asset_search"}, content=body(depth))
                assert answer.status_code == 200, (depth, answer.text[:300])
                answers.append(answer.json())
        return answers

    for reply in run(scenario()):
        assert "result" in reply, reply  # a tool result, not a JSON-RPC error
        envelope = reply["result"]["structuredContent"]
        assert reply["result"]["isError"] and envelope["error"]["code"] == "INVALID_ARGUMENT"
        assert envelope["error"]["field"] == "tags"
        assert "nested more than 32 levels deep" in envelope["error"]["message"]

    async def handshake() -> dict[str, Any]:
        legacy = {**headers, "mcp-protocol-version": "2025-11-25"}
        async with httpx2.AsyncClient(timeout=30) as http:
            opened = await http.post(server.url, headers=legacy, content=json.dumps({
                "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "deep", "version": "1"}}}))
            legacy["mcp-session-id"] = opened.headers["mcp-session-id"]
            await http.post(server.url, headers=legacy, content=json.dumps({
                "jsonrpc": "2.0", "method": "notifications/initialized"}))
            answer = await http.post(server.url, headers=legacy, content=(
                '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": '
                '"serpent_asset_search", "arguments": {"libraryId": "lib_0123456789ab", '
                f'"tags": {nested_text(300)}}}}}}}'))
            assert answer.status_code == 200, answer.text[:300]
            data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
            reply: dict[str, Any] = json.loads([d for d in data if d.strip()][-1])
            return reply

    reply = run(handshake())
    assert reply["result"]["isError"], reply
    assert "nested more than 32 levels deep" in reply["result"]["structuredContent"][
        "error"]["message"]


def test_a_cursor_with_other_arguments_than_its_own_is_refused(
        server: Server, tmp_path: Path) -> None:
    """An import's continuation cursor sent with new files must not answer the old import;
    a search's cursor sent with another filter must not page the old search."""
    token = server.token()
    server.service.set_output_budget(16)  # the smallest: 60 imported files are cut
    first = [str(p) for p in make_images(tmp_path / "first", 60)]
    second = [str(p) for p in make_images(tmp_path / "second", 3, prefix="new", size=50)]
    tag = ["t" * 100]

    async def scenario() -> None:
        async with connect(server.url, token) as client:
            library = await create_library(client, tmp_path / "libraries")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": first, "tags": tag})
            cursor = imported.get("nextCursor")
            assert cursor, "the import's answer was not cut: make it larger"
            other = await client.call_tool("serpent_file_import", {
                "libraryId": library, "sourcePaths": second, "cursor": cursor})
            refused = other.structured_content
            assert refused["status"] == "error" and refused["error"]["field"] == "cursor"
            assert refused["error"]["code"] == "INVALID_ARGUMENT"
            assert "other arguments" in refused["error"]["message"]
            same = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": first, "tags": tag, "cursor": cursor})
            assert same["items"] and same["items"][0]["sourcePath"] in first
            fresh = await ok(client, "serpent_file_import", {"libraryId": library,
                                                             "sourcePaths": second})
            assert fresh["imported"] == 3
            page = await ok(client, "serpent_asset_search", {"libraryId": library,
                                                             "limit": 5})
            wrong = await client.call_tool("serpent_asset_search", {
                "libraryId": library, "limit": 5, "tags": ["x"], "cursor": page["nextCursor"]})
            assert wrong.structured_content["error"]["field"] == "cursor"
            more = await ok(client, "serpent_asset_search", {
                "libraryId": library, "limit": 7, "cursor": page["nextCursor"]})
            assert len(more["items"]) == 7  # the limit may change from page to page

    run(scenario(), timeout=240)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_a_resource_uri_with_a_malformed_id_is_plainly_not_found(
        server: Server, tmp_path: Path, era: str) -> None:
    token = server.token()

    async def scenario() -> list[str]:
        messages = []
        async with connect(server.url, token, era) as client:
            library = await create_library(client, tmp_path / "libraries")
            for uri in (f"serpent://libraries/{library}/assets/not-an-id",
                        f"serpent://libraries/{library}/assets/ast_{'z' * 3000}/preview",
                        "serpent://libraries/lib%20bad/assets/ast_0123456789ab",
                        f"serpent://libraries/{library}/assets/ast_0123456789ab"):
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(uri)
                assert caught.value.error.code == -32602
                messages.append(caught.value.error.message)
        return messages

    for message in run(scenario()):
        assert message.startswith("Resource not found: "), message
        assert "no such asset" in message or "no such library" in message, message
        assert "should match" not in message and "assetIds" not in message, message
        assert "INVALID_ARGUMENT" not in message and len(message) < 400, message
