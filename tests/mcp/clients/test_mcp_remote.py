"""`mcp-remote` (locked in tests/node/mcp-remote), the stdio → HTTP proxy many stdio-only setups
use instead of Serpent's own bridge, driven by the official TypeScript SDK's stdio client
(tests/node/ts-client/drive.mjs, the same checks as test_ts_client.py): connect with the bearer
header (`--header "Authorization:${SERPENT_AUTH}"`, its documented way), Serpent's tools, every
kind of answer (results, the error codes, a confirmation, an image), prompts and resources, and
40 starts in a row before a real call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.mcp.clients.conftest import RUN_S, STARTS, STARTS_TIMEOUT, Stopwatch, client_env
from tests.mcp.conftest import Server
from tests.mcp.test_ts_client import answered, calls, drive
from tests.nodejs import node_executable, node_project

PROXY = Path("node_modules") / "mcp-remote" / "dist" / "proxy.js"


def through_mcp_remote(server: Server, tmp_path: Path, name: str = "mcp-remote",
                       toolset: str = "everything") -> dict[str, Any]:
    """drive.mjs's stdio transport: mcp-remote with its own home folder (where it would keep
    OAuth state), speaking only Streamable HTTP to Serpent."""
    token = server.token(name, toolset=toolset)
    env = client_env(tmp_path / "mcp-remote-home", {"SERPENT_AUTH": f"Bearer {token}"})
    return {"kind": "stdio", "command": str(node_executable()),
            "args": [str(node_project("mcp-remote") / PROXY), server.url,
                     "--header", "Authorization:${SERPENT_AUTH}", "--transport", "http-only"],
            "env": env}


def test_mcp_remote_passes_every_kind_of_answer(server: Server, tmp_path: Path,
                                                library: dict[str, Any]) -> None:
    library_id = library["libraryId"]
    report = drive({"sdk": "v1", "era": "legacy", "libraryId": library_id, "notify": False,
                    "transport": through_mcp_remote(server, tmp_path),
                    "calls": calls(library),
                    "prompts": [{"label": "tag", "name": "tag-untagged",
                                 "arguments": {"library": "Refs"}}],
                    "resources": [{"label": "asset", "uri": f"serpent://libraries/{library_id}"
                                                            f"/assets/{library['assetId']}"}]},
                   tmp_path)
    assert set(report["tools"]) == {spec.tool_name for spec in server.gateway.registry.tools(
        "auto") if not spec.internal}  # Serpent's internal commands are never tools
    problems = answered(report["calls"], library_id)
    assert not problems, "\n".join(problems)
    tag = report["prompts"]["tag"]
    assert not tag["threw"] and library_id in tag["messages"][0]["text"]
    asset = report["resources"]["asset"]
    assert not asset["threw"] and library["assetId"] in asset["contents"][0]["text"]


def test_mcp_remote_shows_an_essentials_credential_its_toolset(server: Server,
                                                               tmp_path: Path) -> None:
    report = drive({"sdk": "v1", "era": "legacy", "libraryId": None, "notify": False,
                    "calls": [], "transport": through_mcp_remote(
                        server, tmp_path, "mcp-remote essentials", "essentials")}, tmp_path)
    assert set(report["tools"]) == {
        spec.tool_name for spec in server.service.catalogue.specs("auto", "essentials")}


@STARTS_TIMEOUT
def test_forty_mcp_remote_starts_are_never_locked_out(server: Server, tmp_path: Path,
                                                      library: dict[str, Any]) -> None:
    """Every mcp-remote start leaves two sessions behind (its own first connection, then the
    client's), none ended: this fails unless Serpent reclaims the credential's idle ones."""
    watch = Stopwatch("mcp-remote starts")
    report = drive({"sdk": "v1", "era": "legacy", "libraryId": library["libraryId"],
                    "notify": False, "starts": STARTS,
                    "transport": through_mcp_remote(server, tmp_path),
                    "calls": [{"label": "list_open", "name": "serpent_library_list_open",
                               "arguments": {}}]}, tmp_path, timeout=STARTS * RUN_S)
    watch.report(STARTS + 1)
    assert report["starts"] == {"connected": STARTS, "failure": None}
    listed = report["calls"]["list_open"]
    assert not listed["threw"] and not listed["isError"], listed
    assert listed["structured"]["result"]["items"][0]["libraryId"] == library["libraryId"]
