"""Plugin commands from the window, under Xvfb with the real worker, the real plugin manager and
the shipped plugins in real host processes: the Plugins submenu of the right-click menu and of
Library lists the commands of enabled plugins (exposed to MCP or not), a run names the
selection and the library, its arguments dialog comes from the command's schema, a preview
changes nothing, errors stay in the dialog, Edit → Undo takes a run back in one step, and a
plugin turned off leaves the menus at once."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.actions.plugin_dialog import PluginDialog
from serpent_tk.ui.menus.menubar import entry_count
from tests.plugins.conftest import TEST_LIMITS
from tests.plugins.samples import GUARD, PURGE, RAISING, TAGGER, write_plugin
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui

MAKE = "plugin.contact-sheet.make"
RENAME = "plugin.rename-pattern.apply"


@pytest.fixture
def plugins(app: App) -> Iterator[PluginManager]:
    dirs = app_dirs().ensure()
    manager = PluginManager(app.services.gateway, SettingsStore(dirs.settings_file),
                            dirs.plugins, status_file=dirs.plugin_status, limits=TEST_LIMITS,
                            entry_points=False)
    app.services.plugins = manager
    manager.start().result(60)
    yield manager
    manager.shutdown()


def switch(app: App, manager: PluginManager, plugin_id: str, on: bool) -> None:
    """Enable or disable as Settings → Plugins does: off the Tk thread, the window pumping."""
    done = threading.Event()
    threading.Thread(target=lambda: (manager.set_enabled(plugin_id, on), done.set()),
                     daemon=True).start()
    app.pump(done.is_set, f"{plugin_id} {'on' if on else 'off'}", timeout=90)


def select_first(app: App, count: int) -> tuple[str, ...]:
    window = app.window
    keys = tuple(window.pages.cell(i).key for i in range(count))  # type: ignore[union-attr]
    window.grid.select_keys(list(keys))
    app.pump(lambda: tuple(window.grid.selected_keys()) == keys, "the selection")
    return keys


def plugin_entries(app: App) -> dict[str, Callable[[], None]]:
    """The Plugins submenu of the grid's right-click menu for the selection."""
    window = app.window
    target = window.current_target()
    if "Plugins" not in window.asset_context.entries(target):
        return {}
    return {e[0]: e[1] for e in window.asset_context.cascade(target, "Plugins")}


def library_plugins_menu(app: App) -> list[tuple[str, str]]:
    """Library → Plugins in the menu bar, as it would open: (label, state) of each entry."""
    library = app.window.menubar.refresh("Library")
    for index in range(entry_count(library)):
        if library.type(index) == "cascade" and library.entrycget(index, "label") == "Plugins":
            sub = library.nametowidget(library.entrycget(index, "menu"))
            return [(str(sub.entrycget(i, "label")), str(sub.entrycget(i, "state")))
                    for i in range(entry_count(sub))]
    raise AssertionError("no Plugins entry in the Library menu")


def open_dialog(app: App, label: str) -> PluginDialog:
    plugin_entries(app)[label]()
    dialog = app.pump(lambda: app.window.plugin_commands.dialog, "the arguments dialog")
    app.pump(dialog.winfo_ismapped, "the dialog on screen")
    return dialog  # type: ignore[no-any-return]


def names(app: App, library_id: str, keys: tuple[str, ...]) -> list[str]:
    result = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": list(keys)})
    by_id = {item["id"]: item["name"] for item in result["items"]}
    return [by_id[key] for key in keys]


def grid_titles(app: App) -> list[str]:
    pages = app.window.pages
    return [cell.title for i in range(pages.count()) if (cell := pages.cell(i)) is not None]


def invoke_menu(app: App, menu_name: str, label: str) -> None:
    menu = app.window.menubar.refresh(menu_name)
    for index in range(entry_count(menu)):
        if menu.type(index) != "separator" and menu.entrycget(index, "label") == label:
            menu.invoke(index)
            return
    raise AssertionError(f"no {label} in {menu_name}")


def toasts(app: App) -> list[str]:
    texts, stack = [], [app.root]
    while stack:
        widget: Any = stack.pop()
        stack.extend(widget.winfo_children())
        if widget.winfo_class() in ("TLabel", "Label") and widget.winfo_ismapped():
            texts.append(str(widget.cget("text")))
    return texts


def test_a_contact_sheet_from_the_right_click_menu(app: App, plugins: PluginManager,
                                                   tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    window = app.window
    select_first(app, 3)
    assert "Plugins" not in window.asset_context.entries(window.current_target()), \
        "no plugin is on: the right-click menu has no Plugins entry"
    assert library_plugins_menu(app) == []

    switch(app, plugins, "contact-sheet", True)
    assert "contact-sheet" not in app.services.gateway.exposure.plugins(), \
        "the window offers it although it is not exposed to MCP"
    app.pump(lambda: "Make contact sheet…" in plugin_entries(app), "the entry in the menu")
    assert list(plugin_entries(app)) == ["Make contact sheet…"]
    assert library_plugins_menu(app) == [("Make contact sheet…", "normal")]

    _shoot_context_menu(app, tmp_path)

    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Sheets"})
    dialog = open_dialog(app, "Make contact sheet…")
    assert [i.spec.key for i in dialog.inputs] == ["columns", "cellSize", "title", "folderId",
                                                   "tags"]
    assert dialog.preview_button is None, "contact-sheet has no dry run"
    assert "3 selected assets" in str(dialog.aim.cget("text"))
    dialog.field("title").variable.set("Review sheet")
    dialog.field("columns").variable.set("3")
    dialog.field("tags").variable.set("review, sheet")
    chooser = dialog.field("folderId")
    app.pump(lambda: "Sheets" in chooser.widget.cget("values"), "the library's folders offered")
    chooser.variable.set("Sheets")
    _shoot(app, tmp_path, "plugin-arguments-dialog", dialog)
    count = window.pages.count()
    dialog.confirm()
    app.pump(lambda: dialog.closed, "the dialog to close after the run")
    app.pump(lambda: window.pages.count() == count + 1 and "Review sheet" in grid_titles(app),
             "the new contact sheet in the grid")
    app.pump(lambda: any("Make contact sheet: done on 3 assets" in t for t in toasts(app)),
             "the success toast")
    found = app.gateway_call("asset.search", {"libraryId": library_id, "tags": ["review"]})
    assert [item["name"] for item in found["items"]] == ["Review sheet"]
    assert found["items"][0]["folderIds"] == [folder["id"]]

    # nothing selected: Library → Plugins shows the command greyed out, the right-click menu
    # of nothing has none
    window.grid.clear_selection()
    app.pump(lambda: not window.grid.selected_keys(), "the selection cleared")
    assert library_plugins_menu(app) == [("Make contact sheet…", "disabled")]


def test_rename_by_pattern_previews_runs_undoes_and_leaves_when_disabled(
        app: App, plugins: PluginManager, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3, prefix="sky"))
    switch(app, plugins, "rename-pattern", True)
    switch(app, plugins, "contact-sheet", True)
    keys = select_first(app, 2)
    before = names(app, library_id, keys)
    app.pump(lambda: list(plugin_entries(app)) == ["Make contact sheet…",
                                                    "Rename by pattern…"], "both entries")

    dialog = open_dialog(app, "Rename by pattern…")
    assert [i.spec.key for i in dialog.inputs] == ["pattern", "start", "order"]
    assert dialog.field("order").variable.get() == "given"
    assert dialog.preview_button is not None

    dialog.confirm()                                    # the pattern is required
    assert "Pattern: please fill it in." in str(dialog.error.cget("text"))
    dialog.field("pattern").variable.set("{nope}")
    dialog.confirm()                                    # the plugin refuses it
    app.pump(lambda: "not a field" in str(dialog.error.cget("text")), "the plugin's error")
    assert not dialog.closed and names(app, library_id, keys) == before

    dialog.field("pattern").variable.set("shot-{n:02}")
    dialog.ask_preview()
    app.pump(lambda: "shot-01" in str(dialog.preview.cget("text")), "the preview")
    assert str(dialog.preview.cget("text")).splitlines() == [
        f"{before[0]}  →  shot-01", f"{before[1]}  →  shot-02"]
    assert names(app, library_id, keys) == before, "a preview renames nothing"
    _shoot(app, tmp_path, "plugin-rename-preview", dialog)

    dialog.confirm()
    app.pump(lambda: dialog.closed, "the dialog to close")
    app.pump(lambda: names(app, library_id, keys) == ["shot-01", "shot-02"], "the new names")
    app.pump(lambda: {"shot-01", "shot-02"} <= set(grid_titles(app)), "the grid's new names")

    invoke_menu(app, "Edit", "Undo")                    # one step takes both back
    app.pump(lambda: names(app, library_id, keys) == before, "the names back after one Undo")
    app.pump(lambda: set(before) <= set(grid_titles(app)), "the grid's old names")

    # turning the plugin off takes its entry out of the menus, and an open dialog says so
    dialog = open_dialog(app, "Rename by pattern…")
    switch(app, plugins, "rename-pattern", False)
    app.pump(lambda: list(plugin_entries(app)) == ["Make contact sheet…"],
             "the entry to leave the right-click menu")
    assert library_plugins_menu(app) == [("Make contact sheet…", "normal")]
    app.pump(lambda: "turned off" in str(dialog.error.cget("text")), "the dialog to say so")
    assert dialog.run_button.instate(["disabled"])
    dialog.cancel()
    switch(app, plugins, "contact-sheet", False)
    app.pump(lambda: plugin_entries(app) == {}, "no Plugins entry any more")
    assert library_plugins_menu(app) == []


def _shoot(app: App, tmp_path: Path, name: str, widget: Any) -> None:
    made = app.shot(tmp_path, name, widget)  # also to $SERPENT_SHOTS_DIR when set
    with Image.open(made) as image:
        assert image.width > 200 and image.height > 100


def _shoot_context_menu(app: App, tmp_path: Path) -> None:
    """The right-click menu posted over the grid with its Plugins submenu open."""
    window = app.window
    grid = window.grid.canvas
    x, y = grid.winfo_rootx() + 200, grid.winfo_rooty() + 120
    window.asset_context.popup(window.current_target(), x, y)
    menu = window.asset_context.menu
    assert menu is not None
    app.settle(0.3)
    index = next(i for i in range(entry_count(menu)) if menu.type(i) == "cascade")
    menu.activate(index)
    menu.tk.call(str(menu), "postcascade", index)
    app.settle(0.3)
    bbox = (max(0, x - 220), max(0, y - 60), x + 560, y + menu.winfo_reqheight() + 40)
    app.shot(tmp_path, "plugin-context-menu", bbox=bbox)
    menu.unpost()
    app.root.grab_release()
    app.settle(0.1)


def test_dangerous_refused_crashed_and_vetoed_plugin_commands_say_so(
        app: App, tmp_path: Path) -> None:
    dirs = app_dirs().ensure()
    write_plugin(dirs.plugins, "purge", PURGE, commands=("purge",), name="Purger")
    write_plugin(dirs.plugins, "raising", RAISING, commands=("explode", "refuse"),
                 name="Raiser")
    write_plugin(dirs.plugins, "guard", GUARD, commands=("tag-through-api",),
                 will_hooks=True, did_hooks=True, name="Guard")
    write_plugin(dirs.plugins, "tagger", TAGGER, commands=("tag",), name="Tagger")
    manager = PluginManager(app.services.gateway, SettingsStore(dirs.settings_file),
                            dirs.plugins, status_file=dirs.plugin_status, limits=TEST_LIMITS,
                            entry_points=False)
    try:
        manager.start().result(60)
        library_id = app.open_default()
        app.import_images(make_images(tmp_path / "refs", 3))
        for plugin_id in ("purge", "raising", "guard", "tagger"):
            switch(app, manager, plugin_id, True)
        window = app.window
        keys = select_first(app, 1)
        app.pump(lambda: len(plugin_entries(app)) == 5, "the five plugin entries")
        assert list(plugin_entries(app)) == [
            "Guard: tag-through-api", "Purger: purge…", "Raiser: explode", "Raiser: refuse",
            "Tagger: tag…"]

        # a refusal on purpose: the plugin's words in an error toast, the plugin stays on
        plugin_entries(app)["Raiser: refuse"]()
        app.pump(lambda: any("these assets are not mine to count" in t for t in toasts(app)),
                 "the refusal")
        assert manager.state("raising").status == "running"  # type: ignore[union-attr]

        # a will-hook's veto of what a plugin command does: said in its dialog
        dialog = open_dialog(app, "Tagger: tag…")
        assert [i.spec.key for i in dialog.inputs] == ["tags"]
        dialog.field("tags").variable.set("locked")
        dialog.confirm()
        app.pump(lambda: "the tag locked is reserved" in str(dialog.error.cget("text")),
                 "the veto in the dialog")
        dialog.cancel()
        switch(app, manager, "guard", False)       # it also vetoes every asset.trash

        # a dangerous plugin command: its risk report as a preview, then the red two-step
        dialog = open_dialog(app, "Purger: purge…")
        assert dialog.inputs == [] and str(dialog.run_button.cget("text")) == "Continue…"
        dialog.ask_preview()
        app.pump(lambda: "Purge 1 assets for good." in str(dialog.preview.cget("text")),
                 "the risk report")
        count = window.pages.count()
        dialog.confirm()
        confirm = app.pump(lambda: window.plugin_commands.confirm, "the red confirmation")
        assert confirm.danger and "Purge 1 assets for good." in str(confirm.text.cget("text"))
        assert window.pages.count() == count, "nothing happens before the second step"
        confirm.confirm()
        app.pump(lambda: window.pages.count() == count - 1, "the purged asset gone")
        trash = app.gateway_call("trash.list", {"libraryId": library_id})
        assert [item["id"] for item in trash["items"]] == list(keys)

        # the plugin's own exception: the window says it in the plugin's words; the plugin
        # and its entries stay (only repeated crashes or timeouts turn a plugin off)
        select_first(app, 1)
        plugin_entries(app)["Raiser: explode"]()
        app.pump(lambda: any("failed: RuntimeError: the plugin's own bug" in t
                             for t in toasts(app)), "the failure said")
        assert not any("turned off" in t for t in toasts(app))
        assert "Raiser: explode" in plugin_entries(app)
        assert manager.state("raising").status == "running"  # type: ignore[union-attr]
    finally:
        manager.shutdown()
