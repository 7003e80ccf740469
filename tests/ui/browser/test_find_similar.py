"""Find similar images (right-click one image, or the Library menu in the viewer): the grid
shows it and the images that look like it, closest first, under a "Similar to …" banner
whose Back button (or any sidebar row, or a search) goes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.library.planted import write
from tests.ui.conftest import App

pytestmark = pytest.mark.gui


def names(app: App) -> list[str]:
    pages = app.window.pages
    return [c.title for i in range(pages.count()) if (c := pages.cell(i)) is not None]


def key_of(app: App, name: str) -> str:
    pages = app.window.pages
    return next(c.key for i in range(pages.count())
                if (c := pages.cell(i)) is not None and c.title == name)


def test_similar_images_in_the_grid_and_back(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    window = app.window
    planted = write(tmp_path / "planted", groups=2, decoys=1)
    app.import_images([p.path for p in planted])
    app.wait_for_import_analysis(library_id)

    original = key_of(app, "g00-original")
    window.grid.select_keys([original])
    target = window.current_target()
    assert "Find similar images" in window.asset_context.entries(target)
    action = next(a for a in window.action_table if a.name == "library.find-similar")
    action.run(target)
    app.pump(lambda: window.browser.scope.kind == "similar" and window.pages.known,
             "the similar view")
    shown = names(app)
    assert shown[0] == "g00-original"                        # the image itself first
    copies = sorted(p.path.stem for p in planted if p.group == "g00" and p.variant != "original")
    assert len(copies) >= 4 and sorted(shown[1:]) == copies  # resized, cropped, turned ...
    assert window.banner.shown == "Similar to “g00-original”"
    assert f"{len(copies)} images that look like it" in str(window.banner.text.cget("text"))
    assert window.sidebar.tree.selection() == ()             # no sidebar row is this view
    assert window.sort.get() == "Closest first" and window.sort.instate(["disabled"])
    app.shot(tmp_path, "similar-view", window.root)

    window.banner.button.invoke()                            # "Back to All assets"
    app.pump(lambda: window.browser.scope.kind == "all" and window.pages.known and
             window.pages.count() == len(planted), "back to every asset")
    assert window.banner.shown == ""
    assert window.sort.get() == "Newest first" and not window.sort.instate(["disabled"])

    # from the viewer: the Library menu acts on the picture shown
    other = key_of(app, "g01-original")
    window.open_viewer([other])
    app.pump(lambda: window.viewer.is_open, "the viewer")
    action.run(window.current_target())
    app.pump(lambda: window.browser.scope.kind == "similar" and window.pages.known
             and names(app)[:1] == ["g01-original"], "similar to the viewed one")
    assert not window.viewer.is_open
    assert all(n.startswith("g01-") for n in names(app)) and len(names(app)) == len(copies) + 1

    # a search searches the library again
    window.search.set("g00")
    app.pump(lambda: window.browser.scope.kind == "all" and window.pages.known and
             sorted(names(app)) == sorted(n for n in (p.path.stem for p in planted)
                                          if n.startswith("g00")), "the search")

    # a flat colour has nothing like it: the banner says so
    window.search.clear()
    app.pump(lambda: window.pages.known and window.pages.count() == len(planted), "all")
    window.grid.select_keys([key_of(app, "flat-00")])
    action.run(window.current_target())
    app.pump(lambda: window.browser.scope.kind == "similar" and window.pages.known,
             "the flat colour's similar view")
    assert names(app) == ["flat-00"]
    assert str(window.banner.text.cget("text")) == "Nothing else in the library looks like it."
    window.sidebar.select("trash")                           # any row leaves the view
    app.pump(lambda: window.browser.scope.kind == "trash" and window.banner.shown == "Trash",
             "the trash")
