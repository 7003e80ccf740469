"""The menu bar, the keys, the right-click menus and Help → Keyboard shortcuts all come from
one action table; menus wear the theme's colours; icon buttons have tooltips; the key table of
docs/window.md lists every shortcut."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serpent_tk.ui.menus.action_table import MENUS, Target
from serpent_tk.ui.menus.menu_style import menu_colours
from serpent_tk.ui.shell.tooltip import tooltip_of
from tests.ui.conftest import ROOT, App, make_images

pytestmark = pytest.mark.gui


def test_every_action_is_in_its_menu_with_its_shortcut_and_its_keys_are_bound(
        app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    table = window.action_table
    assert [window.menubar.bar.entrycget(i, "label") for i in range(len(MENUS))] == list(MENUS)
    window.grid.select_keys([window.pages.cell(0).key])  # type: ignore[union-attr]
    for menu in MENUS:
        shown = {label: (keys, state) for label, keys, state in window.menubar.labels(menu)}
        for action in (a for a in table if a.menu == menu and a.in_menu_bar):
            label = action.text(window.current_target())
            if action.only_where_it_applies and not action.when(window.current_target()):
                assert label not in shown, (menu, label)   # only where it applies
                continue
            assert label in shown, (menu, label)
            assert shown[label][0] == action.accelerator, (menu, label)
    names = [a.name for a in table]
    assert len(names) == len(set(names))
    for action in table:
        for sequence in action.keys:
            assert app.root.bind(sequence), f"{action.name}: {sequence} is not bound"
    # what a selection allows is enabled; the viewer's keys wait for the viewer
    edit = {label: state for label, _, state in window.menubar.labels("Edit")}
    assert edit["Move to Trash"] == "normal" and "Restore" not in edit
    view = {label: state for label, _, state in window.menubar.labels("View")}
    assert view["Open in viewer"] == "normal" and view["Zoom in"] == "disabled"


def test_right_click_menus_offer_what_applies_there(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    window = app.window
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    assets = window.asset_context.entries(window.current_target((key,)))
    assert assets == ["Open in viewer", "Open with system app", "Show in folder", "Tag…",
                      "Rating", "Rename…", "Move to folder", "Find similar images",
                      "Move to Trash"]
    both = tuple(window.pages.cell(i).key for i in range(2))  # type: ignore[union-attr]
    assert "Find similar images" not in window.asset_context.entries(
        window.current_target(both))                        # one image at a time
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Skies"})
    iid = f"folder:{folder['id']}"
    app.pump(lambda: window.sidebar.tree.exists(iid), "the folder in the sidebar")
    rows = window.sidebar_context.entries(Target((), window.sidebar.scope(iid), iid, "sidebar"))
    assert rows == ["New folder inside…", "Rename “Skies”…", "Delete folder (when empty)"]
    trash = window.sidebar_context.entries(Target((), window.sidebar.scope("trash"), "trash",
                                                  "sidebar"))
    assert trash == ["Empty Trash…"]
    heading = window.sidebar_context.entries(Target((), None, "section:collections",
                                                    "sidebar"))
    assert heading == ["New collection…"]


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_menus_follow_the_theme_and_an_open_menu_looks_right(app: App, tmp_path: Path,
                                                              mode: str) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 6))
    window = app.window
    window.theme.apply(mode)
    colours = menu_colours(window.theme)
    for menu in [window.menubar.bar, *window.menubar.menus.values(),
                 window.switcher.menu]:
        assert str(menu.cget("background")) == colours["background"]
        assert str(menu.cget("activebackground")) == colours["activebackground"]
    window.grid.select_keys([window.pages.cell(0).key])  # type: ignore[union-attr]
    menu = window.menubar.refresh("Edit")
    x = app.root.winfo_rootx() + window.theme.px(40)
    y = app.root.winfo_rooty()
    menu.post(x, y)
    app.settle(0.3)
    try:
        right = max(app.root.winfo_rootx() + 700, menu.winfo_rootx() + menu.winfo_width())
        bottom = max(y + 420, menu.winfo_rooty() + menu.winfo_height())
        top = int(app.root.geometry().split("+")[2])
        app.shot(tmp_path, f"menu-edit-open-{mode}", bbox=(app.root.winfo_rootx(), top,
                                                           right, bottom))
        assert str(menu.cget("background")) == colours["background"]
    finally:
        menu.unpost()
    window.theme.apply("light" if mode == "dark" else "dark")      # and back: they follow
    assert str(window.menubar.bar.cget("background")) == menu_colours(window.theme)[
        "background"]


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_keyboard_shortcuts_dialog_lists_the_table(app: App, tmp_path: Path,
                                                   mode: str) -> None:
    app.open_default()
    window = app.window
    window.theme.apply(mode)
    app.root.focus_force()
    app.settle(0.1)
    app.root.event_generate("<F1>")
    app.pump(lambda: window.dialog is not None and window.dialog.winfo_ismapped(),
             "the shortcuts dialog")
    rows = window.dialog.rows
    assert ("Edit", "Undo", "Ctrl+Z") in rows
    assert ("View", "Open in viewer", "Space / Enter") in rows
    assert ("In the viewer", "Zoom at the pointer", "Wheel") in rows
    for action in window.action_table:
        if action.accelerator:
            assert any(keys == action.accelerator for _, _, keys in rows), action.name
    app.shot(tmp_path, f"shortcuts-dialog-{mode}", window.dialog)
    window.dialog.cancel()


def test_every_icon_button_has_a_tooltip_in_the_theme(app: App, tmp_path: Path) -> None:
    app.open_default()
    window = app.window
    buttons = window.toolbar.icon_buttons()
    bar = window.viewer.bar
    buttons += [bar.back, bar.previous, bar.next, bar.zoom_in, bar.zoom_out]
    for button in buttons:
        tip = tooltip_of(button)
        assert tip is not None and tip.words(), str(button)
    undo = window.toolbar.undo_button
    tip = tooltip_of(undo)
    assert tip is not None
    undo.event_generate("<Enter>", x=5, y=5)
    app.pump(lambda: tip.shown, "the tooltip after its delay")
    label = tip.window.winfo_children()[0]  # type: ignore[union-attr]
    assert str(label.cget("background")) == window.theme.palette.toast_bg
    assert "Ctrl+Z" in label.cget("text")
    box = (undo.winfo_rootx() - 260, undo.winfo_rooty() - 10, undo.winfo_rootx() + 260,
           tip.window.winfo_rooty() + tip.window.winfo_height() + 10)  # type: ignore[union-attr]
    app.shot(tmp_path, "tooltip-undo-light", bbox=box)
    undo.event_generate("<Leave>")
    assert not tip.shown


def test_the_docs_key_table_lists_every_shortcut() -> None:
    """Every accelerator of the action table is in docs/window.md's key table (which also
    says where Edit → Undo is: the menu exists now)."""
    from serpent_tk.ui.menus import window_actions as table_module

    page = (ROOT / "docs" / "window.md").read_text(encoding="utf-8")
    table = page.split("| key | does |", 1)[1].split("\n\n", 1)[0]
    source = Path(table_module.__file__).read_text(encoding="utf-8")
    accelerators = set(re.findall(r'accelerator=f?"([^"]+)"', source))
    assert len(accelerators) > 20
    for accelerator in accelerators:
        shown = accelerator.replace("{MOD_NAME}", "Ctrl")
        assert shown in table, f"docs/window.md's key table does not mention {shown}"


def test_menus_offer_what_applies_and_the_asset_menu_tags_rates_and_files(
        app: App, tmp_path: Path) -> None:
    """Menu items that do not apply to the view are left out, not greyed with odd words
    (issue 27: "Remove from 'All assets'", "Rename tag 'All assets'…"); the asset's
    right-click menu tags, rates, renames, moves to a folder and copies to a collection."""
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    keys = [window.pages.cell(i).key for i in range(3)]  # type: ignore[union-attr]
    window.grid.select_keys(keys[:1])
    library = [label for label, _, _ in window.menubar.labels("Library")]
    assert not any(label.startswith(("Remove from", "Rename tag", "Rename “", "Delete tag",
                                     "Edit rules", "Delete folder")) for label in library)
    assert "All assets" not in " ".join(library)
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Skies"})
    app.gateway_call("collection.create", {"libraryId": library_id, "name": "Picks"})
    app.pump(lambda: window.sidebar.tree.exists(f"folder:{folder['id']}") and
             window.sidebar.collections, "the folder and the collection")
    target = window.current_target(tuple(keys[:2]))
    menu = window.asset_context
    assert [label for label, *_ in menu.cascade(target, "Rating")] == [
        "No rating", "★", "★★", "★★★", "★★★★", "★★★★★"]
    dict((label, run) for label, run, *_ in menu.cascade(target, "Rating"))["★★★★"]()
    moves = {label: run for label, run, *_ in menu.cascade(target, "Move to folder")}
    assert list(moves) == ["Unfiled", "Skies"]
    moves["Skies"]()
    copies = {label: run for label, run, *_ in menu.cascade(target, "Copy to collection")}
    copies["Picks"]()
    menu.choose(target, "Tag…")
    dialog = window.asset_menu.dialog
    assert dialog is not None
    dialog.value.set("storm")
    dialog.confirm()

    def done() -> bool:
        items = app.gateway_call("asset.get", {"libraryId": library_id,
                                               "assetIds": keys[:2]})["items"]
        return all(i["rating"] == 4 and i["tags"] == ["storm"] and
                   folder["id"] in i.get("folderIds", [folder["id"]]) for i in items)

    app.pump(done, "rated, tagged and filed")
    picks = app.gateway_call("collection.list", {"libraryId": library_id})["items"]
    assert next(c for c in picks if c["name"] == "Picks")["assetCount"] == 2
    app.pump(lambda: window.sidebar.tree.exists("tag:storm"), "the tag in the sidebar")
    window.sidebar.select("tag:storm")
    app.pump(lambda: window.browser.scope.kind == "tag", "the tag's view")
    library = [label for label, _, _ in window.menubar.labels("Library")]
    assert "Rename tag “storm”…" in library and "Delete tag…" in library
