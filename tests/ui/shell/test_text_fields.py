"""Text fields behave as on every desktop: Ctrl+A selects all (Tk's X11 default jumped to the
line's start, so "Ctrl+F, Ctrl+A, type" appended to the old search, issue 27), Ctrl+F selects
the search text, Escape clears it; and the obvious import button can import a folder, its
pickers opening in the person's Pictures folder."""

from __future__ import annotations

from pathlib import Path
from tkinter import filedialog
from typing import Any

import pytest

from serpent_tk.ui.menus.action_table import MOD
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def press(app: App, widget: Any, sequence: str) -> None:
    widget.event_generate(sequence)
    app.settle(0.05)


def test_ctrl_a_selects_all_in_every_kind_of_field(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 1))
    window = app.window
    entry = window.search.entry
    window.search.set("forest")
    entry.focus_force()
    app.settle(0.1)
    entry.icursor("end")
    entry.selection_clear()
    press(app, entry, f"<{MOD}-f>")                 # Find…: the search's words, selected
    assert entry.selection_present() and entry.selection_get() == "forest"
    entry.selection_clear()
    press(app, entry, f"<{MOD}-a>")
    assert entry.selection_present() and entry.selection_get() == "forest"
    press(app, entry, "<KeyPress-x>")               # typing replaces what was selected
    assert window.search.var.get() == "x"
    press(app, entry, "<Escape>")                   # and Escape clears it
    assert window.search.text == ""

    first = app.pump(lambda: window.pages.known and window.pages.cell(0),
                     "the whole library again")              # the search was cleared
    window.grid.select_keys([first.key])
    app.pump(lambda: window.inspector.asset is not None, "the inspector's fields")
    notes = window.inspector.notes
    notes.delete("1.0", "end")
    notes.insert("1.0", "two\nlines")
    notes.focus_force()
    app.settle(0.1)
    press(app, notes, f"<{MOD}-a>")
    assert notes.get("sel.first", "sel.last") == "two\nlines"
    tag_entry = window.inspector.tags.entry
    tag_entry.focus_force()
    app.settle(0.1)
    tag_entry.insert(0, "sky")
    press(app, tag_entry, f"<{MOD}-a>")
    assert tag_entry.selection_present()


def test_the_empty_librarys_import_button_imports_a_folder_from_pictures(
        app: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    pictures = home / "Pictures"
    make_images(pictures / "Trip", 3)
    asked: list[dict[str, Any]] = []

    def ask_folder(**options: Any) -> str:
        asked.append(options)
        return str(pictures / "Trip")

    def ask_files(**options: Any) -> tuple[str, ...]:
        asked.append(options)
        return ()

    monkeypatch.setattr(filedialog, "askdirectory", ask_folder)
    monkeypatch.setattr(filedialog, "askopenfilenames", ask_files)
    app.open_default()
    window = app.window
    app.pump(lambda: window.empty.kind == "empty", "the empty library's steps")
    button = window.empty.import_button
    menu = button.nametowidget(button["menu"])
    labels = [menu.entrycget(i, "label") for i in range(int(menu.index("end")) + 1)]
    assert labels == ["Files…", "A folder…", "A folder, flattened…"]
    menu.invoke(0)                                  # Files…: opens in Pictures
    assert asked[-1]["initialdir"] == str(pictures)
    menu.invoke(1)                                  # A folder…
    assert asked[-1]["initialdir"] == str(pictures)
    app.pump(lambda: window.pages.count() == 3 and not window.importer.busy,
             "the folder imported")
    assert any(f["name"] == "Trip" for f in window.sidebar.folders.values()) or \
        app.pump(lambda: any(f["name"] == "Trip" for f in window.sidebar.folders.values()),
                 "its folder kept")
    window.ask_import()                             # next time: where the last import was
    assert asked[-1]["initialdir"] == str(pictures)


def test_without_a_pictures_folder_the_pickers_open_at_home(
        app: App, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []
    monkeypatch.setattr(filedialog, "askopenfilenames",
                        lambda **options: asked.append(options) or ())
    app.open_default()
    app.window.ask_import()
    assert asked[-1]["initialdir"] == str(Path.home())
    assert asked[-1]["initialdir"] != str(Path.cwd())
