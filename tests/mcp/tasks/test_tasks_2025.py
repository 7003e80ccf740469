"""MCP tasks as 2025-11-25 clients ask for them (experimental tasks: `task` on tools/call,
`tasks/get|result|list|cancel`, progress and status on the GET stream), over real HTTP with a
raw JSON-RPC client (the Python SDK 2.3 cannot send `task`, nor read a CreateTaskResult from
tools/call). The import runs through the real worker; the Serpent task the window shows is
asked for the way the window asks."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.conftest import Server
from tests.mcp.tasks.rpc import (
    Rpc,
    as_person,
    make_pictures,
    new_library,
    wait_until,
    writes_held,
)

COUNT = 2000
LONG_TOOLS = {"serpent_file_import", "serpent_analysis_run", "serpent_library_export",
              "serpent_library_import_exported", "serpent_library_move_to_studio"}


def test_an_import_of_2000_files_runs_as_a_task_with_progress_and_can_be_cancelled(
        server: Server, tmp_path: Path) -> None:
    library_id, library = new_library(server.gateway, tmp_path / "libraries")
    folder = make_pictures(tmp_path / "scans", COUNT)
    rpc, other = Rpc(server.url, server.token("Claude Desktop")), \
        Rpc(server.url, server.token("Cursor"))
    try:
        capabilities = rpc.open()["capabilities"]
        other.open()
        assert capabilities["tasks"] == {"list": {}, "cancel": {},
                                         "requests": {"tools": {"call": {}}}}
        tools = rpc.result("tools/list")["tools"]
        assert {t["name"] for t in tools if t.get("execution") == {
            "taskSupport": "optional"}} == LONG_TOOLS

        created = rpc.result("tools/call", {
            "name": "serpent_file_import",
            "arguments": {"libraryId": library_id, "sourcePaths": [str(folder)]},
            "task": {"ttl": 600_000}, "_meta": {"progressToken": "import-1"}})
        task_id = created["task"]["taskId"]
        assert created["task"]["status"] == "working" and created["task"]["ttl"] == 600_000

        # progress comes on the session's GET stream, naming the task
        first = wait_until(lambda: next((n for n in rpc.heard("notifications/progress")
                                         if n["params"]["progress"] >= 1), None),
                           "progress of the import")
        with writes_held(library) as release:  # from here it cannot finish by itself
            assert first["params"]["progressToken"] == "import-1"
            assert first["params"]["total"] == COUNT
            assert first["params"]["_meta"] == {
                "io.modelcontextprotocol/related-task": {"taskId": task_id}}
            state = rpc.result("tasks/get", {"taskId": task_id})
            assert state["status"] == "working", state
            assert state["statusMessage"].startswith("Importing ") and \
                state["statusMessage"].endswith(f" / {COUNT:,}")
            serpent = state["_meta"]["serpent/task"]
            assert serpent["libraryId"] == library_id and serpent["total"] == COUNT

            # the very task the window's status bar shows (it asks task.get the same way)
            shown = as_person(server.gateway, "task.get",
                              {"libraryId": library_id, "taskId": serpent["taskId"]})
            assert (shown["kind"], shown["status"], shown["total"]) == \
                ("import", "running", COUNT)
            assert [t["taskId"] for t in rpc.result("tasks/list")["tasks"]] == [task_id]

            # another credential: no such task, to read, wait for or cancel
            for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                refused = other.post(method, {"taskId": task_id})
                assert refused["error"]["code"] == -32602, refused
            assert other.result("tasks/list")["tasks"] == []

            cancelled = rpc.result("tasks/cancel", {"taskId": task_id})
            assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task_id
            # cancelled the window's way: task.cancel on the Serpent task
            wait_until(lambda: as_person(server.gateway, "task.get", {
                "libraryId": library_id, "taskId": serpent["taskId"]})["cancelRequested"],
                "the Serpent task asked to stop")
            release()

        answer = rpc.result("tasks/result", {"taskId": task_id})
        assert answer["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
        imported = answer["structuredContent"]["result"]
        assert imported["cancelled"] is True and 0 < imported["imported"] < COUNT
        ended = as_person(server.gateway, "task.get",
                          {"libraryId": library_id, "taskId": serpent["taskId"]})
        assert ended["status"] == "cancelled"
        assert ended["result"]["imported"] == imported["imported"] == as_person(
            server.gateway, "library.info", {"libraryId": library_id})["assetCount"]
        assert rpc.result("tasks/get", {"taskId": task_id})["status"] == "cancelled"
        again = rpc.post("tasks/cancel", {"taskId": task_id})
        assert again["error"]["code"] == -32602  # already ended

        statuses = wait_until(lambda: [n["params"]["status"] for n in rpc.heard(
            "notifications/tasks/status") if n["params"]["taskId"] == task_id],
            "a task status notification")
        assert statuses[-1] == "cancelled"
        progress = [n["params"]["progress"] for n in rpc.heard("notifications/progress")]
        assert progress == sorted(set(progress)), progress  # only ever forward
    finally:
        rpc.close()
        other.close()


def test_without_task_a_long_tool_answers_as_always(server: Server, tmp_path: Path) -> None:
    library_id, _ = new_library(server.gateway, tmp_path / "libraries")
    folder = make_pictures(tmp_path / "scans", 3)
    rpc = Rpc(server.url, server.token())
    try:
        rpc.open()
        answer = rpc.result("tools/call", {"name": "serpent_file_import", "arguments": {
            "libraryId": library_id, "sourcePaths": [str(folder)]}})
        assert answer["structuredContent"]["result"]["imported"] == 3
        assert rpc.result("tasks/list")["tasks"] == []
        # a tool that runs as no task says so (its tools/list entry has no `execution`)
        refused = rpc.post("tools/call", {"name": "serpent_library_info", "arguments": {
            "libraryId": library_id}, "task": {}})
        assert refused["error"]["code"] == -32601, refused
    finally:
        rpc.close()


def test_unpacking_an_exported_library_runs_as_a_task_too(server: Server,
                                                          tmp_path: Path) -> None:
    library_id, _ = new_library(server.gateway, tmp_path / "libraries")
    archive = tmp_path / "scans.zip"
    as_person(server.gateway, "library.export", {"libraryId": library_id,
                                                 "targetPath": str(archive)})
    rpc = Rpc(server.url, server.token())
    try:
        rpc.open()
        created = rpc.result("tools/call", {
            "name": "serpent_library_import_exported", "task": {},
            "arguments": {"archivePath": str(archive),
                          "selectedParentPath": str(tmp_path / "libraries")}})
        assert created["task"]["ttl"] == 3_600_000  # none asked: an hour
        answer = rpc.result("tasks/result", {"taskId": created["task"]["taskId"]})
        unpacked = answer["structuredContent"]["result"]
        assert unpacked["name"] == "Scans" and unpacked["libraryId"] != library_id, unpacked
        state = rpc.result("tasks/get", {"taskId": created["task"]["taskId"]})
        assert state["status"] == "completed"
    finally:
        rpc.close()


def test_revisions_before_2025_11_25_have_no_tasks(server: Server) -> None:
    rpc = Rpc(server.url, server.token())
    try:
        assert "tasks" not in rpc.open("2025-06-18")["capabilities"]
        assert rpc.post("tasks/list")["error"]["code"] == -32601
    finally:
        rpc.close()
