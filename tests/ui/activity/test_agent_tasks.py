"""An AI client's long import, run as an MCP task, is the very task the window's status bar
shows ("Importing 120 / 2,000"), and cancelling the MCP task takes it away there."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.mcp.tasks.rpc import Rpc, as_person, make_pictures, wait_until, writes_held
from tests.ui.conftest import App

pytestmark = pytest.mark.gui

COUNT = 2000


def test_an_agents_import_task_shows_in_the_status_bar_until_it_is_cancelled(
        app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    library = Path(app.gateway_call("library.info", {"libraryId": library_id})["path"])
    folder = make_pictures(tmp_path / "scans", COUNT)
    status = window.services.mcp.start(window.services.settings.mcp.port)  # type: ignore[union-attr]
    assert status.running
    rpc = Rpc(str(status.url), app.credentials.create("Claude", "auto", "everything")[1])
    try:
        with ThreadPoolExecutor(1) as pool, writes_held(library) as release:
            call = pool.submit(rpc.result, "tools/call", {  # 2026-07-28, tasks declared
                "name": "serpent_file_import",
                "arguments": {"libraryId": library_id, "sourcePaths": [str(folder)]}})
            created = app.pump(lambda: call.done() and call.result(), "the task")
            release()
        assert created["resultType"] == "task", created

        app.pump(lambda: window.tasks.visible and window.tasks.text().startswith("Importing"),
                 "the agent's import in the status bar", timeout=60)
        # (the previews of what came in may be a task beside it: "(+1 more)")
        assert re.fullmatch(r"Importing [\d,]+ / 2,000(  \(\+1 more\))?",
                            window.tasks.text()), window.tasks.text()
        assert not window.importer.busy  # the window's own import bar is not involved
        state = rpc.result("tasks/get", {"taskId": created["taskId"]})
        serpent = state["_meta"]["serpent/task"]["taskId"]
        assert serpent in window.tasks.tasks  # the same task
        app.screenshot("status-bar-agent-import", window.status)

        with writes_held(library) as release:
            assert rpc.result("tasks/cancel", {"taskId": created["taskId"]})["resultType"] \
                == "complete"
            wait_until(lambda: as_person(app.window.services.gateway, "task.get", {
                "libraryId": library_id, "taskId": serpent})["cancelRequested"],
                "the Serpent task asked to stop")
            release()
        app.pump(lambda: serpent not in window.tasks.tasks and not window.tasks.text(
        ).startswith("Importing"), "the import gone from the status bar", timeout=60)
        assert rpc.result("tasks/get", {"taskId": created["taskId"]})["status"] == "cancelled"
    finally:
        rpc.close()
