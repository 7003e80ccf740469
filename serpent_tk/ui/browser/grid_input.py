"""Pointer and keyboard input of the thumbnail grid: click, Ctrl/Shift-click, rubber band,
arrows, double-click, dragging the selection (onto the sidebar, or out). Tk thread only.

A mixin of `VirtualGrid`: it works on the grid's canvas, source, selection and geometry.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from serpent_tk.ui.browser.layouts import geometry
from serpent_tk.ui.browser.selection import Selection
from serpent_tk.ui.tk_typed import ignoring_event

if TYPE_CHECKING:
    from serpent_tk.ui.shell.theme import Theme

DRAG_THRESHOLD_PX = 6


if TYPE_CHECKING:     # what a grid is besides (a `ttk.Frame`): its `after`, `focus_set`...
    _Widget = tk.Misc
else:
    _Widget = object


class GridInput(_Widget):
    # provided by VirtualGrid
    canvas: tk.Canvas
    source: Any
    theme: Theme
    selection: Selection
    on_selection_changed: Callable[[list[str]], None]
    on_open: Callable[[list[str]], None]
    on_context_menu: Callable[[list[str], int, int], None]
    on_drag: Callable[[list[str], str, int, int], None] | None
    _cells: dict[int, Any]
    _count: int
    arrangement: Any
    _top: float
    _height: int
    _hover: int
    _press: tuple[int, int, int, bool] | None
    _dragging: bool
    _band: int | None
    _band_start: tuple[float, float]
    _band_base: list[str]
    _batch: Any
    row_h: float

    if TYPE_CHECKING:
        def refresh(self) -> None: ...
        def scroll_by(self, pixels: float) -> None: ...
        def ensure_visible(self, index: int) -> None: ...
        def index_at(self, x: float, y: float) -> int: ...
        def _page_rows(self) -> int: ...
        def _paint(self, cell: Any, data: Any) -> None: ...

    def _bind_input(self, canvas: tk.Canvas) -> None:
        canvas.bind("<ButtonPress-1>", self._on_press)
        canvas.bind("<Control-ButtonPress-1>", lambda e: self._on_press(e, toggle=True))
        canvas.bind("<Shift-ButtonPress-1>", lambda e: self._on_press(e, extend=True))
        canvas.bind("<B1-Motion>", self._on_drag_motion)
        canvas.bind("<ButtonRelease-1>", self._on_release)
        canvas.bind("<Double-Button-1>", self._on_double)
        canvas.bind("<Motion>", self._on_motion)
        canvas.bind("<Leave>", lambda e: self._set_hover(-1))
        canvas.bind("<ButtonPress-3>", self._on_context)
        for key, rows in (("Up", -1), ("Down", 1)):
            canvas.bind(f"<{key}>", ignoring_event(partial(self.move_focus, 0, rows=rows)))
            canvas.bind(f"<Shift-{key}>",
                        ignoring_event(partial(self.move_focus, 0, True, rows=rows)))
        canvas.bind("<Left>", lambda e: self.move_focus(-1))
        canvas.bind("<Right>", lambda e: self.move_focus(1))
        canvas.bind("<Shift-Left>", lambda e: self.move_focus(-1, True))
        canvas.bind("<Shift-Right>", lambda e: self.move_focus(1, True))
        canvas.bind("<Prior>", lambda e: self.move_focus(0, rows=-self._page_rows()))
        canvas.bind("<Next>", lambda e: self.move_focus(0, rows=self._page_rows()))
        canvas.bind("<Home>", lambda e: self.move_focus(-self._count))
        canvas.bind("<End>", lambda e: self.move_focus(self._count))
        # Enter, Space, Ctrl+A and Esc are the window's actions (ui/menus/window_actions)

    # selection ---------------------------------------------------------------------------
    def selected_keys(self) -> list[str]:
        return self.selection.keys()

    def select_keys(self, keys: Sequence[str], focus: str | None = None) -> None:
        self.selection.set(keys, focus=focus)
        self._selection_changed()

    def clear_selection(self) -> None:
        if self.selection:
            self.selection.clear()
            self._selection_changed()

    def select_loaded(self) -> None:
        """Ctrl+A: every cell whose data is loaded (a page of thousands at most)."""
        keys = [c.key for i in range(self._count) if (c := self.source.cell(i)) is not None]
        self.selection.set(keys, focus=self.selection.focus_key)
        self._selection_changed()

    def _selection_changed(self) -> None:
        self.refresh()
        self.on_selection_changed(self.selection.keys())

    def _key_at(self, index: int) -> str | None:
        cell = self.source.cell(index) if 0 <= index < self._count else None
        return cell.key if cell else None

    def _range_keys(self, a: int, b: int) -> list[str]:
        lo, hi = min(a, b), max(a, b)
        return [k for i in range(lo, hi + 1) if (k := self._key_at(i)) is not None]

    def move_focus(self, delta: int, extend: bool = False, rows: int = 0) -> str:
        """Focus the cell `delta` cells, or `rows` rows (the one nearest across), away."""
        if not self._count:
            return "break"
        current = self.selection.focus_key
        index = self.source.index_of(current) if current else None
        forward = (rows or delta) >= 0
        if index is None:
            target = 0 if forward else self._count - 1
        elif rows:
            target = geometry.vertical(self.arrangement, min(index, self._count - 1), rows)
        else:
            target = min(max(0, index + delta), self._count - 1)
        key = self._key_at(target)
        if key is None:
            self.ensure_visible(target)
            return "break"
        if extend:
            anchor = self.selection.anchor_key
            anchor_index = self.source.index_of(anchor) if anchor else None
            keys = self._range_keys(anchor_index if anchor_index is not None else target,
                                    target)
            self.selection.set(keys, focus=key, anchor=anchor or key)
        else:
            self.selection.set([key], focus=key)
        self.ensure_visible(target)
        self._selection_changed()
        return "break"

    def cancel_drag(self) -> None:
        """A drag ended elsewhere (the system drag got the button release)."""
        self._press = None
        self._dragging = False

    # mouse -------------------------------------------------------------------------------
    def _set_hover(self, index: int) -> None:
        if index != self._hover:
            old, self._hover = self._hover, index
            for i in (old, index):
                cell = self._cells.get(i)
                if cell is not None:
                    self._paint(cell, self.source.cell(i))
            self._batch.flush()

    def _on_motion(self, event: tk.Event) -> None:
        self._set_hover(self.index_at(event.x, event.y))

    def _on_press(self, event: tk.Event, toggle: bool = False, extend: bool = False) -> str:
        self.canvas.focus_set()
        index = self.index_at(event.x, event.y)
        key = self._key_at(index)
        self._dragging = False
        if key is None:
            self._press = None
            self._start_band(event, keep=toggle or extend)
            return "break"
        was_selected = key in self.selection
        self._press = (event.x, event.y, index, was_selected and not (toggle or extend))
        if toggle:
            self.selection.toggle(key)
        elif extend and self.selection.anchor_key:
            anchor = self.selection.anchor_key
            anchor_index = self.source.index_of(anchor)
            keys = self._range_keys(anchor_index if anchor_index is not None else index, index)
            self.selection.set(keys, focus=key, anchor=anchor)
        elif not was_selected:
            self.selection.set([key], focus=key)
        else:
            self.selection.focus_key = key
        self._selection_changed()
        return "break"

    def _on_drag_motion(self, event: tk.Event) -> None:
        if self._band is not None:
            self._update_band(event)
            return
        if self._press is None:
            return
        x0, y0, _index, _narrow = self._press
        if not self._dragging and max(abs(event.x - x0), abs(event.y - y0)) < DRAG_THRESHOLD_PX:
            return
        if self.on_drag is not None:
            self._dragging = True
            self.on_drag(self.selection.keys(), "motion", event.x_root, event.y_root)

    def _on_release(self, event: tk.Event) -> None:
        if self._band is not None:
            self.canvas.delete(self._band)
            self._band = None
            return
        if self._press is None:
            return
        _, _, index, narrow = self._press
        self._press = None
        if self._dragging:
            self._dragging = False
            if self.on_drag is not None:
                self.on_drag(self.selection.keys(), "drop", event.x_root, event.y_root)
            return
        key = self._key_at(index)
        if narrow and key and len(self.selection) > 1:
            self.selection.set([key], focus=key)
            self._selection_changed()

    def _on_double(self, event: tk.Event) -> None:
        key = self._key_at(self.index_at(event.x, event.y))
        if key:
            self.selection.set([key], focus=key)
            self._selection_changed()
            self.on_open([key])

    def _on_context(self, event: tk.Event) -> None:
        self.canvas.focus_set()
        key = self._key_at(self.index_at(event.x, event.y))
        if key and key not in self.selection:
            self.selection.set([key], focus=key)
            self._selection_changed()
        self.on_context_menu(self.selection.keys(), event.x_root, event.y_root)

    # rubber band ---------------------------------------------------------------------------
    def _start_band(self, event: tk.Event, keep: bool) -> None:
        self._band_base = self.selection.keys() if keep else []
        if not keep and self.selection:
            self.selection.clear()
            self._selection_changed()
        self._band_start = (event.x, event.y + self._top)
        p = self.theme.palette
        self._band = self.canvas.create_rectangle(
            event.x, event.y, event.x, event.y, outline=p.selection_outline,
            dash=(3, 2), width=1)

    def _update_band(self, event: tk.Event) -> None:
        if event.y < 0:
            self.scroll_by(-self.row_h / 4)
        elif event.y > self._height:
            self.scroll_by(self.row_h / 4)
        sx, svy = self._band_start
        ex, evy = event.x, event.y + self._top
        assert self._band is not None
        self.canvas.coords(self._band, sx, svy - self._top, ex, evy - self._top)
        self.canvas.tag_raise(self._band)
        left, right = min(sx, ex), max(sx, ex)
        top, bottom = min(svy, evy), max(svy, evy)
        keys = list(self._band_base)
        for index in geometry.covered(self.arrangement, left, top, right, bottom):
            key = self._key_at(index)
            if key is not None and key not in keys:
                keys.append(key)
        if keys != self.selection.keys():
            self.selection.set(keys, focus=keys[-1] if keys else None,
                               anchor=keys[0] if keys else None)
            self._selection_changed()
