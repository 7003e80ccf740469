"""The virtualized thumbnail grid: only the cells on screen exist as canvas items.

Tk thread only. The grid knows nothing about libraries: a `GridSource` says how many cells
there are and what each shows (or None while its page is loading), a `ThumbnailSource`
hands out images that were decoded off the Tk thread. Scrolling moves the existing items
with one canvas call and recycles the ones that leave the view, so 100,000 assets cost the
same as 100.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from tkinter import _stringify as tkinter_stringify  # type: ignore[attr-defined]
from tkinter import ttk
from typing import Protocol

from serpent_tk.ui.browser.cell_text import CellText
from serpent_tk.ui.browser.grid_input import GridInput
from serpent_tk.ui.browser.selection import Selection
from serpent_tk.ui.shell.theme import FONT_BODY, FONT_CAPTION, FONT_STRONG, Theme


@dataclass(frozen=True)
class GridCell:
    key: str        # stable id (asset id)
    title: str      # file name
    badge: str      # "PNG": the file type, on the picture's corner (on the mat without one)
    detail: str     # "1920 × 1080"
    picture: bool = True   # an image (a thumbnail may come); else a page with its badge
    stars: int = 0  # the rating, drawn after the detail and never shortened


class GridSource(Protocol):
    def count(self) -> int: ...
    def cell(self, index: int) -> GridCell | None: ...
    def request(self, first: int, last: int) -> None:
        """The grid shows [first, last]: load what is missing, then call `grid.refresh()`."""
    def index_of(self, key: str) -> int | None: ...


class ThumbnailSource(Protocol):
    def image(self, key: str, pixels: int) -> tk.PhotoImage | None:
        """The picture for `key` if decoded; otherwise None (and loading is scheduled)."""
    def want(self, keys: Sequence[str], pixels: int) -> None:
        """These keys are on screen now (most important first); drop older requests."""
    def problem(self, key: str) -> str | None:
        """Why `key` has no thumbnail (the library's reason: damaged, not-an-image, ...)."""


def _tcl_word(value: object) -> str:
    return tkinter_stringify(value if not isinstance(value, float) else round(value, 1))


class _Batch:
    """Canvas changes gathered into one Tcl script. Each Tk call from Python gives up the GIL
    and must win it back; while the MCP server is busy that wait repeats per call, so one
    script per redraw keeps the window smooth."""

    def __init__(self, canvas: tk.Canvas) -> None:
        self.path = str(canvas)
        self.tk = canvas.tk
        self.lines: list[str] = []

    def coords(self, item: int, *values: float) -> None:
        self.lines.append(f"{self.path} coords {item} " + " ".join(f"{v:.1f}" for v in values))

    def config(self, item: int, **options: object) -> None:
        self.lines.append(f"{self.path} itemconfigure {item} " + " ".join(
            f"-{name} {_tcl_word(value)}" for name, value in options.items()))

    def flush(self) -> None:
        """Run the gathered changes; one that fails (say, a picture freed meanwhile) is
        skipped without stopping the others."""
        if self.lines:
            script = "\n".join(f"catch {{{line}}}" for line in self.lines)
            self.lines = []
            self.tk.eval(script)


class _Cell:
    """The canvas items of one visible slot, reused as the view scrolls."""

    __slots__ = ("index", "bg", "mat", "page", "image", "badge", "title", "detail", "chip_bg",
                 "chip", "shown")

    def __init__(self, canvas: tk.Canvas) -> None:
        self.index = -1
        self.bg = canvas.create_rectangle(0, 0, 0, 0, width=0, tags=("cell",))
        self.mat = canvas.create_rectangle(0, 0, 0, 0, width=0, tags=("cell",))
        self.page = canvas.create_polygon(0, 0, 0, 0, 0, 0, tags=("cell",), state="hidden")
        self.image = canvas.create_image(0, 0, tags=("cell",))
        self.badge = canvas.create_text(0, 0, tags=("cell",), font=FONT_CAPTION)
        self.title = canvas.create_text(0, 0, tags=("cell",), font=FONT_BODY, anchor="n")
        self.detail = canvas.create_text(0, 0, tags=("cell",), font=FONT_CAPTION, anchor="n")
        self.chip_bg = canvas.create_rectangle(0, 0, 0, 0, width=0, tags=("cell",),
                                               state="hidden")
        self.chip = canvas.create_text(0, 0, tags=("cell",), font=FONT_CAPTION, anchor="sw",
                                       state="hidden")
        self.shown: tuple[object, ...] = ()

    def items(self) -> tuple[int, ...]:
        return (self.bg, self.mat, self.page, self.image, self.badge, self.title, self.detail,
                self.chip_bg, self.chip)


class VirtualGrid(GridInput, ttk.Frame):
    """Thumbnail grid over a `GridSource`, with multi-select, rubber band and keyboard."""

    def __init__(self, master: tk.Misc, theme: Theme, source: GridSource,
                 thumbnails: ThumbnailSource, *, cell_points: float = 120) -> None:
        super().__init__(master)
        self.theme = theme
        self.source = source
        self.thumbnails = thumbnails
        self.selection = Selection()
        self.on_selection_changed: Callable[[list[str]], None] = lambda keys: None
        self.on_open: Callable[[list[str]], None] = lambda keys: None
        self.on_context_menu: Callable[[list[str], int, int], None] = lambda keys, x, y: None
        self.on_drag: Callable[[list[str], str, int, int], None] | None = None

        self.canvas = tk.Canvas(self, highlightthickness=0, borderwidth=0, takefocus=1,
                                background=theme.palette.background)
        self.scrollbar = ttk.Scrollbar(self, orient="vertical", command=self._on_scrollbar)
        self.canvas.grid(row=0, column=0, sticky="nsew")
        self.scrollbar.grid(row=0, column=1, sticky="ns")
        self.rowconfigure(0, weight=1)
        self.columnconfigure(0, weight=1)

        self._cells: dict[int, _Cell] = {}
        self._pool: list[_Cell] = []
        self._batch = _Batch(self.canvas)
        self._top = 0.0                 # pixels of virtual content above the view
        self._width = 1
        self._height = 1
        self._cols = 1
        self._count = 0
        self._hover = -1
        # x, y, index, "narrow the selection to this cell on release" (a plain click on a
        # cell that was already selected: it may still become a drag of the whole selection)
        self._press: tuple[int, int, int, bool] | None = None
        self._dragging = False
        self._band: int | None = None
        self._band_start: tuple[float, float] = (0.0, 0.0)
        self._band_base: list[str] = []
        self._render_pending = False
        self._relayout_needed = True
        self._hidden_changes = False
        self.text = CellText(theme)
        self.set_cell_size(cell_points)

        canvas = self.canvas
        canvas.bind("<Configure>", self._on_configure)
        canvas.bind("<Map>", lambda e: self._schedule() if self._hidden_changes else None)
        canvas.bind("<MouseWheel>", self._on_wheel)
        canvas.bind("<Button-4>", lambda e: self.scroll_by(-self._wheel_step()))
        canvas.bind("<Button-5>", lambda e: self.scroll_by(self._wheel_step()))
        self._bind_input(canvas)
        theme.on_change(self._on_theme)

    # geometry ----------------------------------------------------------------------------
    def set_cell_size(self, points: float) -> None:
        t = self.theme
        self.cell_points = points
        self.thumb_px = t.px(points)
        self.gap = t.px(6)
        self.margin = t.px(12)
        self.pad = t.px(5)
        body = t.font(FONT_BODY).metrics("linespace")
        caption = t.font(FONT_CAPTION).metrics("linespace")
        self._body_line = body
        self.cell_w = self.thumb_px + 2 * self.pad
        self.cell_h = self.thumb_px + 2 * self.pad + t.px(4) + body + caption + t.px(2)
        self.row_h = self.cell_h + self.gap
        self.text.clear()
        self._relayout_needed = True
        self._schedule()

    def _layout(self) -> None:
        usable = max(1, self._width - 2 * self.margin + self.gap)
        self._cols = max(1, usable // (self.cell_w + self.gap))
        spare = max(0, self._width - 2 * self.margin - self._cols * self.cell_w)
        self._x_step = self.cell_w + (spare / (self._cols - 1) if self._cols > 1 else 0)
        if self._cols == 1:
            self._x0 = (self._width - self.cell_w) / 2
        else:
            self._x0 = self.margin
        self._relayout_needed = False

    def _content_height(self) -> int:
        rows = -(-self._count // self._cols) if self._count else 0
        return self.margin * 2 + max(0, rows * self.row_h - self.gap)

    def _origin(self, index: int) -> tuple[float, float]:
        row, col = divmod(index, self._cols)
        return self._x0 + col * self._x_step, self.margin + row * self.row_h - self._top

    def index_at(self, x: float, y: float) -> int:
        """The cell under canvas point (x, y), or -1 (a gap, the margin, below the end)."""
        vy = y + self._top - self.margin
        if vy < 0:
            return -1
        row, within_y = divmod(vy, self.row_h)
        if within_y > self.cell_h:
            return -1
        col = int((x - self._x0) // self._x_step) if self._x_step else 0
        if col < 0 or col >= self._cols:
            return -1
        if x - (self._x0 + col * self._x_step) > self.cell_w:
            return -1
        index = int(row) * self._cols + col
        return index if 0 <= index < self._count else -1

    def visible_range(self) -> tuple[int, int]:
        """First and last index at least partly on screen (last < first when empty)."""
        if not self._count:
            return 0, -1
        first_row = max(0, int((self._top - self.margin) // self.row_h))
        last_row = int((self._top + self._height - self.margin) // self.row_h)
        first = first_row * self._cols
        last = min(self._count - 1, (last_row + 1) * self._cols - 1)
        return first, last

    def _page_cells(self) -> int:
        return max(1, int(self._height // self.row_h)) * self._cols

    # scrolling ---------------------------------------------------------------------------
    def _max_top(self) -> float:
        return max(0.0, self._content_height() - self._height)

    def scroll_to(self, top: float) -> None:
        top = min(max(0.0, top), self._max_top())
        if top != self._top:
            delta = top - self._top
            self._top = top
            self.canvas.move("cell", 0, -delta)
            self._schedule()

    def scroll_by(self, pixels: float) -> None:
        self.scroll_to(self._top + pixels)

    def _wheel_step(self) -> float:
        return self.row_h / 2

    def _on_wheel(self, event: tk.Event) -> None:
        delta = event.delta  # Windows: multiples of 120; macOS: small deltas
        steps = -delta / 120 if abs(delta) >= 120 else -delta / 2
        self.scroll_by(steps * self._wheel_step())

    def _on_scrollbar(self, *args: str) -> None:
        if args[0] == "moveto":
            self.scroll_to(float(args[1]) * self._content_height())
        elif args[0] == "scroll":
            amount = int(args[1])
            unit = self._height * 0.9 if args[2] == "pages" else self.row_h / 2
            self.scroll_by(amount * unit)

    def ensure_visible(self, index: int) -> None:
        if index < 0 or not self._count:
            return
        row = index // self._cols
        top = self.margin + row * self.row_h
        bottom = top + self.cell_h
        if top - self.margin < self._top:
            self.scroll_to(top - self.margin)
        elif bottom + self.margin > self._top + self._height:
            self.scroll_to(bottom + self.margin - self._height)

    # rendering ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """The source's data changed (count or cells): redraw what is visible, soon. Cells
        whose data, picture and state are unchanged cost no Tk call."""
        self._schedule()

    def repaint(self) -> None:
        """Redraw every visible cell (the colours changed)."""
        for cell in self._cells.values():
            cell.shown = ()
        self._schedule()

    def reset(self) -> None:
        """A new query: back to the top, nothing selected."""
        self._top = 0.0
        self.selection.clear()
        self._release_all()
        self._batch.flush()
        self._schedule()
        self.on_selection_changed([])

    def _schedule(self) -> None:
        if not self._render_pending:
            self._render_pending = True
            self.after_idle(self._render)

    def _release_all(self) -> None:
        for cell in self._cells.values():
            self._recycle(cell)
        self._cells.clear()

    def _recycle(self, cell: _Cell) -> None:
        for item in cell.items():
            self._batch.config(item, state="hidden")
        self._batch.config(cell.image, image="")   # let the picture be freed
        cell.index = -1
        cell.shown = ()
        self._pool.append(cell)

    def _render(self) -> None:
        self._render_pending = False
        if not self.winfo_exists():
            return
        if not self.canvas.winfo_ismapped() and self._cells:
            # hidden (the viewer is over it): keep its pages coming, paint when it is back
            self._hidden_changes = True
            if self.source.count():
                self.source.request(*self.visible_range())
            return
        self._hidden_changes = False
        count = self.source.count()
        if count != self._count:
            self._count = count
            self._relayout_needed = True
        if self._relayout_needed:
            self._layout()
            self._release_all()
        self._top = min(self._top, self._max_top())
        first, last = self.visible_range()
        for index in [i for i in self._cells if i < first or i > last]:
            self._recycle(self._cells.pop(index))
        keys: list[str] = []
        for index in range(first, last + 1):
            cell = self._cells.get(index)
            if cell is None:
                cell = self._pool.pop() if self._pool else _Cell(self.canvas)
                cell.index = index
                cell.shown = ()
                self._cells[index] = cell
                self._place(cell)
            data = self.source.cell(index)
            if data is not None:
                keys.append(data.key)
            self._paint(cell, data)
        if self._count:
            self.source.request(first, last)
        self._batch.flush()
        self.thumbnails.want(keys, self.thumb_px)
        height = self._content_height()
        if height <= self._height:
            self.scrollbar.set(0.0, 1.0)
            self.scrollbar.grid_remove()     # nothing to scroll: no scrollbar
        else:
            self.scrollbar.set(self._top / height, (self._top + self._height) / height)
            self.scrollbar.grid()

    def _place(self, cell: _Cell) -> None:
        x, y = self._origin(cell.index)
        c = self._batch
        pad, thumb = self.pad, self.thumb_px
        c.coords(cell.bg, x, y, x + self.cell_w, y + self.cell_h)
        c.coords(cell.mat, x + pad, y + pad, x + pad + thumb, y + pad + thumb)
        cx, cy = x + self.cell_w / 2, y + pad + thumb / 2
        c.coords(cell.image, cx, cy)
        # a sheet of paper with a folded corner, for files that are not pictures
        half_w, half_h, fold = thumb * 0.24, thumb * 0.31, thumb * 0.12
        left, right, top, bottom = cx - half_w, cx + half_w, cy - half_h, cy + half_h
        c.coords(cell.page, left, top, right - fold, top, right, top + fold, right, bottom,
                 left, bottom)
        c.coords(cell.badge, cx, cy + half_h * 0.25)
        title_y = y + pad + thumb + self.theme.px(4)
        c.coords(cell.title, cx, title_y)
        c.coords(cell.detail, cx, title_y + self._body_line)

    def _paint(self, cell: _Cell, data: GridCell | None) -> None:
        key = data.key if data else None
        selected = key is not None and key in self.selection
        focused = key is not None and key == self.selection.focus_key
        hovered = cell.index == self._hover
        image = self.thumbnails.image(key, self.thumb_px) if key else None
        problem = self._problem(key, data) if image is None else ""
        state = (key, data, selected, focused, hovered, image, problem)
        if state == cell.shown:
            return
        cell.shown = state
        p = self.theme.palette
        c = self._batch
        if selected:
            bg, outline, width = p.selection, p.selection_outline, self.theme.px(1.5)
        elif focused:
            bg, outline, width = p.surface_hover if hovered else "", p.focus_outline, 1
        elif hovered:
            bg, outline, width = p.surface_hover, "", 0
        else:
            bg, outline, width = "", "", 0
        c.config(cell.bg, state="normal", fill=bg, outline=outline, width=width)
        c.config(cell.mat, state="normal", fill=p.surface if image is None else "")
        c.config(cell.image, state="normal", image=str(image) if image is not None else "")
        inner = self.cell_w - 2 * self.pad
        if data is None:
            for item in (cell.page, cell.badge, cell.title, cell.detail, cell.chip,
                         cell.chip_bg):
                c.config(item, state="hidden")
            return
        sheet = image is None and not data.picture
        c.config(cell.page, state="normal" if sheet else "hidden", fill=p.background,
                 outline=p.text_muted, width=1)
        badge = f"{data.badge}\n{problem}" if problem else data.badge
        c.config(cell.badge, state="hidden" if image is not None else "normal",
                 text=self.text.fit(badge, FONT_CAPTION, inner) if not problem else badge,
                 fill=p.danger if problem else (p.text_muted if not sheet else p.text),
                 font=FONT_STRONG if sheet else FONT_CAPTION, justify="center")
        c.config(cell.title, state="normal", fill=p.text,
                 text=self.text.fit(data.title, FONT_BODY, inner))
        c.config(cell.detail, state="normal", fill=p.text_muted,
                 text=self.text.detail(data.detail, data.stars, FONT_CAPTION, inner))
        self._chip(cell, data, image)

    def _problem(self, key: str | None, data: GridCell | None) -> str:
        from serpent_tk.ui.browser.thumbnails import problem_words

        problem = getattr(self.thumbnails, "problem", None)
        if key is None or data is None or problem is None:
            return ""
        return problem_words(problem(key), data.picture)

    def _chip(self, cell: _Cell, data: GridCell, image: tk.PhotoImage | None) -> None:
        """The file type on the picture's bottom-left corner ("GIF" vs "JPG")."""
        c, p, px = self._batch, self.theme.palette, self.theme.px
        if image is None or not data.badge:
            c.config(cell.chip, state="hidden")
            c.config(cell.chip_bg, state="hidden")
            return
        x, y = self._origin(cell.index)
        cx, cy = x + self.cell_w / 2, y + self.pad + self.thumb_px / 2
        left = cx - image.width() / 2 + px(3)
        bottom = cy + image.height() / 2 - px(3)
        font = self.theme.font(FONT_CAPTION)
        width = font.measure(data.badge) + px(6)
        height = font.metrics("linespace")
        c.coords(cell.chip_bg, left, bottom - height, left + width, bottom)
        c.config(cell.chip_bg, state="normal", fill=p.toast_bg)
        c.coords(cell.chip, left + px(3), bottom)
        c.config(cell.chip, state="normal", text=data.badge, fill=p.toast_text)

    def thumbnail_ready(self, key: str) -> None:
        """A picture for `key` was decoded: repaint just that cell if it is on screen."""
        for cell in self._cells.values():
            if cell.shown and cell.shown[0] == key:
                self._paint(cell, self.source.cell(cell.index))
                self._batch.flush()
                return

    def _on_configure(self, event: tk.Event) -> None:
        if (event.width, event.height) != (self._width, self._height):
            width_changed = event.width != self._width
            self._width, self._height = max(1, event.width), max(1, event.height)
            if width_changed:
                self._relayout_needed = True
            self._schedule()

    def _on_theme(self) -> None:
        self.canvas.configure(background=self.theme.palette.background)
        self.set_cell_size(self.cell_points)
        self.repaint()
