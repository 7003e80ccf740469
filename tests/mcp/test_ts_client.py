"""Serpent driven by the official TypeScript MCP SDK (what Claude Desktop, VS Code, Cursor and
Gemini embed), over HTTP with the bearer header and through `serpent-tk mcp-bridge` started
exactly as the Claude Desktop config starts it.

`@modelcontextprotocol/sdk` 1.32 speaks only the handshake era (2025-11-25 at most);
`@modelcontextprotocol/client` 2.4 (the SDK's v2 line) also speaks 2026-07-28. The node
script (tests/node/ts-client/drive.mjs) reports what the client saw; the checks are here. The
SDK validates structured content against each tool's outputSchema even on errors, so an error
envelope the schema does not describe comes back as a thrown -32602 instead of the error.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from serpent_tk.automation.caller import Caller
from serpent_tk.mcp.client_configs import server_entry
from serpent_tk.mcp.tools.resources import ASSET_TEMPLATE
from tests.mcp.conftest import Server
from tests.nodejs import node_executable, node_project
from tests.waiting import wait_until

NODE_DEADLINE_S = 120.0
NOTIFY_TIMEOUT_MS = 20_000
MISSING_ASSET = "ast_01j9z3k4m5n6p7q8r9s0t1v2w3"

# (SDK, version negotiation, transport); v1 has only the handshake era
CLIENTS = [
    ("v1", "legacy", "http"),
    ("v1", "legacy", "bridge"),
    ("v2", "auto", "http"),
    ("v2", "auto", "bridge"),
    ("v2", "legacy", "http"),
]
ERROR_CASES = {  # label -> the code Serpent answers with
    "library_not_found": "LIBRARY_NOT_FOUND",
    "library_required": "LIBRARY_REQUIRED",
    "invalid_argument": "INVALID_ARGUMENT",
    "not_found": "NOT_FOUND",
    "version_conflict": "VERSION_CONFLICT",
}


def submit(server: Server, name: str, args: dict[str, Any]) -> dict[str, Any]:
    answer = server.gateway.submit(name, args, Caller.ui()).result(60)
    assert answer["status"] == "ok", answer
    result: dict[str, Any] = answer["result"]
    return result


def prepared_library(server: Server, tmp_path: Path) -> dict[str, Any]:
    """A library with one picture whose preview is ready (so a thumbnail call is an image)."""
    picture = tmp_path / "sky.png"
    Image.effect_noise((320, 240), 60).convert("RGB").save(picture)
    (tmp_path / "libs").mkdir()
    library = submit(server, "library.create", {"selectedParentPath": str(tmp_path / "libs"),
                                                "name": "Refs"})["libraryId"]
    asset = submit(server, "file.import", {"libraryId": library,
                                           "sourcePaths": [str(picture)]})["items"][0]["assetId"]
    # previews are made in the background: poll until this one is
    wait_until(lambda: server.gateway.submit("asset.thumbnail", {
        "libraryId": library, "assetId": asset}, Caller.ui()).result(60)["status"] == "ok",
        "the preview to be made", 60, interval=0.05)
    version = submit(server, "asset.get", {"libraryId": library,
                                           "assetIds": [asset]})["items"][0]["version"]
    return {"libraryId": library, "assetId": asset, "version": version}


def calls(setup: dict[str, Any]) -> list[dict[str, Any]]:
    library, asset = setup["libraryId"], setup["assetId"]
    return [
        {"label": "list_open", "name": "serpent_library_list_open", "arguments": {}},
        {"label": "library_not_found", "name": "serpent_library_info",
         "arguments": {"libraryId": "lib_doesnotexist0"}},
        {"label": "library_required", "name": "serpent_asset_search", "arguments": {}},
        {"label": "invalid_argument", "name": "serpent_asset_search",
         "arguments": {"libraryId": library, "limit": 0}},
        {"label": "not_found", "name": "serpent_asset_update",
         "arguments": {"libraryId": library, "assetId": MISSING_ASSET, "name": "Sky"}},
        {"label": "version_conflict", "name": "serpent_asset_update",
         "arguments": {"libraryId": library, "assetId": asset, "name": "Sky",
                       "expectedVersion": setup["version"] + 7}},
        {"label": "confirmation", "name": "serpent_asset_delete_permanently",
         "arguments": {"libraryId": library, "assetIds": [asset]}},
        {"label": "thumbnail", "name": "serpent_asset_thumbnail",
         "arguments": {"libraryId": library, "assetId": asset}},
    ]


def drive(plan: dict[str, Any], tmp_path: Path,
          timeout: float = NODE_DEADLINE_S) -> dict[str, Any]:
    """Run drive.mjs with `plan`; its report."""
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    project = node_project("ts-client")
    done = subprocess.run([str(node_executable()), str(project / "drive.mjs"), str(plan_file)],
                          cwd=project, capture_output=True, text=True, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    assert lines, f"node printed nothing (exit {done.returncode}):\n{done.stderr[-3000:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    assert "fatal" not in report, f"{report['fatal']}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, done.stderr[-3000:]
    return report


def transport_for(server: Server, transport: str, name: str = "Claude Desktop"
                  ) -> dict[str, Any]:
    token = server.token(name)
    if transport == "http":
        return {"kind": "http", "url": server.url, "token": token}
    entry = server_entry("claude-desktop", port=server.port, token=token)
    # exactly what the Claude Desktop config snippet starts
    return {"kind": "stdio", "command": entry["command"], "args": entry["args"],
            "env": entry["env"]}


@pytest.mark.parametrize(("sdk", "era", "transport"), CLIENTS,
                         ids=[f"{s}-{e}-{t}" for s, e, t in CLIENTS])
def test_the_typescript_sdk_client_reads_every_kind_of_answer(
        server: Server, tmp_path: Path, sdk: str, era: str, transport: str) -> None:
    setup = prepared_library(server, tmp_path)
    report = drive({"sdk": sdk, "era": era, "transport": transport_for(server, transport),
                    "libraryId": setup["libraryId"], "calls": calls(setup),
                    "notifyTimeoutMs": NOTIFY_TIMEOUT_MS}, tmp_path)
    expected_era = "2026-07-28" if era == "auto" else "2025-11-25"
    if report["protocolVersion"] is not None:  # the v1 stdio transport does not say
        assert report["protocolVersion"] == expected_era, report["protocolVersion"]
    expected_tools = {spec.tool_name for spec in server.gateway.registry.tools("auto")
                      if not spec.internal}  # Serpent's internal commands are never tools
    assert set(report["tools"]) == expected_tools
    problems = [*answered(report["calls"], setup["libraryId"]),
                *notified(report["notification"], setup["libraryId"], expected_era)]
    assert not problems, "\n".join(problems)  # every case is checked, all failures listed


def answered(answers: dict[str, Any], library: str) -> list[str]:
    """What is wrong with the tool answers the client saw (empty: nothing)."""
    problems = []

    def expect(ok: bool, label: str, what: str) -> None:
        if not ok:
            problems.append(f"{label}: {what}: {json.dumps(answers[label])[:400]}")

    listed = answers["list_open"]
    expect(not listed["threw"] and not listed["isError"], "list_open", "not a success")
    if not listed["threw"]:
        items = listed["structured"]["result"]["items"]
        expect([i["libraryId"] for i in items] == [library], "list_open", "not the library")
    for label, code in ERROR_CASES.items():
        answer = answers[label]
        expect(not answer["threw"], label, "the SDK threw instead of returning the error")
        if answer["threw"]:
            continue
        error = (answer["structured"] or {}).get("error", {})
        expect(answer["isError"] and error.get("code") == code, label, f"not an {code} error")
        expect(code in answer["text"] and error.get("message", "?") in answer["text"], label,
               "the text does not carry the code and the message")
    confirmation = answers["confirmation"]
    expect(not confirmation["threw"] and not confirmation["isError"], "confirmation",
           "not answered")
    if not confirmation["threw"]:
        structured = confirmation["structured"]
        expect(structured["status"] == "confirmation_required"
               and structured["challenge"]["id"] in confirmation["text"], "confirmation",
               "no challenge")
    thumbnail = answers["thumbnail"]
    images = [c for c in thumbnail.get("content", []) if c["type"] == "image"]
    expect(not thumbnail["threw"] and not thumbnail["isError"] and len(images) == 1
           and images[0]["mimeType"].startswith("image/") and images[0]["bytes"] > 100,
           "thumbnail", "not one image")
    return problems


def notified(note: dict[str, Any], library: str, era: str) -> list[str]:
    """What is wrong with the library-change notification the client got (empty: nothing)."""
    change = note.get("change") or {}
    if change.get("threw") or (change.get("structured") or {}).get("status") != "ok":
        return [f"notification: the change itself failed: {json.dumps(note)[:400]}"]
    if era == "2026-07-28":
        ok = note["method"] == "notifications/resources/updated" and \
            note["params"]["uri"] == f"serpent://libraries/{library}/changes"
    else:
        ok = note["method"] == "notifications/message" and \
            note["params"]["logger"] == "serpent.library" and \
            note["params"]["data"]["libraryId"] == library and \
            "folder" in note["params"]["data"]["kinds"]
    return [] if ok else [f"notification: not the library change: {json.dumps(note)[:400]}"]


@pytest.mark.parametrize(("sdk", "era", "transport"), CLIENTS[:4],
                         ids=[f"{s}-{e}-{t}" for s, e, t in CLIENTS[:4]])
def test_an_unknown_tool_is_a_protocol_error_for_the_typescript_sdk_client(
        server: Server, tmp_path: Path, sdk: str, era: str, transport: str) -> None:
    report = drive({"sdk": sdk, "era": era, "transport": transport_for(server, transport),
                    "libraryId": None, "notify": False, "calls": [
                        {"label": "unknown", "name": "serpent_no_such_tool", "arguments": {}}]},
                   tmp_path)
    unknown = report["calls"]["unknown"]
    assert unknown["threw"] and unknown["code"] == -32602, unknown  # JSON-RPC, not a result
    assert "serpent_no_such_tool" in unknown["message"]


PROMPT_CLIENTS = [CLIENTS[0], CLIENTS[2], CLIENTS[3], CLIENTS[4]]  # both SDKs and eras, bridge


@pytest.mark.parametrize(("sdk", "era", "transport"), PROMPT_CLIENTS,
                         ids=[f"{s}-{e}-{t}" for s, e, t in PROMPT_CLIENTS])
def test_the_typescript_sdk_client_uses_prompts_and_asset_resources(
        server: Server, tmp_path: Path, sdk: str, era: str, transport: str) -> None:
    setup = prepared_library(server, tmp_path)
    library, asset = setup["libraryId"], setup["assetId"]
    submit(server, "asset.tag", {"libraryId": library, "assetIds": [asset], "tags": ["sky"]})
    server.token("Cursor", toolset="essentials")  # what a new credential sees
    uri = f"serpent://libraries/{library}/assets/{asset}"
    prompt_ref = {"type": "ref/prompt", "name": "tag-untagged"}
    report = drive({"sdk": sdk, "era": era, "libraryId": library, "notify": False,
                    "transport": transport_for(server, transport, "Cursor"), "calls": [],
                    "prompts": [
                        {"label": "tag", "name": "tag-untagged", "arguments": {"library": "Refs"}},
                        {"label": "curate", "name": "curate-collection",
                         "arguments": {"library": "refs", "theme": "skies"}},
                        {"label": "unknown", "name": "no-such-prompt", "arguments": {}}],
                    "completions": [
                        {"label": "library", "ref": prompt_ref,
                         "argument": {"name": "library", "value": "Re"}},
                        {"label": "tags", "ref": prompt_ref,
                         "argument": {"name": "vocabulary", "value": "sk"},
                         "context": {"library": "Refs"}},
                        {"label": "template", "ref": {"type": "ref/resource",
                                                      "uri": ASSET_TEMPLATE},
                         "argument": {"name": "libraryId", "value": "lib_"}}],
                    "resources": [
                        {"label": "asset", "uri": uri}, {"label": "preview",
                                                         "uri": uri + "/preview"},
                        {"label": "missing", "uri": uri[:-4] + "zzzz"}]}, tmp_path)
    prompts = {p["name"]: p for p in report["promptList"]["prompts"]}
    assert set(prompts) == {"tag-untagged", "file-latest-import", "review-duplicates",
                            "curate-collection"}
    assert {"name": "theme", "required": True} in prompts["curate-collection"]["arguments"]
    for label in ("tag", "curate"):
        got = report["prompts"][label]
        assert not got["threw"], got
        text = got["messages"][0]["text"]
        assert got["messages"][0]["role"] == "user" and library in text
        assert "serpent_asset_thumbnail" in text and "serpent_asset_search" in text
    assert report["prompts"]["unknown"]["threw"]
    assert report["prompts"]["unknown"]["code"] == -32602
    completions = report["completions"]
    assert completions["library"]["values"] == ["Refs"]
    assert completions["tags"]["values"] == ["sky"]
    assert completions["template"]["values"] == [library]
    templates = {t["uriTemplate"] for t in report["templates"]["templates"]}
    assert {ASSET_TEMPLATE, ASSET_TEMPLATE + "/preview"} <= templates
    meta = report["resources"]["asset"]["contents"][0]
    assert meta["mimeType"] == "application/json" and json.loads(meta["text"])["id"] == asset
    preview = report["resources"]["preview"]["contents"][0]
    assert preview["mimeType"].startswith("image/") and preview["bytes"] > 100
    missing = report["resources"]["missing"]
    assert missing["threw"] and missing["code"] == -32602, missing  # SEP-2164, every era
    assert "Resource not found" in missing["message"]
