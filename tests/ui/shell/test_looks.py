"""The window as an artist sees it, light and dark, with a real-looking library: varied
pictures and a few other files, a very long file name, 200 tags, an empty folder, a search
without results, the Trash, the smart-collection editor and the Settings pages.

Every view is saved under test-artifacts/looks-*.png to be looked at; the asserts hold what
can be measured (nothing clipped or squeezed, colours readable on their background)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.conftest import App
from tests.ui.pictures import NAMES, make_library_material, many_tags

pytestmark = pytest.mark.gui

LONG_FOLDER = "Reference photos from the spring field trip to the Dolomites (unsorted)"


def _luminance(colour: str) -> float:
    value = colour.lstrip("#")
    channels = [int(value[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def stock(app: App, tmp_path: Path) -> tuple[str, list[str]]:
    """A library of ~40 files with 200 tags, a folder of its own and an empty folder."""
    library_id = app.open_default()
    window = app.window
    app.pump(lambda: window.empty.kind == "empty", "the first-run hint")
    for mode in ("dark", "light"):
        window.theme.apply(mode)
        app.settle(0.3)
        app.screenshot(f"looks-first-run-{mode}")
    material = make_library_material(tmp_path / "material")
    window.import_paths([str(p) for p in material])
    app.pump(lambda: window.pages.count() == len(material) and not window.importer.busy,
             "the material in the grid", timeout=120)
    keys = [window.pages.cell(i).key for i in range(window.pages.count())]  # type: ignore[union-attr]
    tags = many_tags(200)
    for start in range(0, 200, 50):
        app.gateway_call("asset.tag", {"libraryId": library_id, "tags": tags[start:start + 50],
                                       "assetIds": keys[start // 50::4][:6]})
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys[:12],
                                   "tags": ["reference", "sky"]})
    for n, key in enumerate(keys[:10]):
        app.gateway_call("asset.update", {"libraryId": library_id, "assetId": key,
                                          "rating": n % 5 + 1})
    trips = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Trips"})
    app.gateway_call("folder.create", {"libraryId": library_id, "name": "Empty for now"})
    app.gateway_call("folder.create", {"libraryId": library_id, "name": LONG_FOLDER})
    app.gateway_call("asset.move", {"libraryId": library_id, "assetIds": keys[:5],
                                    "folderId": trips["id"]})
    app.gateway_call("collection.create", {"libraryId": library_id, "name": "Picks"})
    app.gateway_call("collection.create", {"libraryId": library_id, "name": "Rated 4+",
                                           "rules": {"rules": [{"field": "rating",
                                                                "op": "gte", "value": 4}]}})
    app.pump(lambda: window.sidebar.tree.exists("tag:sky"), "the tags in the sidebar")
    app.pump(lambda: len(window.sidebar.tree.get_children("section:tags")) == 202,
             "all the tags in the sidebar")
    return library_id, keys


def show(app: App, iid: str) -> None:
    window = app.window
    window.sidebar.select(iid)
    app.pump(lambda: window.browser.scope.iid == iid and window.pages.known, iid)
    app.settle(0.4)


def test_the_window_with_a_real_library_light_and_dark(app: App, tmp_path: Path) -> None:
    library_id, keys = stock(app, tmp_path)
    window, sidebar, grid = app.window, app.window.sidebar, app.window.grid
    long_name = next(n for n in NAMES if len(n) > 80)
    long_key = next(k for k in keys if window.pages.items_for([k])[0]["name"] == long_name)

    for mode in ("light", "dark"):
        window.theme.apply(mode)
        p = window.theme.palette
        for fg, bg in ((p.text, p.background), (p.text_muted, p.background),
                       (p.text, p.surface), (p.accent, p.background),
                       (p.toast_text, p.toast_bg), (p.text, p.selection),
                       (p.danger, p.background), (p.text_muted, p.surface)):
            assert contrast(fg, bg) >= 4.5, (mode, fg, bg)
        show(app, "all")
        grid.select_keys([keys[6]])
        app.pump(lambda: window.inspector.has_preview, "the preview")
        app.screenshot(f"looks-main-{mode}")

        # the long name: the grid cell cuts it at the end, the inspector wraps it
        index = window.pages.index_of(long_key)
        assert index is not None
        grid.ensure_visible(index)
        grid.select_keys([long_key])
        app.pump(lambda: window.inspector.asset is not None and
                 window.inspector.asset["id"] == long_key, "the long-named asset")
        app.settle(0.3)
        title = window.inspector.title
        assert title.winfo_reqwidth() <= window.inspector_holder.winfo_width(), \
            "the inspector's title runs off the panel"
        cell = next(c for c in grid._cells.values() if c.shown and c.shown[0] == long_key)
        shown_title = grid.canvas.itemcget(cell.title, "text")
        assert shown_title.endswith("…") and long_name.startswith(shown_title[:-1].strip())
        x0, _, x1, _ = grid.canvas.bbox(cell.title)
        assert x1 - x0 <= grid.cell_w
        app.screenshot(f"looks-long-name-{mode}")

        # 200 tags: the sidebar scrolls, counts stay in their column
        sidebar.tree.see("tag:sky")
        app.settle(0.2)
        app.screenshot(f"looks-sidebar-200-tags-{mode}", sidebar)
        sidebar.tree.see("all")

        # several selected: partial tags
        grid.select_keys(keys[:5])
        app.pump(lambda: window.inspector.many, "the multi-selection")
        app.settle(0.2)
        app.screenshot(f"looks-multi-select-{mode}")

        # a name longer than the sidebar ends in "…" before the numbers
        folders = {sidebar.scope(i).label: i for i in sidebar.tree.get_children(
            "section:folders") if sidebar.scope(i)}
        long_row = sidebar.tree.item(folders[LONG_FOLDER], "text")
        assert long_row.endswith("…") and LONG_FOLDER.startswith(long_row[:-1].rstrip())
        font = window.theme.font("SunValleyBodyFont")
        assert font.measure(long_row) < int(sidebar.tree.column("#0", "width"))

        show(app, folders["Empty for now"])
        assert window.empty.kind == "view"
        assert window.empty.title.cget("text") == "This folder is empty"
        app.screenshot(f"looks-empty-folder-{mode}")

        rated = next(i for i in sidebar.tree.get_children("section:smart")
                     if i.startswith("collection:"))
        show(app, rated)
        assert window.banner.shown == "Smart collection"
        assert window.banner.text.cget("text") == "Rating is at least 4 stars"
        app.screenshot(f"looks-smart-collection-{mode}")

        show(app, "all")
        window.search.set("zebra crossing")
        app.pump(lambda: window.pages.known and window.pages.count() == 0 and
                 window.empty.kind == "no-match", "no results")
        app.settle(0.3)
        app.screenshot(f"looks-search-no-results-{mode}")
        window.search.clear()

        show(app, "trash")
        assert window.empty.kind == "trash"
        app.screenshot(f"looks-trash-empty-{mode}")

        window.open_settings("mcp")
        settings = window.settings_window
        assert settings is not None
        app.settle(0.4)
        app.screenshot(f"looks-settings-mcp-{mode}", settings)
        settings.show_page("general")
        app.settle(0.4)
        app.screenshot(f"looks-settings-general-{mode}", settings)
        settings.destroy()

        window.sidebar_menu.smart_collection(None)
        dialog = window.sidebar_menu.dialog
        app.settle(0.6)
        app.screenshot(f"looks-smart-editor-{mode}", dialog)
        dialog.cancel()  # type: ignore[union-attr]

    app.gateway_call("asset.trash", {"libraryId": library_id, "assetIds": keys[-6:]})
    show(app, "trash")
    app.pump(lambda: window.pages.count() == 6, "the Trash with six things")
    assert window.banner.shown == "Trash"
    assert window.banner.button.winfo_ismapped()     # Empty Trash…
    grid.select_keys([keys[-1]])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    app.settle(0.3)
    app.screenshot("looks-trash-dark")
    window.theme.apply("light")
    app.settle(0.3)
    app.screenshot("looks-trash-light")
