"""Importing in the window: a dropped folder keeps its tree as library folders (the default),
a flattened import puts every file in the folder being looked at, and the closing toast
says what was made and what was skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.conftest import App, tiny_png

pytestmark = pytest.mark.gui


def pictures(folder: Path, numbers: range) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number in numbers:
        (folder / f"dot-{number}.png").write_bytes(tiny_png(number))


def folder_names(app: App, library_id: str) -> set[str]:
    listed = app.gateway_call("folder.list", {"libraryId": library_id})["items"]
    return {f["name"] for f in listed}


def test_a_dropped_folder_keeps_its_tree_unless_flattened(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    before = folder_names(app, library_id)
    trip = tmp_path / "Trip"
    pictures(trip / "day one", range(2))
    pictures(trip / "day two", range(10, 11))
    (trip / "Thumbs.db").write_bytes(b"clutter")
    window.drop_zone.drop([str(trip)])  # type: ignore[union-attr]
    app.pump(lambda: not window.importer.busy and any(
        "into 3 new folders" in t for t in window.toasts.texts()), "the import's toast")
    assert folder_names(app, library_id) - before == {"Trip", "day one", "day two"}
    assert any("1 hidden or system file skipped" in t for t in window.toasts.texts())

    flat = tmp_path / "Scans"
    pictures(flat / "box", range(20, 22))
    window.importer.start(library_id, [str(flat)], flatten=True)
    app.pump(lambda: not window.importer.busy and any(
        "Imported 2 files." in t for t in window.toasts.texts()), "the flattened import's toast")
    assert folder_names(app, library_id) - before == {"Trip", "day one", "day two"}


def test_the_window_offers_both_kinds_of_folder_import(app: App, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """File → Import a folder… keeps the tree; File → Import a folder, flattened… (also in
    the toolbar's Import menu) does not. The folder dialog is the system's: it answers with
    the folder a person would pick."""
    from serpent_tk.ui.actions import importing
    from serpent_tk.ui.menus.action_table import Target

    library_id = app.open_default()
    window = app.window
    before = folder_names(app, library_id)
    picked: list[Path] = []
    monkeypatch.setattr(importing.filedialog, "askdirectory",
                        lambda **options: str(picked[-1]))
    actions = {a.name: a for a in window.action_table}
    assert actions["file.import-folder"].text(Target()) == "Import a folder…"
    assert actions["file.import-flattened"].text(Target()) == "Import a folder, flattened…"
    menu = window.import_button["menu"]
    labels = [window.root.nametowidget(menu).entrycget(i, "label") for i in range(3)]
    assert labels == ["Files…", "A folder…", "A folder, flattened…"]

    picked.append(tmp_path / "Kept")
    pictures(picked[-1] / "inside", range(30, 32))
    actions["file.import-folder"].run(window.current_target())
    app.pump(lambda: not window.importer.busy and folder_names(app, library_id) - before ==
             {"Kept", "inside"}, "the tree kept")

    picked.append(tmp_path / "Flat")
    pictures(picked[-1] / "deep" / "deeper", range(40, 43))
    actions["file.import-flattened"].run(window.current_target())
    app.pump(lambda: not window.importer.busy and window.pages.count() == 5,
             "the flattened import in the grid")
    assert folder_names(app, library_id) - before == {"Kept", "inside"}
