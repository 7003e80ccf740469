"""Collections in the window: dragging assets onto a hand-picked collection, seeing it in its
own order, removing from it, and opening or showing files without the window knowing how
the library stores them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def drag_onto(app: App, keys: list[str], iid: str) -> None:
    sidebar, grid = app.window.sidebar, app.window.grid
    grid.select_keys(keys)
    sidebar.tree.see(iid)
    app.settle(0.1)
    x, y, w, h = sidebar.tree.bbox(iid)  # type: ignore[misc]
    x_root = sidebar.tree.winfo_rootx() + x + w // 2
    y_root = sidebar.tree.winfo_rooty() + y + h // 2
    grid.on_drag(keys, "motion", x_root, y_root)  # type: ignore[misc]
    assert str(grid.canvas.cget("cursor")) == "hand2"
    grid.on_drag(keys, "drop", x_root, y_root)  # type: ignore[misc]


def shown_keys(app: App) -> list[str]:
    pages = app.window.pages
    return [pages.cell(i).key for i in range(pages.count())]  # type: ignore[union-attr]


def menu_action(app: App, keys: list[str], label: str):  # type: ignore[no-untyped-def]
    """The right-click menu's entry `label` for `keys` (built from the action table)."""
    window = app.window
    target = window.current_target(tuple(keys))
    assert any(e.startswith(label) for e in window.asset_context.entries(target)), label
    return lambda: window.asset_context.choose(target, label)


def test_drag_into_a_collection_view_it_in_order_and_remove(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 5))
    window, sidebar = app.window, app.window.sidebar
    keys = shown_keys(app)
    app.pump(lambda: sidebar.tree.exists("action:new-collection"), "the New collection row")
    sidebar.tree.selection_set("action:new-collection")
    app.pump(lambda: window.sidebar_menu.dialog is not None, "the name dialog")
    window.sidebar_menu.dialog.value.set("Picks")  # type: ignore[union-attr]
    window.sidebar_menu.dialog.confirm()  # type: ignore[union-attr]
    app.pump(lambda: sidebar.tree.get_children("section:collections")[:1] != () and
             sidebar.tree.get_children("section:collections")[0].startswith("collection:"),
             "the collection in the sidebar")
    iid = sidebar.tree.get_children("section:collections")[0]

    picked = [keys[3], keys[0], keys[4]]            # not the grid's order
    drag_onto(app, picked, iid)
    app.pump(lambda: sidebar.tree.set(iid, "count") == "3", "the collection's count")
    assert any("Added 3 assets to “Picks”" in t for t in window.toasts.texts())

    sidebar.select(iid)
    app.pump(lambda: window.browser.scope.iid == iid and window.pages.known
             and window.pages.count() == 3, "the collection's assets")
    assert shown_keys(app) == picked                # the order they were added in
    assert window.sort.get() == "Collection order"
    app.screenshot("collection-view")

    menu_action(app, [keys[0]], "Remove from “Picks”")()
    app.pump(lambda: shown_keys(app) == [keys[3], keys[4]], "the asset gone from the view")
    app.pump(lambda: sidebar.tree.set(iid, "count") == "2",  # recounted after the change
             "the collection's count after the removal")
    assert app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [keys[0]]}
                            )["items"][0]["trashed"] is False      # still in the library
    window.actions.undo()
    app.pump(lambda: shown_keys(app) == picked, "the asset back in its place after undo")

    window.sort.current(window.sort.cget("values").index("Name A–Z"))
    window.sort.event_generate("<<ComboboxSelected>>")
    app.pump(lambda: window.browser.sort == "name-asc" and window.pages.known and
             shown_keys(app) == sorted(picked, key=lambda k: next(
                 i["name"] for i in window.pages.items_for([k]))), "sorted by name")
    sidebar.select("all")
    app.pump(lambda: window.browser.scope.iid == "all", "all assets")
    assert "Collection order" not in window.sort.cget("values")
    assert window.sort.get() == "Name A–Z"           # the person's own choice stays

    # dropping onto a smart collection explains instead of failing
    smart = app.gateway_call("collection.create", {"libraryId": library_id, "name": "PNGs",
                                                   "rules": {"rules": [{
                                                       "field": "ext", "op": "is",
                                                       "value": "png"}]}})
    app.pump(lambda: sidebar.tree.exists(f"collection:{smart['id']}"), "the smart one")
    drag_onto(app, [keys[1]], f"collection:{smart['id']}")
    app.pump(lambda: any("is a smart collection" in t for t in window.toasts.texts()),
             "the explanation")


def test_open_and_show_in_folder_use_the_file_the_library_names(app: App,
                                                                tmp_path: Path) -> None:
    library_id = app.open_default()
    source = make_images(tmp_path / "refs", 1, prefix="portrait")[0]
    app.import_images([source])
    window = app.window
    key = window.grid.source.cell(0).key  # type: ignore[union-attr]
    stored = Path(app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [key]}
                                   )["items"][0]["filePath"])
    library_path = Path(window.session.current["path"])  # type: ignore[index]
    assert stored.is_file() and library_path in stored.parents

    opened: list[Path] = []
    revealed: list[Path] = []
    window.actions.launch = opened.append
    window.actions.reveal = revealed.append
    menu_action(app, [key], "Open with system app")()
    menu_action(app, [key], "Show in folder")()
    app.pump(lambda: opened and revealed, "the file handed to the system")
    assert revealed == [stored]
    assert opened[0].name == "portrait-00.png"
    assert opened[0].read_bytes() == source.read_bytes()
    assert library_path not in opened[0].parents    # a copy: viewers never touch the store

    # the inspector has the same two buttons
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    assert window.inspector.show_button.winfo_ismapped()
    window.inspector_holder.canvas.yview_moveto(1.0)
    app.settle(0.2)
    buttons = window.inspector.buttons
    shown = [(b.cget("text"), b.winfo_x(), b.winfo_width(), b.winfo_reqwidth())
             for b in buttons.winfo_children() if b.winfo_ismapped()]
    assert all(x + w <= buttons.winfo_width() and w >= req for _, x, w, req in shown), \
        ("a button is cut off", buttons.winfo_width(), shown)
    app.screenshot("inspector-single-buttons", window.inspector_holder)

    # a file gone missing behind the library's back: said in words, no internal path
    from serpent_tk.ui.actions.asset_actions import reveal_in_file_manager

    window.actions.reveal = reveal_in_file_manager
    stored.unlink()
    window.inspector.show_button.invoke()
    app.pump(lambda: any(t.startswith("Could not show it") for t in window.toasts.texts()),
             "the error toast")
    text = next(t for t in window.toasts.texts() if t.startswith("Could not show it"))
    assert "missing" in text
    assert str(library_path) not in text and "files/" not in text
