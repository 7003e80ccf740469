"""Choosing the layout: View → Thumbnails / Justified / List, the toolbar's layout button,
and the list's headings that sort. The choice is remembered. Tk thread only."""

from __future__ import annotations

from typing import Any

from serpent_tk.ui.language.translate import N_

LAYOUTS = (("grid", N_("Thumbnails")), ("justified", N_("Justified")), ("list", N_("List")))
SYMBOLS = {"grid": "▦", "justified": "▤", "list": "☰"}


def connect(window: Any) -> None:
    """The list's headings sort as the toolbar's sort menu does (`window_state.choose_sort`);
    the heading of the sort in use gets its arrow."""
    grid, browser = window.grid, window.browser
    grid.header.on_sort = window.sort.choose_sort
    shown = browser.on_sort_shown

    def sort_shown(sort: str, in_collection: bool, with_color: bool, fixed: bool) -> None:
        shown(sort, in_collection, with_color, fixed)
        grid.header.set_sort(sort)

    browser.on_sort_shown = sort_shown
    grid.header.set_sort(browser.sort)
    window.toolbar.show_layout(grid.mode)


def set_layout(window: Any, mode: str) -> None:
    """Show the grid as `mode` ("grid", "justified", "list") and remember it."""
    from serpent_tk.ui.shell import window_state

    window.grid.set_mode(mode)
    window.toolbar.show_layout(window.grid.mode)
    if window.services.settings.ui.layout != window.grid.mode:
        window_state.keep_setting(window, "layout", window.grid.mode)
