"""The previews made after an import show in the status bar as real progress ("Making
previews 120 / 300", the counts the library reports through asset.preview-status) and the
indicator goes away when they are all made."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serpent_tk.automation.events import TaskProgress
from tests.ui.conftest import App, tiny_png

pytestmark = pytest.mark.gui

COUNT = 300


def test_previews_progress_comes_from_the_library_and_ends(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    tasks = window.tasks
    shown: list[str] = []
    previews_ids: set[str] = set()
    update = tasks._update

    def recording() -> None:
        update()
        if tasks.tasks:
            shown.append(tasks.text())
            previews_ids.update(t.task_id for t in tasks.tasks.values()
                                if t.kind == "previews")

    tasks._update = recording  # type: ignore[method-assign]
    sent = app.spy_on_commands()

    folder = tmp_path / "dots"
    folder.mkdir()
    for number in range(COUNT):
        (folder / f"dot-{number:04d}.png").write_bytes(tiny_png(number))
    window.import_paths([str(folder)])
    app.pump(lambda: any(t.startswith("Making previews") for t in shown),
             "the previews in the status bar", timeout=60)
    app.pump(lambda: window.pages.count() == COUNT and not window.importer.busy,
             "the import done", timeout=120)
    app.pump(lambda: not any(t.kind == "previews" for t in tasks.tasks.values()),
             "the previews indicator gone", timeout=60)
    made = [t for t in shown if t.startswith("Making previews")]
    for text in made:
        match = re.fullmatch(r"Making previews ([\d,]+) / ([\d,]+)( \(\+1 more\))?", text)
        assert match, text
        done, total = (int(g.replace(",", "")) for g in match.groups()[:2])
        assert 0 <= done <= total <= COUNT
    assert "asset.preview-status" in sent          # the library's own count confirmed it
    status = app.gateway_call("asset.preview-status", {"libraryId": library_id})
    assert status["making"] is None and status["counts"]["ready"] == COUNT

    # a report that left before the end was told (another preview thread's, say) and
    # arrives late never brings the ended task back (once the import's analysis, which
    # may still be running on a crowded machine, has ended too)
    assert len(previews_ids) == 1

    def library_idle() -> bool:  # the import's analysis may not even have started yet
        return not app.gateway_call("task.list", {"libraryId": library_id, "status": [
            "queued", "running"]})["items"]

    app.pump(library_idle, "the library's tasks ended", timeout=120)
    app.pump(lambda: not tasks.tasks and not window.services.bus.pending(),
             "every task ended in the window", timeout=60)
    window.services.bus.post(TaskProgress(library_id=library_id, command="", kind="previews",
                                          task_id=previews_ids.pop(), done=COUNT - 1,
                                          total=COUNT, message="Making previews"))
    app.pump(lambda: not window.services.bus.pending(), "the late report handled")
    assert not tasks.tasks and not tasks.visible
