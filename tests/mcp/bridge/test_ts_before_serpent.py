"""Claude Desktop opened first, Serpent second, with the official TypeScript MCP SDK's stdio
client (what Claude Desktop embeds) through `serpent-tk mcp-bridge` started exactly as the
Claude Desktop config starts it: before Serpent runs the client connects, lists the
credential's tools and gets a tool error that says to start Serpent (valid against the tool's
outputSchema, which this SDK checks even on errors); then `serpent-tk serve --port 0` starts
and the same session's next call is a real answer."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.client_configs import server_entry
from serpent_tk.paths import app_dirs
from tests.mcp.serve_process import serving
from tests.nodejs import node_executable, node_project

NODE_DEADLINE_S = 120
ESSENTIALS = 25  # the README's count of the essentials toolset


def report_line(node: subprocess.Popen[str]) -> dict[str, Any]:
    assert node.stdout is not None
    line = node.stdout.readline()
    assert line, f"node ended (exit {node.wait(30)}):\n{node.stderr.read()[-3000:]}"  # type: ignore[union-attr]
    report: dict[str, Any] = json.loads(line)
    assert "fatal" not in report, report
    return report


@pytest.mark.parametrize(("sdk", "era"), [("v1", "legacy"), ("v2", "auto")])
def test_the_typescript_client_opened_before_serpent_gets_real_answers_after(
        tmp_path: Path, sdk: str, era: str) -> None:
    store = CredentialStore(app_dirs().ensure().credentials_file)
    token = store.create("Claude Desktop", "auto", "essentials")[1]
    entry = server_entry("claude-desktop", port=9, token=token)
    plan = {"sdk": sdk, "era": era, "call": {"name": "serpent_library_list_open",
                                             "arguments": {}},
            "transport": {"kind": "stdio", "command": entry["command"], "args": entry["args"],
                          "env": entry["env"]}}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    project = node_project("ts-client")
    with subprocess.Popen([str(node_executable()), str(project / "before-serpent.mjs"),
                           str(plan_file)], cwd=project, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as node:
        try:
            before = report_line(node)
            assert before["protocolVersion"] in (None, "2025-11-25" if era == "legacy"
                                                 else "2026-07-28")
            assert len(before["tools"]) == ESSENTIALS
            assert "serpent_library_list_open" in before["tools"]
            offline = before["call"]
            assert not offline["threw"], offline  # the SDK accepted it against outputSchema
            assert offline["isError"] and "Open the Serpent app" in offline["text"]
            assert offline["structured"]["error"]["code"] == "SERPENT_NOT_RUNNING"
            with serving():
                assert node.stdin is not None
                node.stdin.write("Serpent runs\n")
                node.stdin.flush()
                after = report_line(node)
            assert node.wait(NODE_DEADLINE_S) == 0
        finally:
            if node.poll() is None:
                node.kill()
    online = after["call"]
    assert not online["threw"] and not online["isError"], online
    assert [i["name"] for i in online["structured"]["result"]["items"]] == ["My Library"]
    assert sorted(after["tools"]) == sorted(before["tools"])
    assert after["listChanged"] == 0  # Serpent lists what the bridge listed
