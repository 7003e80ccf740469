"""The window in 简体中文: its main views, menus and dialogs show no English word and no
character without a glyph, in a font with Simplified Chinese shapes (screenshots of each are
saved under test-artifacts/zh-*.png); and Settings → General → Language switches the
window's language without losing what it shows."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Iterator
from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.actions.studio_move import ask_move_to_studio
from serpent_tk.ui.browser.layouts import choice as layout_choice
from serpent_tk.ui.language import font_families, translate
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.menus.menubar import fill
from serpent_tk.ui.shell.theme import FONT_BODY
from tests.ui.conftest import App, make_images
from tests.ui.language.shown_words import english_words, missing_glyphs, texts_of

pytestmark = pytest.mark.gui

FOLDER, TAG, COLLECTION, SMART = "天空", "晚霞", "精选", "四星以上"


@pytest.fixture
def in_chinese() -> Iterator[None]:
    """The settings say 简体中文 before the window is built (listed before `app`)."""
    store = SettingsStore(app_dirs().ensure().settings_file)
    store.update(lambda s: setattr(s.ui, "language", "zh_CN"))
    yield
    translate.use("en")


def check(app: App, tmp_path: Path, name: str, widget: object = None,
          skip: tuple[object, ...] = ()) -> None:
    """Screenshot `widget` (the window; a menu: opened over the window) as zh-<name>.png,
    and hold its words."""
    app.settle(0.3)
    if isinstance(widget, tk.Menu):
        x, y = app.root.winfo_rootx() + 40, app.root.winfo_rooty() + 10
        widget.post(x, y)
        app.settle(0.3)
        try:
            app.shot(tmp_path, f"zh-{name}", bbox=(
                x, y, x + widget.winfo_width(), y + widget.winfo_height()))
        finally:
            widget.unpost()
    else:
        app.shot(tmp_path, f"zh-{name}", widget)  # type: ignore[arg-type]
    texts = texts_of(widget or app.root, skip=skip)  # type: ignore[arg-type]
    assert texts, name
    english = english_words(texts)
    assert not english, f"{name}: English words {english[:12]}"
    missing = missing_glyphs(texts)
    assert not missing, f"{name}: no font can draw {sorted(missing)}"


def stock(app: App, tmp_path: Path) -> tuple[str, list[str]]:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "素材", 8, prefix="草图"))
    window = app.window
    keys = [window.pages.cell(i).key for i in range(window.pages.count())]  # type: ignore[union-attr]
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": FOLDER})
    app.gateway_call("asset.move", {"libraryId": library_id, "assetIds": keys[:3],
                                    "folderId": folder["id"]})
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys[:4],
                                   "tags": [TAG]})
    app.gateway_call("collection.create", {"libraryId": library_id, "name": COLLECTION})
    app.gateway_call("collection.create", {"libraryId": library_id, "name": SMART,
                                           "rules": {"rules": [{"field": "rating",
                                                                "op": "gte", "value": 4}]}})
    app.gateway_call("asset.update", {"libraryId": library_id, "assetId": keys[0],
                                      "rating": 4, "notes": "傍晚的云"})
    app.pump(lambda: window.sidebar.tree.exists(f"tag:{TAG}"), "the tag in the sidebar")
    return library_id, keys


def show(app: App, iid: str) -> None:
    window = app.window
    window.sidebar.select(iid)
    app.pump(lambda: window.browser.scope.iid == iid and window.pages.known, iid)


def test_every_main_view_menu_and_dialog_in_chinese(in_chinese: None, app: App,
                                                    tmp_path: Path) -> None:
    window = app.window
    assert translate.current() == "zh_CN"
    family = window.theme.font(FONT_BODY).actual("family")
    assert family in font_families.chain("zh_CN"), f"the window's text is set in {family}"
    window.start()
    app.pump(lambda: window.empty.kind == "empty", "the empty library")
    check(app, tmp_path, "empty-library")
    library_id, keys = stock(app, tmp_path)

    window.grid.select_keys([keys[0]])
    app.pump(lambda: window.inspector.asset is not None and window.inspector.has_preview,
             "the inspector")
    check(app, tmp_path, "main")
    assert "全部素材" in texts_of(window.sidebar)
    window.grid.select_keys(keys[:3])
    app.pump(lambda: window.inspector.many, "several selected")
    check(app, tmp_path, "several-selected")

    # the other layouts: the list's headings and columns, the justified grid
    layout_choice.set_layout(window, "list")
    app.pump(lambda: window.grid.header.headings() and any(
        c.shown for c in window.grid._cells.values()), "the list")
    assert window.grid.header.headings()[0] == "名称"
    check(app, tmp_path, "list")
    layout_choice.set_layout(window, "justified")
    app.pump(lambda: any(c.shown for c in window.grid._cells.values()), "the justified grid")
    check(app, tmp_path, "justified")
    layout_choice.set_layout(window, "grid")
    # a narrow window: what steps aside is in the toolbar's ⋯ menu
    app.root.minsize(400, 300)
    app.root.geometry("800x560")
    app.pump(lambda: window.toolbar.hidden_for_room, "the toolbar making room")
    check(app, tmp_path, "main-800x560")
    app.root.geometry("1400x860")
    app.settle(0.3)

    for name in ("File", "Edit", "View", "Library", "Help"):
        check(app, tmp_path, f"menu-{name.lower()}", window.menubar.refresh(name))
    window.grid.select_keys([keys[0]])
    target = window.current_target()
    assert window.asset_context.entries(target)
    menu = themed_menu(app.root, window.theme)
    fill(menu, window.theme, window.asset_context.actions, target, only_available=True)
    check(app, tmp_path, "menu-asset-right-click", menu)
    menu.destroy()

    folder_iid = next(i for i in window.sidebar.tree.get_children("section:folders")
                      if i.startswith("folder:"))
    show(app, folder_iid)
    check(app, tmp_path, "folder")
    smart = next(i for i in window.sidebar.tree.get_children("section:smart")
                 if i.startswith("collection:"))
    show(app, smart)
    assert window.banner.shown == "智能集合"
    check(app, tmp_path, "smart-collection")
    window.sidebar_menu.smart_collection(window.browser.scope)
    dialog = window.sidebar_menu.dialog
    app.pump(lambda: "匹配" in str(dialog.preview.cget("text")), "the live count")  # type: ignore[union-attr]
    check(app, tmp_path, "smart-collection-editor", dialog)
    dialog.cancel()  # type: ignore[union-attr]

    show(app, "all")
    window.search.set("不存在的东西")
    app.pump(lambda: window.empty.kind == "no-match", "no results")
    check(app, tmp_path, "no-results")
    window.search.clear()
    app.gateway_call("asset.trash", {"libraryId": library_id, "assetIds": keys[-2:]})
    show(app, "trash")
    app.pump(lambda: window.pages.count() == 2, "the Trash")
    window.grid.select_keys([keys[-1]])
    app.pump(lambda: window.inspector.asset is not None, "a trashed asset")
    check(app, tmp_path, "trash")

    show(app, "all")
    window.open_viewer([keys[1]])
    app.pump(lambda: window.viewer.is_open and window.viewer.picture.shown, "the viewer")
    check(app, tmp_path, "viewer")
    window.full_screen.start_slideshow()                # full screen, with what S and Esc do
    app.pump(lambda: window.full_screen.slideshow, "the slideshow")
    check(app, tmp_path, "slideshow")
    window.full_screen.leave()
    window.close_viewer()

    # Ctrl+V with only words on the clipboard: the window says why nothing came in
    app.root.clipboard_clear()
    app.root.clipboard_append("只是几个字")
    window.grid.canvas.focus_force()
    app.root.update()
    window.grid.canvas.event_generate("<Control-v>")
    app.pump(lambda: any("剪贴板里没有可导入的图片或文件" in t for t in window.toasts.texts()),
             "the paste warning")
    check(app, tmp_path, "paste-warning")
    window.asset_menu.ask_tag([keys[0], keys[1]])
    check(app, tmp_path, "tag-assets", window.asset_menu.dialog)
    window.asset_menu.dialog.cancel()  # type: ignore[union-attr]

    window.open_settings("mcp")
    settings = window.settings_window
    assert settings is not None
    paste_hint = settings.mcp.connect.paste_hint if settings.mcp else None
    check(app, tmp_path, "settings-mcp", settings, skip=(paste_hint,) if paste_hint else ())
    for page in ("general", "plugins"):
        settings.show_page(page)
        check(app, tmp_path, f"settings-{page}", settings)
    settings.destroy()

    window.show_shortcuts()
    check(app, tmp_path, "keyboard-shortcuts", window.dialog)
    window.dialog.cancel()
    window.show_about()
    check(app, tmp_path, "about", window.dialog)
    window.dialog.cancel()
    window.sidebar_menu.new_folder(None)
    check(app, tmp_path, "new-folder", window.sidebar_menu.dialog)
    window.sidebar_menu.dialog.cancel()  # type: ignore[union-attr]
    window.sidebar_menu.delete_tag(window.sidebar.scope(f"tag:{TAG}"))  # type: ignore[arg-type]
    check(app, tmp_path, "delete-tag", window.sidebar_menu.dialog)
    window.sidebar_menu.dialog.cancel()  # type: ignore[union-attr]
    app.gateway_call("library.rename", {"libraryId": library_id, "name": "参考图"})
    app.pump(lambda: (window.session.current or {}).get("name") == "参考图", "the new name")
    moving = ask_move_to_studio(window)  # Library menu → Move to a studio server…
    check(app, tmp_path, "move-to-studio", moving,  # (its folder's path, as it is on disk)
          skip=(moving.folder_label,) if moving else ())
    moving.cancel()  # type: ignore[union-attr]
    window.finding.open_duplicates()
    duplicates = window.finding.duplicates
    app.pump(lambda: duplicates is not None and not duplicates.review.state.loading,
             "the duplicates review")
    check(app, tmp_path, "duplicates", duplicates)
    duplicates.close()  # type: ignore[union-attr]


def test_switching_the_language_keeps_what_the_window_shows(app: App, tmp_path: Path) -> None:
    """Settings → General → 简体中文: the menus, sidebar and inspector speak Chinese at once,
    and the library, the folder shown, the search, the selection and the Settings page
    are still there (nothing is opened again); English again the same way."""
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 6, prefix="sky"))
    window = app.window
    keys = [window.pages.cell(i).key for i in range(window.pages.count())]  # type: ignore[union-attr]
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Skies"})
    app.gateway_call("asset.move", {"libraryId": library_id, "assetIds": keys[:4],
                                    "folderId": folder["id"]})
    iid = f"folder:{folder['id']}"
    app.pump(lambda: window.sidebar.tree.exists(iid), "the folder row")
    show(app, iid)
    window.search.set("sky")
    app.pump(lambda: window.pages.known and window.pages.count() == 4, "the search")
    window.grid.select_keys([keys[1]])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    window.open_settings("general")
    general = window.settings_window.general  # type: ignore[union-attr]
    sent = app.spy_on_commands()

    general.language_buttons["zh_CN"].invoke()
    new = app.services.window
    assert new is not None and new is not window
    app.pump(lambda: new.pages.known and new.grid.selected_keys() == [keys[1]],
             "the same selection in the rebuilt window")
    try:
        assert "library.open" not in sent and "library.create" not in sent
        assert new.session.library_id == library_id
        assert new.browser.scope.iid == iid and new.sidebar.current.iid == iid
        assert new.search.text == "sky" and new.pages.count() == 4
        assert [label for label, _, _ in new.menubar.labels("File")][0] == "新建资源库…"
        assert new.menubar.bar.entrycget(0, "label") == "文件"
        app.pump(lambda: new.inspector.asset is not None, "the inspector again")
        assert new.inspector.rating_label.cget("text") == "评分"
        assert new.settings_window is not None and new.settings_window.page() == "general"
        app.pump(lambda: SettingsStore(app_dirs().settings_file).load().settings.ui.language
                 == "zh_CN", "the language saved for the next start (saved in the background)")
        app.shot(tmp_path, "zh-switched", new.root)

        new.settings_window.general.language_buttons["en"].invoke()
        again = app.services.window
        assert again is not None and again is not new
        app.pump(lambda: again.pages.known and again.grid.selected_keys() == [keys[1]],
                 "the selection in English again")
        assert again.menubar.bar.entrycget(0, "label") == "File"
        assert again.browser.scope.iid == iid and again.search.text == "sky"
    finally:
        app.window = app.services.window  # type: ignore[assignment]
        translate.use("en")
