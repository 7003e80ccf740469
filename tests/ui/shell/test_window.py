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


def test_dark_theme_from_settings_applies_and_is_saved(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 6))
    window = app.window
    window.open_settings("general")
    general = window.settings_window.general  # type: ignore[union-attr]
    general.theme_var.set("dark")
    general._theme_chosen()
    app.pump(lambda: window.theme.mode == "dark", "the dark theme")
    assert window.grid.canvas.cget("background") == window.theme.palette.background
    from serpent_tk.settings import SettingsStore
    app.pump(lambda: SettingsStore(app_dirs().settings_file).load().settings.ui.theme == "dark",
             "the theme saved")
    window.settings_window.destroy()  # type: ignore[union-attr]
    key = window.grid.source.cell(1).key  # type: ignore[union-attr]
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None and window.inspector.has_preview,
             "the inspector preview")
    app.screenshot("main-window-dark")


def test_switching_libraries_shows_the_other_one(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    other = app.gateway_call("library.create", {"selectedParentPath": str(tmp_path),
                                                "name": "Moodboards"})
    window = app.window
    window.session.open_path(other["path"])
    app.pump(lambda: window.session.library_id == other["libraryId"], "the switch")
    app.pump(lambda: window.pages.known and window.pages.count() == 0, "the empty grid")
    assert app.root.title() == "Moodboards — Serpent"
    assert window.switcher.cget("text") == "Moodboards"
    window.session.list_libraries(lambda items: setattr(window.switcher, "items", items))
    app.pump(lambda: len(window.switcher.items) >= 2, "the recent list")
    assert {i["name"] for i in window.switcher.items} >= {"My Library", "Moodboards"}


def test_new_folder_from_the_sidebar_and_dragging_assets_into_it(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    window, sidebar = app.window, app.window.sidebar
    app.pump(lambda: sidebar.tree.exists("action:new-folder"), "the New folder row")
    sidebar.tree.selection_set("action:new-folder")
    app.pump(lambda: window.sidebar_menu.dialog is not None, "the name dialog")
    dialog = window.sidebar_menu.dialog
    dialog.value.set("Characters")  # type: ignore[union-attr]
    dialog.confirm()  # type: ignore[union-attr]
    app.pump(lambda: any(sidebar.scope(i) and sidebar.scope(i).label == "Characters"
                         for i in sidebar.tree.get_children("section:folders")),
             "the new folder in the sidebar")
    folder_iid = next(i for i in sidebar.tree.get_children("section:folders")
                      if i.startswith("folder:"))
    assert sidebar.current.iid == "all"           # the action row did not change the view

    keys = [window.grid.source.cell(i).key for i in (0, 1)]  # type: ignore[union-attr]
    window.grid.select_keys(keys)
    sidebar.tree.see(folder_iid)
    app.settle(0.1)
    x, y, w, h = sidebar.tree.bbox(folder_iid)  # type: ignore[misc]
    x_root = sidebar.tree.winfo_rootx() + x + w // 2
    y_root = sidebar.tree.winfo_rooty() + y + h // 2
    window.grid.on_drag(keys, "motion", x_root, y_root)  # type: ignore[misc]
    window.grid.on_drag(keys, "drop", x_root, y_root)  # type: ignore[misc]
    app.pump(lambda: sidebar.tree.set(folder_iid, "count") == "2", "the folder count")
    sidebar.select(folder_iid)
    app.pump(lambda: window.pages.known and window.pages.count() == 2
             and window.browser.scope.iid == folder_iid, "the folder's assets")
    shown = {window.grid.source.cell(i).key for i in range(2)}  # type: ignore[union-attr]
    assert shown == set(keys)


def test_a_long_import_shows_progress_and_can_be_cancelled(app: App, tmp_path: Path) -> None:
    from tests.ui.conftest import tiny_png

    app.open_default()
    folder = tmp_path / "scans"
    folder.mkdir()
    for number in range(4000):
        (folder / f"scan-{number:05d}.png").write_bytes(tiny_png(number))
    window = app.window
    window.import_paths([str(folder)])
    importer = window.importer
    app.pump(lambda: importer.frame.winfo_ismapped() and "of 4,000" in importer.label.cget(
        "text"), "the progress bar with counts")
    assert importer.cancel_button.winfo_ismapped()
    importer.cancel_button.invoke()
    app.pump(lambda: not importer.busy, "the import to stop")
    assert not importer.frame.winfo_ismapped()
    app.pump(lambda: any(t.startswith("Import cancelled") for t in window.toasts.texts()),
             "the cancelled toast")
    app.pump(lambda: window.pages.known, "the grid")
    assert window.pages.count() < 4000


def test_open_hands_the_viewer_a_copy_under_the_original_name(app: App, tmp_path: Path) -> None:
    from serpent_tk.ui.actions.asset_actions import viewing_copy

    library_id = app.open_default()
    source = make_images(tmp_path / "refs", 1, prefix="portrait")[0]
    app.import_images([source])
    key = app.window.grid.source.cell(0).key  # type: ignore[union-attr]
    asset = app.gateway_call("asset.get", {"libraryId": library_id,
                                           "assetIds": [key]})["items"][0]
    copy = viewing_copy(asset)
    assert copy.name == "portrait-00.png"
    assert copy.read_bytes() == source.read_bytes()
    assert app_dirs().cache in copy.parents


def test_delete_in_the_trash_asks_in_red_then_deletes_for_good(app: App, tmp_path: Path) -> None:
    from serpent_tk.ui.shell.dialogs import ConfirmDialog

    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    window = app.window
    key = window.grid.source.cell(0).key  # type: ignore[union-attr]
    app.gateway_call("asset.trash", {"libraryId": library_id, "assetIds": [key]})
    window.sidebar.select("trash")
    app.pump(lambda: window.pages.known and window.pages.count() == 1
             and window.browser.scope.is_trash, "the Trash")
    window.grid.select_keys([key])
    window.grid.canvas.focus_force()
    app.settle(0.1)
    window.grid.canvas.event_generate("<Delete>")
    app.pump(lambda: isinstance(window.actions.dialog, ConfirmDialog), "the red confirmation")
    dialog = window.actions.dialog
    assert dialog.danger and "cannot be undone" in dialog.text.cget("text").lower()  # type: ignore[union-attr]
    dialog.confirm()  # type: ignore[union-attr]
    app.pump(lambda: window.pages.count() == 0, "the Trash emptied of it")
    app.pump(lambda: any("Deleted 1 asset permanently" in t for t in window.toasts.texts()),
             "the toast")
    found = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [key]})
    assert found["notFound"] == [key]


def test_the_smallest_window_still_shows_everything(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 5))
    width, height = (int(v) for v in app.root.minsize())
    app.root.geometry(f"{width}x{height}")
    app.window.grid.select_keys([app.window.grid.source.cell(0).key])  # type: ignore[union-attr]
    app.pump(lambda: app.window.inspector.asset is not None, "the inspector")
    app.settle(0.3)
    toolbar = app.window.toolbar
    app.screenshot("main-window-smallest")
    squeezed = [(str(w), w.winfo_width(), w.winfo_reqwidth()) for w in toolbar.winfo_children()
                if w is not app.window.search and w.winfo_width() < w.winfo_reqwidth() - 2]
    assert not squeezed, squeezed
