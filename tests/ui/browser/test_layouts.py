"""Denser work (issue 27): the grid as a list with columns (name, kind, size, dimensions,
rating, tags, added) whose headings sort, and as a justified grid of pictures at their own
proportions; names cut at the end; the layout remembered. Screenshots under
test-artifacts/layout-*.png."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from tests.ui.conftest import App, make_images
from tests.ui.pictures import make_library_material

pytestmark = pytest.mark.gui


def stock(app: App, tmp_path: Path, count: int = 24) -> tuple[str, list[str]]:
    library_id = app.open_default()
    window = app.window
    material = make_library_material(tmp_path / "material", count)
    window.import_paths([str(p) for p in material])
    app.pump(lambda: window.pages.count() == len(material) and not window.importer.busy,
             "the material in the grid", timeout=120)
    keys = [window.pages.cell(i).key for i in range(window.pages.count())]  # type: ignore[union-attr]
    return library_id, keys


def row_words(app: App, key: str) -> list[str]:
    """What the list's row of `key` shows, left to right."""
    grid = app.window.grid
    cell = next(c for c in grid._cells.values() if c.shown and c.shown[0] == key)
    canvas = grid.canvas
    items = [cell.title, *cell.columns]
    shown = [i for i in items if canvas.itemcget(i, "state") != "hidden"]
    return [canvas.itemcget(i, "text") for i in sorted(shown, key=lambda i: canvas.coords(i)[0])]


def test_the_list_shows_columns_that_sort_and_is_remembered(app: App, tmp_path: Path) -> None:
    library_id, keys = stock(app, tmp_path)
    window = app.window
    grid = window.grid
    item = next(window.pages.item(i) for i in range(len(keys))
                if window.pages.item(i)["ext"] == "png")  # type: ignore[index]
    assert item is not None
    key = item["id"]
    app.gateway_call("asset.update", {"libraryId": library_id, "assetId": key, "rating": 3})
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": [key],
                                   "tags": ["sky", "reference"]})
    view = {label for label, _keys, _state in window.menubar.labels("View")}
    assert {"Thumbnails", "Justified", "List"} <= view
    next(a for a in window.action_table if a.name == "view.layout-list").run(
        window.current_target())
    assert grid.mode == "list"
    app.pump(lambda: any(c.shown and c.shown[0] == key for c in grid._cells.values())
             and "★★★" in row_words(app, key), "the row with its rating")
    assert grid.header.winfo_ismapped()
    assert grid.header.headings()[:1] == ["Name"]
    assert set(grid.header.headings()) >= {"Name", "Kind", "Size", "Dimensions", "Rating",
                                            "Tags", "Added ↓"}
    words = row_words(app, key)
    assert words[0] == item["name"]
    assert words[1].startswith("PNG")                       # kind
    assert any(w.endswith(("KB", "kB", "MB")) for w in words)   # size, in the locale's words
    assert f"{item['width']} × {item['height']}" in words
    assert "★★★" in words and "reference, sky" in words or "sky, reference" in words
    # rows are one line each: many more on screen than thumbnails would be
    first, last = grid.visible_range()
    assert last - first + 1 >= 20
    app.shot(tmp_path, "layout-list", window.middle)

    # a click on the Name heading sorts by name; again: the other way
    grid.header.click("name")
    app.pump(lambda: window.browser.sort == "name-asc" and window.pages.known, "name order")
    assert window.toolbar.sort.sort == "name-asc"
    app.pump(lambda: grid.header.headings()[0] == "Name ↑", "the arrow on Name")
    names = [window.pages.item(i)["name"] for i in range(len(keys))]  # type: ignore[index]
    assert names == sorted(names, key=str.casefold)
    grid.header.click("name")
    app.pump(lambda: window.browser.sort == "name-desc" and window.pages.known
             and window.pages.cell(0) is not None, "name, the other way")
    grid.header.click("kind")                                 # the library cannot: no change
    assert window.browser.sort == "name-desc"

    # Up and Down move a row at a time
    grid.select_keys([window.pages.cell(0).key])  # type: ignore[union-attr]
    grid.canvas.focus_force()
    grid.canvas.event_generate("<Down>")
    assert grid.selected_keys() == [window.pages.cell(1).key]  # type: ignore[union-attr]

    # in a narrow window the tags and dimensions give way rather than every word being cut
    app.root.minsize(400, 300)
    app.root.geometry("800x560")
    app.pump(lambda: grid.header.headings() and "Tags" not in grid.header.headings(),
             "a narrower list")
    assert "Name ↓" in grid.header.headings()
    app.shot(tmp_path, "layout-list-800", window.middle)

    stored = SettingsStore(app_dirs().settings_file)
    app.pump(lambda: stored.load().settings.ui.layout == "list", "the layout saved")


def test_the_justified_grid_fills_each_row_with_pictures_at_their_shape(
        app: App, tmp_path: Path) -> None:
    _library_id, keys = stock(app, tmp_path)
    window = app.window
    grid = window.grid
    window.toolbar.actions.layout("justified")
    assert grid.mode == "justified" and window.toolbar.layout_button.cget("text") == "▤"
    window.zoom_step(-2)
    app.pump(lambda: window.pages.known and len(grid._cells) == len(keys),
             "every cell on screen")
    arrangement = grid.arrangement
    right = grid.canvas.winfo_width() - grid.margin
    rows = arrangement.rows()
    assert rows >= 2
    for row in range(rows - 1):                        # every row but the last: edge to edge
        first, last = arrangement.row_span(row)
        x, _y, w, _h = arrangement.box(last)
        assert abs(x + w - right) < 2, f"row {row} ends at {x + w}, not {right}"
        assert arrangement.box(first)[0] == pytest.approx(grid.margin)
    for index in range(len(keys)):                     # each picture at its own shape
        item = window.pages.item(index)
        assert item is not None
        _x, _y, w, h = arrangement.box(index)
        if item.get("width") and item.get("height"):
            inner = (w - 2 * grid.pad) / (h - 2 * grid.pad)
            assert inner == pytest.approx(item["width"] / item["height"], rel=0.02)

    def pictures_in() -> bool:
        return all(c.shown and c.shown[5] is not None for c in grid._cells.values()
                   if c.shown and window.pages.item(c.index)["kind"] == "image")  # type: ignore[index]

    app.pump(pictures_in, "the pictures")
    app.shot(tmp_path, "layout-justified", window.middle)
    # a click selects what is under the pointer; Down goes to the row below
    x, y, w, h = arrangement.box(3)
    click_x, click_y = int(x + w / 2), int(y - grid._top + h / 2)
    grid.canvas.event_generate("<ButtonPress-1>", x=click_x, y=click_y)
    grid.canvas.event_generate("<ButtonRelease-1>", x=click_x, y=click_y)
    app.settle(0.1)
    assert grid.selected_keys() == [keys[3]]
    grid.canvas.focus_force()
    grid.canvas.event_generate("<Down>")
    below = grid.selected_keys()[0]
    assert arrangement.row_of(keys.index(below)) == arrangement.row_of(3) + 1


def test_small_cells_cut_names_at_the_end(app: App, tmp_path: Path) -> None:
    """A name too long for its cell keeps its start ("sunset-over-the-bay-fin…"), as file
    browsers show it; the middle cut made names that differ at their start look alike."""
    app.open_default()
    window = app.window
    long_name = "sunset-over-the-bay-final-version-for-the-client"
    picture = make_images(tmp_path / "long", 1, prefix=long_name)[0]
    window.import_paths([str(picture)])
    app.pump(lambda: window.pages.count() == 1 and not window.importer.busy, "the picture")
    window.zoom_step(-10)                                    # the smallest cells
    grid = window.grid

    def title() -> str:
        cell = next((c for c in grid._cells.values() if c.shown), None)
        return str(grid.canvas.itemcget(cell.title, "text")) if cell is not None else ""

    app.pump(lambda: title().endswith("…"), "the shortened name")
    shown = title()
    assert long_name.startswith(shown[:-1].rstrip()) and len(shown) > 4, shown
    app.shot(tmp_path, "layout-names-cut-at-the-end", window.middle)
