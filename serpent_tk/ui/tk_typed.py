"""The few Tk calls typeshed leaves untyped, typed once here so the window's code is checked
by `mypy --strict` like the rest (each answer converted to what Tk really returns).

Tk thread only, as every widget call.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk


def panes(paned: ttk.Panedwindow) -> list[str]:
    """The paths of the panes `paned` shows, left to right."""
    return [str(pane) for pane in paned.panes()]  # type: ignore[no-untyped-call]


def sash_position(paned: ttk.Panedwindow, index: int, pixels: int | None = None) -> int:
    """Where sash `index` is (pixels from the left), after moving it to `pixels` if given."""
    if pixels is None:
        return int(paned.sashpos(index))  # type: ignore[no-untyped-call]
    return int(paned.sashpos(index, pixels))  # type: ignore[no-untyped-call]


def chosen_rows(listbox: tk.Listbox) -> list[int]:
    """The indexes of the rows selected in `listbox`."""
    return [int(row) for row in listbox.curselection()]  # type: ignore[no-untyped-call]


def row_at(listbox: tk.Listbox, y: int) -> int:
    """The index of the row nearest to `y` (pixels from the listbox's top)."""
    return int(listbox.nearest(y))  # type: ignore[no-untyped-call]


def item_option(canvas: tk.Canvas, item: int | str, option: str) -> str:
    """An option of a canvas item (its "text", "state", ...), as a string."""
    return str(canvas.itemcget(item, option))  # type: ignore[no-untyped-call]


def selected_tab(notebook: ttk.Notebook) -> str:
    """The path of the tab `notebook` shows ("" when it has none)."""
    return str(notebook.select())  # type: ignore[no-untyped-call]


def show_tab(notebook: ttk.Notebook, tab: int | str | tk.Misc) -> None:
    """Make `notebook` show `tab` (its index, path or widget)."""
    notebook.select(tab)  # type: ignore[no-untyped-call]


def ignoring_event(action: Callable[[], object]) -> Callable[[tk.Event], object]:
    """A binding's callback that runs `action` whatever the event (`bind` hands one over):
    `widget.bind("1", ignoring_event(partial(choose, 1)))`."""
    return lambda event: action()
