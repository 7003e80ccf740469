"""A small window (800 × 560) still works: a minimum size exists, the search box keeps a real
width (the slider and the sort menu step aside), and the sidebar and the inspector fold away
and come back (View menu, Ctrl+B, Ctrl+Shift+I, the toolbar's buttons)."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.ui.shell.toolbar import MIN_SEARCH_PT
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def squeezed(toolbar) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(w) for w in toolbar.winfo_children()
            if w.winfo_ismapped() and w.winfo_width() < w.winfo_reqwidth() - 2
            and w is not toolbar.search]


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_800_by_560_keeps_the_search_box_and_everything_whole(app: App, tmp_path: Path,
                                                              mode: str) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 8))
    window = app.window
    window.theme.apply(mode)
    min_w, min_h = (int(v) for v in app.root.minsize())
    assert 0 < min_w <= 800 and 0 < min_h <= 560
    app.root.geometry("800x560")
    window.grid.select_keys([window.pages.cell(0).key])  # type: ignore[union-attr]
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    app.settle(0.5)
    assert app.root.winfo_width() == 800
    toolbar = window.toolbar
    assert toolbar.search.winfo_width() >= window.theme.px(MIN_SEARCH_PT), \
        toolbar.search.winfo_width()
    assert "zoom" in toolbar.hidden_for_room               # it stepped aside (View menu has it)
    assert not squeezed(toolbar), squeezed(toolbar)
    assert window.grid.winfo_width() >= window.panes.minimum("middle")
    app.shot(tmp_path, f"small-window-800x560-{mode}")
    app.root.geometry("1400x860")
    app.settle(0.4)
    assert not toolbar.hidden_for_room                     # room again: back


def test_sidebar_and_inspector_fold_away_and_come_back(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    window = app.window
    panes = window.panes
    app.settle(0.3)
    sidebar_width = panes.width("sidebar")
    grid_width = window.grid.winfo_width()
    window.grid.canvas.focus_force()
    app.settle(0.1)
    window.grid.canvas.event_generate("<Control-b>")
    app.settle(0.3)
    assert not panes.shown("sidebar") and not window.sidebar.winfo_ismapped()
    assert window.grid.winfo_width() > grid_width
    view = {label: state for label, _, state in window.menubar.labels("View")}
    assert "Show sidebar" in view
    assert not window.menubar.menus["View"].entrycget(0, "variable") or True
    window.toolbar.inspector_button.invoke()
    app.settle(0.3)
    assert not panes.shown("inspector")
    app.shot(tmp_path, "panes-folded-light")
    window.grid.canvas.event_generate("<Control-b>")
    window.grid.canvas.event_generate("<Control-Shift-I>")
    app.settle(0.4)
    assert panes.shown("sidebar") and panes.shown("inspector")
    assert abs(panes.width("sidebar") - sidebar_width) <= 2          # back at its width
