"""MCP tasks driven by the official TypeScript SDK client (`@modelcontextprotocol/sdk` 1.32,
`client.experimental.tasks`: what VS Code and Copilot CLI use) over real HTTP, 2025-11-25:
an import of 2,000 files runs as a task, reports progress, and is cancelled mid-way.

The v2 line (`@modelcontextprotocol/client` 2.4, the newest on npm) has no tasks API in either
era, and the 2026-07-28 extension is in neither, so the 2026 era is driven by the Python SDK's
extension hook instead (test_tasks_2026.py)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.mcp.conftest import Server
from tests.mcp.tasks.rpc import as_person, make_pictures, new_library, wait_until, writes_held
from tests.mcp.tasks.test_tasks_2025 import COUNT, LONG_TOOLS
from tests.nodejs import node_executable, node_project
from tests.waiting import Deadline

DEADLINE_S = 120.0


class Driver:
    """tasks.mjs, running: what it printed so far, and its stdin."""

    def __init__(self, plan: dict[str, Any], tmp_path: Path) -> None:
        plan_file = tmp_path / "tasks-plan.json"
        plan_file.write_text(json.dumps(plan), encoding="utf-8")
        project = node_project("ts-client")
        self.process = subprocess.Popen(
            [str(node_executable()), str(project / "tasks.mjs"), str(plan_file)], cwd=project,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.errors: list[str] = []  # its stderr, read all along (a full pipe would stall it)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.error_reader = threading.Thread(target=self._read_errors, daemon=True)
        self.error_reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self.events.put(json.loads(line))
            except ValueError:  # cut short (node killed): the test fails on what is missing
                return

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        self.errors.extend(self.process.stderr)

    def wait_for(self, accept: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        deadline = Deadline(DEADLINE_S)
        while True:
            try:
                event = self.events.get(timeout=deadline.remaining())
            except queue.Empty:
                raise AssertionError(f"node never said {what}; it said {self.seen}; "
                                     f"stderr: {''.join(self.errors)[-2000:]}") from None
            self.seen.append(event)
            assert event["event"] != "fatal", event
            if accept(event):
                return event

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def finish(self) -> str:
        """Wait for node to exit (killed after the deadline); what it wrote to stderr."""
        try:
            self.process.wait(DEADLINE_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        self.reader.join(10)  # they read to the end of node's output, then stop
        self.error_reader.join(10)
        stderr = "".join(self.errors)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        return stderr


def test_the_typescript_sdk_runs_an_import_of_2000_files_as_a_task_and_cancels_it(
        server: Server, tmp_path: Path) -> None:
    library_id, library = new_library(server.gateway, tmp_path / "libraries")
    folder = make_pictures(tmp_path / "scans", COUNT)
    driver = Driver({"url": server.url, "token": server.token(), "name": "serpent_file_import",
                     "arguments": {"libraryId": library_id, "sourcePaths": [str(folder)]},
                     "ttl": 600_000}, tmp_path)
    try:
        tools = driver.wait_for(lambda e: e["event"] == "tools", "which tools are tasks")
        assert tools["protocolVersion"] == "2025-11-25"
        assert tools["serverTasks"]["requests"] == {"tools": {"call": {}}}
        assert set(tools["taskTools"]) == LONG_TOOLS
        created = driver.wait_for(lambda e: e["event"] == "created", "the task")["task"]
        assert created["status"] == "working"
        moving = driver.wait_for(lambda e: e["event"] == "progress" and e["progress"] >= 1,
                                 "progress")
        assert moving["total"] == COUNT
        with writes_held(library) as release:  # it cannot finish before it is cancelled
            driver.send("cancel")
            cancelled = driver.wait_for(lambda e: e["event"] == "cancelled", "the cancel")
            assert cancelled["task"]["status"] == "cancelled", cancelled
            wait_until(lambda: next(t for t in as_person(server.gateway, "task.list", {
                "libraryId": library_id})["items"] if t["kind"] == "import")[
                "cancelRequested"], "the Serpent task asked to stop (task.cancel)")
            release()
        end = driver.wait_for(lambda e: e["event"] == "end", "the stream's end")
        assert "was cancelled" in end["error"]["message"], end
        statuses = [e["task"]["status"] for e in driver.seen if e["event"] == "status"]
        assert statuses[0] == "working" and statuses[-1] == "cancelled", statuses
        result = driver.wait_for(lambda e: e["event"] == "result", "the result")
        assert "counts" in result, result
        imported = result["counts"]
        assert imported["cancelled"] is True and 0 < imported["imported"] < COUNT
        assert result["meta"]["io.modelcontextprotocol/related-task"] == {
            "taskId": created["taskId"]}
        listed = driver.wait_for(lambda e: e["event"] == "report", "the task list")["listed"]
        assert listed == [created["taskId"]]
    finally:
        stderr = driver.finish()
    assert driver.process.returncode == 0, stderr[-3000:]
