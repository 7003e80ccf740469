"""Clients that start, use and abandon a session (no DELETE) any number of times are never
refused: Claude Code, Gemini CLI and the TypeScript SDK in the 2025 era leave a session behind
on every start. 40 starts in a row on one credential, then a real call, with the official
TypeScript SDK (v1 and v2, closing its client or keeping it open with its GET stream) and the
Python SDK.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from serpent_tk.mcp.http.sessions import SESSIONS_PER_CREDENTIAL
from tests.mcp.conftest import Server, ok, run
from tests.nodejs import node_executable, node_project

STARTS = 40
NODE_DEADLINE_S = 300.0
REAL_CALL = {"name": "serpent_library_list_open", "arguments": {}}


def starts(plan: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """Run starts.mjs with `plan`; its report."""
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    project = node_project("ts-client")
    done = subprocess.run([str(node_executable()), str(project / "starts.mjs"), str(plan_file)],
                          cwd=project, capture_output=True, text=True, timeout=NODE_DEADLINE_S)
    lines = done.stdout.strip().splitlines()
    assert lines, f"node printed nothing (exit {done.returncode}):\n{done.stderr[-3000:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    assert "fatal" not in report, f"{report['fatal']}\n{done.stderr[-3000:]}"
    return report


@pytest.mark.parametrize(("sdk", "keep_open"), [("v1", False), ("v1", True), ("v2", False)],
                         ids=["v1-closed", "v1-streams-left-open", "v2-legacy-closed"])
def test_forty_typescript_client_starts_without_delete_are_never_refused(
        server: Server, tmp_path: Path, sdk: str, keep_open: bool) -> None:
    token = server.token("Claude Code", toolset="essentials")
    report = starts({"sdk": sdk, "url": server.url, "token": token, "starts": STARTS,
                     "keepOpen": keep_open, "call": REAL_CALL}, tmp_path)
    refused = [(n, s) for n, s in enumerate(report["starts"]) if not s["ok"]]
    assert not refused, refused[:3]
    assert len({s["sessionId"] for s in report["starts"]}) == STARTS  # a new session each
    assert all(s["tools"] > 10 for s in report["starts"])
    assert report["final"]["ok"], report["final"]
    assert json.loads(report["final"]["text"])["result"]["items"] == []


def test_forty_python_client_starts_without_delete_are_never_refused(server: Server) -> None:
    token = server.token("Scripts")

    async def scenario() -> list[dict[str, Any]]:
        for _ in range(STARTS):
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                      timeout=httpx2.Timeout(30, read=60))
            transport = streamable_http_client(server.url, http_client=http,
                                               terminate_on_close=False)  # no DELETE
            async with http, Client(transport, mode="legacy") as client:
                assert len((await client.list_tools()).tools) > 10
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                  timeout=httpx2.Timeout(30, read=60))
        async with http, Client(streamable_http_client(server.url, http_client=http),
                                mode="legacy") as client:
            items: list[dict[str, Any]] = (await ok(client, "serpent_library_list_open"))[
                "items"]
            return items

    assert run(scenario(), timeout=240) == []
    assert STARTS > SESSIONS_PER_CREDENTIAL  # the bound was really passed, many times over
