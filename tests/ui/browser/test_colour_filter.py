"""The colour filter in the window (issue 27: Blue at "Similar" found 5 of the 15 mostly-blue
pictures, "Loose" found teal too): Blue from the search bar's menu, with its defaults, shows
the mostly-blue pictures and no teal one; "covers at least" and "how close" change that;
the smart-collection rule offers the same two controls and saves them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.library.files.test_colour_match import BLUES, OTHERS, TEALS, a_touch_of_blue, mostly
from tests.ui.conftest import App

pytestmark = pytest.mark.gui


def shown_names(app: App) -> set[str]:
    pages = app.window.pages
    return {c.title for i in range(pages.count()) if (c := pages.cell(i)) is not None}


def test_blue_finds_the_mostly_blue_pictures_and_not_the_teal_ones(app: App,
                                                                   tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    folder = tmp_path / "colours"
    folder.mkdir()
    for n, main in enumerate(BLUES):
        mostly(folder / f"blue {n:02d}.png", main, BLUES[(n + 5) % len(BLUES)])
    for n, main in enumerate(TEALS):
        mostly(folder / f"teal {n:02d}.png", main, TEALS[(n + 3) % len(TEALS)])
    for n, main in enumerate(OTHERS):
        a_touch_of_blue(folder / f"other {n:02d}.png", main)
    window.import_paths([str(folder)])
    total = len(BLUES) + len(TEALS) + len(OTHERS)
    app.pump(lambda: window.pages.count() == total and not window.importer.busy,
             "the pictures", timeout=120)
    app.wait_for_import_analysis(library_id, timeout=240)
    blue = {f"blue {n:02d}" for n in range(len(BLUES))}

    colour = window.search.color
    menu = colour.menu
    labels = [menu.entrycget(i, "label").strip() for i in range(int(menu.index("end")) + 1)]
    menu.invoke(labels.index("Blue"))
    assert colour.closeness.cget("text") == "Similar · ≥ 30 %"
    app.pump(lambda: window.pages.known and shown_names(app) == blue, "the blue ones")
    app.shot(tmp_path, "colour-filter-blue")

    colour.set_share(0.05)                       # covers at least 5 %: a touch of blue too
    app.pump(lambda: window.pages.known and shown_names(app) == blue | {
        f"other {n:02d}" for n in range(len(OTHERS))}, "a touch of blue too")
    colour.set_share(0.3)
    colour.set_tolerance("Exact")
    app.pump(lambda: window.pages.known and shown_names(app) < blue, "only close blues")
    assert "blue 06" in shown_names(app)          # azure, next to the Blue asked
    colour.clear()
    app.pump(lambda: window.pages.known and window.pages.count() == total, "all again")

    window.sidebar_menu.smart_collection(None)
    dialog = window.sidebar_menu.dialog
    dialog.name_var.set("Blue ones")  # type: ignore[union-attr]
    row = dialog.rows[0]  # type: ignore[union-attr]
    row.choose("color")
    row.value.var.set("#1e88e5")  # type: ignore[attr-defined]
    assert row.value.closeness.get() == "Similar" and row.value.covers.get() == "≥ 30 %"  # type: ignore[attr-defined]
    app.pump(lambda: dialog.preview.cget("text") == "15 assets match", "the live count")  # type: ignore[union-attr]
    app.shot(tmp_path, "colour-rule", dialog)  # type: ignore[arg-type]
    dialog.confirm()  # type: ignore[union-attr]
    app.pump(lambda: any(c["name"] == "Blue ones" for c in window.sidebar.collections.values()),
             "the smart collection")
    saved = next(c for c in window.sidebar.collections.values() if c["name"] == "Blue ones")
    assert saved["rules"]["rules"][0]["value"] == {"color": "#1e88e5", "tolerance": 44.0,
                                                   "minRatio": 0.3}
    assert saved["assetCount"] == 15
