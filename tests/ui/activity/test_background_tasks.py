"""Background tasks as the person sees them: analysis after an import runs without making
the grid or the sidebar reload, its progress shows in the status bar and goes away when it
is done, and clicking it cancels it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serpent_tk.automation.events import LibraryChanged
from tests.ui.conftest import App, tiny_png

pytestmark = pytest.mark.gui

COUNT = 1500        # tiny pictures: analysing them takes a few seconds on this machine
RELOADS = {"asset.search", "asset.get", "tag.list", "folder.list", "collection.list",
           "library.info"}


def import_many(app: App, folder: Path) -> None:
    folder.mkdir()
    for number in range(COUNT):
        (folder / f"dot-{number:04d}.png").write_bytes(tiny_png(number))
    window = app.window
    window.import_paths([str(folder)])
    app.pump(lambda: window.pages.count() == COUNT and not window.importer.busy,
             "the imported files in the grid", timeout=120)


def test_analysis_reloads_nothing_and_its_progress_comes_and_goes(app: App,
                                                                  tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    changes: list[tuple[str, ...]] = []
    window.services.bus.subscribe(LibraryChanged, lambda e: changes.append(e.kinds))
    import_many(app, tmp_path / "dots")

    # the analysis an import queues shows in the status bar (after the import's previews,
    # which may show first: "Making previews 300 / 500")
    app.pump(lambda: window.tasks.visible and window.tasks.text().startswith("Analysing"),
             "the analysis in the status bar", timeout=60)
    assert re.fullmatch(r"Analysing [\d,]+ / [\d,]+(  \(\+1 more\))?", window.tasks.text()), \
        window.tasks.text()
    app.screenshot("status-bar-task", window.status)

    # ... and while it writes its results, the window asks the library for nothing new
    sent = app.spy_on_commands()
    changes.clear()
    app.pump(lambda: not app.gateway_call("task.list", {
        "libraryId": library_id, "status": ["queued", "running"]})["items"],
        "the analysis done", timeout=120)
    app.pump(lambda: not window.tasks.visible and not window.tasks.tasks,
             "the indicator gone once the analysis is done", timeout=30)
    analysis_batches = [k for k in changes if "analysis" in k]
    assert analysis_batches, "no analysis results arrived while watching"
    assert all(set(k) <= {"analysis", "task"} for k in changes), changes
    assert not RELOADS & set(sent), [n for n in sent if n in RELOADS]
    tasks = app.gateway_call("task.list", {"libraryId": library_id})["items"]
    assert {t["status"] for t in tasks if t["kind"] == "analysis"} == {"done"}


def test_clicking_the_indicator_cancels_the_task(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    import_many(app, tmp_path / "dots")
    app.wait_for_import_analysis(library_id)
    app.pump(lambda: app.gateway_call("asset.preview-status", {
        "libraryId": library_id})["making"] is None, "the import's previews done", timeout=120)
    app.pump(lambda: not window.tasks.tasks, "the indicator gone", timeout=30)

    task = app.gateway_call("analysis.run", {"libraryId": library_id, "force": True})["task"]
    app.pump(lambda: window.tasks.visible, "the analysis in the status bar", timeout=60)
    assert list(window.tasks.tasks) == [task["id"]]
    entries = window.tasks.entries()
    assert [label for label, _ in entries] == ["Cancel"]
    entries[0][1]()
    assert window.tasks.text().startswith("Cancelling")
    app.pump(lambda: not window.tasks.visible, "the indicator gone after Cancel", timeout=60)
    stored = app.gateway_call("task.get", {"libraryId": library_id, "taskId": task["id"]})
    assert stored["status"] == "cancelled"
    assert stored["done"] < COUNT
