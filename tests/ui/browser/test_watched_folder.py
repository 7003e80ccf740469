"""A linked folder the person drops files into on disk: the watcher's sync (background work,
no command's call) shows in the grid and in every sidebar count by itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def test_files_dropped_into_a_linked_folder_show_in_the_grid_and_the_counts(
        app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    pictures = make_images(tmp_path / "downloads", 5)
    inbox = tmp_path / "Inbox"
    inbox.mkdir()
    for picture in pictures[:2]:
        shutil.copy2(picture, inbox)
    linked = app.gateway_call("linked-folder.create", {"libraryId": library_id,
                                                       "path": str(inbox)})
    window = app.window
    sidebar = window.sidebar
    app.pump(lambda: window.pages.count() == 2, "the linked folder's two files in the grid")
    app.pump(lambda: sidebar.tree.set("all", "count") == "2", "All counting two")

    for picture in pictures[2:]:                   # by the person, in the file manager
        shutil.copy2(picture, inbox)
    app.pump(lambda: window.pages.count() == 5, "the dropped files in the grid", timeout=30)
    app.pump(lambda: sidebar.tree.set("all", "count") == "5", "All counting five")
    folder = linked["folderId"]
    app.pump(lambda: sidebar.folders.get(folder, {}).get("assetCount") == 5,
             "the linked folder's own count")
