"""A parent folder shows what is inside it: after importing a three-level tree, the top folder
shows every asset of its subfolders, with a count that includes them (issue 27: it said
"This folder is empty"); View → Show subfolder contents turns that off, and the folder then
says how many its subfolders hold; the choice is remembered."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def test_a_parent_folder_shows_and_counts_its_subfolders(app: App, tmp_path: Path) -> None:
    app.open_default()
    window, sidebar = app.window, app.window.sidebar
    tree = tmp_path / "Trip"
    pictures = make_images(tmp_path / "camera", 9)          # nine different pictures
    for place, picked in (("Day 1/Morning", pictures[:3]), ("Day 1/Evening", pictures[3:5]),
                          ("Day 2", pictures[5:])):
        (tree / place).mkdir(parents=True)
        for picture in picked:
            picture.rename(tree / place / picture.name)
    window.import_paths([str(tree)])
    app.pump(lambda: window.pages.count() == 9 and not window.importer.busy, "the import",
             timeout=90)
    app.pump(lambda: any(f["name"] == "Trip" for f in sidebar.folders.values()),
             "the imported folders in the sidebar")
    trip = next(f for f in sidebar.folders.values() if f["name"] == "Trip")
    iid = f"folder:{trip['id']}"
    app.pump(lambda: sidebar.tree.set(iid, "count") == "9", "the top folder's count")

    sidebar.select(iid)
    app.pump(lambda: window.browser.scope.iid == iid and window.pages.known, "the folder")
    assert window.pages.count() == 9
    assert window.empty.kind == ""                    # not "This folder is empty"
    app.shot(tmp_path, "subfolders-shown")

    labels = [label for label, _, _ in window.menubar.labels("View")]
    assert "Show subfolder contents" in labels
    next(a for a in window.action_table if a.name == "view.subfolders").run(
        window.current_target())                      # what the View menu's entry runs
    app.pump(lambda: window.pages.known and window.pages.count() == 0, "the folder's own")
    assert window.empty.kind == "view"
    assert window.empty.title.cget("text") == "No assets of its own"
    assert "Its subfolders have 9 assets" in window.empty.text.cget("text")
    assert sidebar.tree.set(iid, "count") == ""       # nothing of its own
    app.pump(lambda: not SettingsStore(app_dirs().settings_file).load()
             .settings.ui.include_subfolders, "the choice saved")
    app.shot(tmp_path, "subfolders-hidden")

    window.empty.button.invoke()                      # "Show subfolder contents"
    app.pump(lambda: window.pages.known and window.pages.count() == 9, "all nine again")
    assert sidebar.tree.set(iid, "count") == "9"
    day1 = next(f for f in sidebar.folders.values() if f["name"] == "Day 1")
    assert sidebar.tree.set(f"folder:{day1['id']}", "count") == "5"
