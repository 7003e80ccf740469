"""What a cell of the grid looks like in each layout: a square cell with its name and details
under the picture (the grid), just the picture at its proportions (justified), a row with a
small picture and columns (the list). Tk thread only: it changes the grid's canvas items
through the grid's batch.
"""

from __future__ import annotations

import tkinter as tk
from typing import TYPE_CHECKING, Any

from serpent_tk.ui.browser.layouts import list_columns
from serpent_tk.ui.browser.layouts.cells import Cell
from serpent_tk.ui.shell.theme import FONT_BODY, FONT_CAPTION, FONT_STRONG

if TYPE_CHECKING:
    from serpent_tk.ui.browser.grid import GridCell, VirtualGrid

LIST_THUMB_PT = 20
# justified pictures are asked for in steps, so sizes get reused; rounded up, a picture fills
# its box and reaches at most QUANTUM_PX - 1 pixels into its pad
QUANTUM_PX = 4


class CellPainter:
    def __init__(self, grid: VirtualGrid) -> None:
        self.grid = grid
        self.columns: list[list_columns.Column] = []

    # sizes -------------------------------------------------------------------------------
    def list_thumb(self) -> int:
        return self.grid.theme.px(LIST_THUMB_PT)

    def pixels(self, index: int) -> int:
        """How big a picture cell `index` asks for (the side of the square it fits)."""
        g = self.grid
        if g.mode == "list":
            return self.list_thumb()
        if g.mode == "justified":
            _x, _y, w, h = g.arrangement.box(index)
            side = max(w, h) - 2 * g.pad
            return max(QUANTUM_PX, -(-int(side) // QUANTUM_PX) * QUANTUM_PX)
        return g.thumb_px

    def picture_box(self, index: int) -> tuple[float, float, float, float]:
        """Where the picture of cell `index` goes on the canvas: centre x, y, width, height."""
        g = self.grid
        x, y = g.origin(index)
        _bx, _by, w, h = g.arrangement.box(index)
        if g.mode == "list":
            side = self.list_thumb()
            return x + g.pad + side / 2, y + h / 2, side, side
        if g.mode == "justified":
            return x + w / 2, y + h / 2, w - 2 * g.pad, h - 2 * g.pad
        return x + w / 2, y + g.pad + g.thumb_px / 2, g.thumb_px, g.thumb_px

    # placing -----------------------------------------------------------------------------
    def place(self, cell: Cell) -> None:
        g, c = self.grid, self.grid.batch
        x, y = g.origin(cell.index)
        _bx, _by, w, h = g.arrangement.box(cell.index)
        c.coords(cell.bg, x, y, x + w, y + h)
        cx, cy, pw, ph = self.picture_box(cell.index)
        c.coords(cell.mat, cx - pw / 2, cy - ph / 2, cx + pw / 2, cy + ph / 2)
        c.coords(cell.image, cx, cy)
        # a sheet of paper with a folded corner, for files that are not pictures
        side = min(pw, ph)
        half_w, half_h, fold = side * 0.24, side * 0.31, side * 0.12
        left, right, top, bottom = cx - half_w, cx + half_w, cy - half_h, cy + half_h
        c.coords(cell.page, left, top, right - fold, top, right, top + fold, right, bottom,
                 left, bottom)
        c.coords(cell.badge, cx, cy + (half_h * 0.25 if g.mode != "list" else 0))
        if g.mode == "list":
            middle = y + h / 2
            name = next(col for col in self.columns if col[0] == "name")
            c.coords(cell.title, x + name[1], middle)
            items = cell.ensure_columns(len(self.columns) - 1)
            for item, (_ident, cx0, cw, anchor) in zip(items, self.columns[1:], strict=False):
                c.coords(item, x + cx0 + (cw if anchor == "e" else 0), middle)
            return
        title_y = y + g.pad + g.thumb_px + g.theme.px(4)
        c.coords(cell.title, x + w / 2, title_y)
        c.coords(cell.detail, x + w / 2, title_y + g.body_line)

    # painting ----------------------------------------------------------------------------
    def paint(self, cell: Cell, data: GridCell | None, image: tk.PhotoImage | None,
              problem: str, colours: tuple[str, str, float]) -> None:
        g, c, p = self.grid, self.grid.batch, self.grid.theme.palette
        bg, outline, width = colours
        c.config(cell.bg, state="normal", fill=bg, outline=outline, width=width)
        c.config(cell.mat, state="normal", fill=p.surface if image is None else "")
        c.config(cell.image, state="normal", image=str(image) if image is not None else "")
        listed = g.mode == "list"
        for item in cell.columns:
            c.config(item, state="hidden")
        if data is None:
            for item in (cell.page, cell.badge, cell.title, cell.detail, cell.chip,
                         cell.chip_bg):
                c.config(item, state="hidden")
            return
        _cx, _cy, pw, _ph = self.picture_box(cell.index)
        sheet = image is None and not data.picture
        c.config(cell.page, state="normal" if sheet else "hidden", fill=p.background,
                 outline=p.text_muted, width=1)
        badge = f"{data.badge}\n{problem}" if problem and not listed else data.badge
        # a list row's small picture has no room for words: its Kind column says the type
        c.config(cell.badge, state="hidden" if image is not None or listed else "normal",
                 text=g.text.fit(badge, FONT_CAPTION, pw) if not problem else badge,
                 fill=p.danger if problem else (p.text_muted if not sheet else p.text),
                 font=FONT_STRONG if sheet else FONT_CAPTION, justify="center")
        if listed:
            self._row(cell, data, problem)
        elif g.mode == "justified":
            c.config(cell.title, state="hidden")
            c.config(cell.detail, state="hidden")
        else:
            inner = g.cell_w - 2 * g.pad
            c.config(cell.title, state="normal", fill=p.text, anchor="n",
                     text=g.text.fit(data.title, FONT_BODY, inner))
            c.config(cell.detail, state="normal", fill=p.text_muted,
                     text=g.text.detail(data.detail, data.stars, FONT_CAPTION, int(inner)))
        self.chip(cell, data, image if not listed else None)

    def _row(self, cell: Cell, data: GridCell, problem: str) -> None:
        g, c, p = self.grid, self.grid.batch, self.grid.theme.palette
        name = next(col for col in self.columns if col[0] == "name")
        c.config(cell.title, state="normal", fill=p.text, anchor="w",
                 text=g.text.fit(data.title, FONT_BODY, name[2]))
        c.config(cell.detail, state="hidden")
        for item, (ident, _x, width, anchor) in zip(cell.ensure_columns(len(self.columns) - 1),
                                                    self.columns[1:], strict=False):
            words = list_columns.words(data, ident)
            if ident == "dimensions" and problem:
                words = problem
            c.config(item, state="normal", anchor=anchor, font=FONT_CAPTION,
                     fill=p.danger if ident == "dimensions" and problem else
                     (p.text if ident in ("rating",) else p.text_muted),
                     text=g.text.fit(words, FONT_CAPTION, width))

    def chip(self, cell: Cell, data: GridCell, image: Any) -> None:
        """The file type on the picture's bottom-left corner ("GIF" vs "JPG")."""
        g, c, p, px = self.grid, self.grid.batch, self.grid.theme.palette, self.grid.theme.px
        if image is None or not data.badge:
            c.config(cell.chip, state="hidden")
            c.config(cell.chip_bg, state="hidden")
            return
        cx, cy, _pw, _ph = self.picture_box(cell.index)
        left = cx - image.width() / 2 + px(3)
        bottom = cy + image.height() / 2 - px(3)
        font = g.theme.font(FONT_CAPTION)
        width = font.measure(data.badge) + px(6)
        height = font.metrics("linespace")
        c.coords(cell.chip_bg, left, bottom - height, left + width, bottom)
        c.config(cell.chip_bg, state="normal", fill=p.toast_bg)
        c.coords(cell.chip, left + px(3), bottom)
        c.config(cell.chip, state="normal", text=data.badge, fill=p.toast_text)
