"""The main window as a person uses it: first run, importing, selecting, the inspector."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def test_first_run_opens_my_library_and_explains_what_to_do(app: App) -> None:
    app.open_default()
    window = app.window
    assert window.session.current is not None
    assert window.session.current["name"] == "My Library"
    assert Path(window.session.current["path"]) == app_dirs().default_library
    assert app_dirs().default_library.is_dir()
    assert app.root.title() == "My Library — Serpent"
    app.pump(lambda: window.empty.kind == "empty", "the empty-library hint")
    texts = [w.cget("text") for w in window.empty.widgets() if "text" in w.configure()]
    assert "Import images…" in texts
    assert "Connect an AI client…" in texts


def test_import_shows_cells_and_selection_fills_the_inspector(app: App, tmp_path: Path) -> None:
    app.open_default()
    images = make_images(tmp_path / "refs", 12)
    app.import_images(images)
    window, grid = app.window, app.window.grid
    assert window.empty.kind == ""
    app.pump(lambda: len(grid._cells) == 12 and all(c.shown for c in grid._cells.values()),
             "twelve painted cells")
    titles = {grid.source.cell(i).title for i in range(12)}  # type: ignore[union-attr]
    assert titles == {p.stem for p in images}
    assert any("Imported 12 files" in t for t in window.toasts.texts())

    first = grid.source.cell(0)
    assert first is not None
    x, y = grid._origin(0)
    grid.canvas.event_generate("<ButtonPress-1>", x=int(x) + 20, y=int(y) + 20)
    grid.canvas.event_generate("<ButtonRelease-1>", x=int(x) + 20, y=int(y) + 20)
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    assert window.inspector.asset["id"] == first.key  # type: ignore[index]
    assert "Added by you" in window.inspector.audit.cget("text")

    grid.canvas.event_generate("<Shift-Right>")
    grid.canvas.event_generate("<Shift-Right>")
    assert len(grid.selected_keys()) == 3
    app.pump(lambda: window.inspector.many, "the multi-selection summary")
    assert window.inspector.title.cget("text") == "3 assets selected"
    app.screenshot("main-window")


def test_tags_edited_in_the_inspector_reach_the_library(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    window = app.window
    key = window.grid.source.cell(0).key  # type: ignore[union-attr]
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    window.inspector.tags.entry_var.set("sky")
    window.inspector.tags._commit()
    app.pump(lambda: window.inspector.tags.chip_names() == ["sky"], "the new tag chip")
    stored = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [key]})
    assert stored["items"][0]["tags"] == ["sky"]
    app.pump(lambda: window.sidebar.tree.exists("tag:sky"), "the tag in the sidebar")
    assert window.sidebar.tree.set("tag:sky", "count") == "1"


def test_delete_key_trashes_and_ctrl_z_restores(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    key = window.grid.source.cell(0).key  # type: ignore[union-attr]
    window.grid.select_keys([key])
    window.grid.canvas.focus_force()
    app.settle(0.1)
    window.grid.canvas.event_generate("<Delete>")
    app.pump(lambda: window.pages.count() == 2, "the trashed asset leaving the grid")
    trash = app.gateway_call("asset.search", {"libraryId": library_id, "trashed": True})
    assert [item["id"] for item in trash["items"]] == [key]
    window.grid.canvas.event_generate("<Control-z>")
    app.pump(lambda: window.pages.count() == 3, "the asset coming back after Ctrl+Z")
