"""The virtualized thumbnail grid: only the cells on screen exist as canvas items.

Tk thread only. The grid knows nothing about libraries: a `GridSource` says how many cells
there are and what each shows (or None while its page is loading), a `ThumbnailSource`
hands out images that were decoded off the Tk thread. Scrolling moves the existing items
with one canvas call and recycles the ones that leave the view, so 100,000 assets cost the
same as 100. Three layouts (`MODES`): square cells, a justified grid, a list with columns
(`ui/browser/layouts`).
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from tkinter import ttk
from typing import Protocol

from serpent_tk.ui.browser.cell_text import CellText
from serpent_tk.ui.browser.grid_input import GridInput
from serpent_tk.ui.browser.layouts import geometry
from serpent_tk.ui.browser.layouts.cells import Batch, Cell
from serpent_tk.ui.browser.layouts.geometry import Arrangement, Justified, Uniform
from serpent_tk.ui.browser.layouts.list_columns import ListHeader
from serpent_tk.ui.browser.layouts.list_columns import arrange as arrange_columns
from serpent_tk.ui.browser.layouts.painting import CellPainter
from serpent_tk.ui.browser.selection import Selection
from serpent_tk.ui.shell.theme import FONT_BODY, FONT_CAPTION, Theme

MODES = ("grid", "justified", "list")


@dataclass(frozen=True)
class GridCell:
    key: str        # stable id (asset id)
    title: str      # file name
    badge: str      # "PNG": the file type, on the picture's corner (on the mat without one)
    detail: str     # "1920 × 1080"
    picture: bool = True   # an image (a thumbnail may come); else a page with its badge
    stars: int = 0  # the rating, drawn after the detail and never shortened
    ratio: float = 1.0             # width / height as shown (the justified grid)
    kind: str = ""                 # image, video, document... (the list's columns)
    size: int | None = None        # bytes
    tags: tuple[str, ...] = ()
    added: str = ""                # when it came into the library (ISO 8601)
    dimensions: str = ""           # "1920 × 1080" (none for a file without pixels)


class GridSource(Protocol):
    def count(self) -> int: ...
    def cell(self, index: int) -> GridCell | None: ...
    def request(self, first: int, last: int) -> None:
        """The grid shows [first, last]: load what is missing, then call `grid.refresh()`."""
    def index_of(self, key: str) -> int | None: ...


class ThumbnailSource(Protocol):
    def image(self, key: str, pixels: int) -> tk.PhotoImage | None:
        """The picture for `key` if decoded; otherwise None (and loading is scheduled)."""
    def want(self, keys: Sequence[str], pixels: int | Sequence[int]) -> None:
        """These keys are on screen now (most important first); drop older requests.
        `pixels`: one size for all, or each key's own (the justified grid)."""
    def problem(self, key: str) -> str | None:
        """Why `key` has no thumbnail (the library's reason: damaged, not-an-image, ...)."""


class VirtualGrid(GridInput, ttk.Frame):
    """Thumbnail grid over a `GridSource`, with multi-select, rubber band and keyboard."""

    def __init__(self, master: tk.Misc, theme: Theme, source: GridSource,
                 thumbnails: ThumbnailSource, *, cell_points: float = 120,
                 mode: str = "grid") -> None:
        super().__init__(master)
        self.theme = theme
        self.source = source
        self.thumbnails = thumbnails
        self.selection = Selection()
        self.on_selection_changed: Callable[[list[str]], None] = lambda keys: None
        self.on_open: Callable[[list[str]], None] = lambda keys: None
        self.on_context_menu: Callable[[list[str], int, int], None] = lambda keys, x, y: None
        self.on_drag: Callable[[list[str], str, int, int], None] | None = None
        self.mode = mode if mode in MODES else "grid"

        self.header = ListHeader(self, theme)
        self.canvas = tk.Canvas(self, highlightthickness=0, borderwidth=0, takefocus=1,
                                background=theme.palette.background)
        self.scrollbar = ttk.Scrollbar(self, orient="vertical", command=self._on_scrollbar)
        self.canvas.grid(row=1, column=0, sticky="nsew")
        self.scrollbar.grid(row=1, column=1, sticky="ns")
        self.rowconfigure(1, weight=1)
        self.columnconfigure(0, weight=1)

        self._cells: dict[int, Cell] = {}
        self._pool: list[Cell] = []
        self.batch = self._batch = Batch(self.canvas)
        self.painter = CellPainter(self)
        self._justified = Justified(1, 1, 1, 1)
        self.arrangement: Arrangement = Uniform(1, 1, 1, 1)
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
    def set_mode(self, mode: str) -> None:
        """Show the cells as a grid, a justified grid or a list; the focused cell stays in
        view."""
        if mode not in MODES or mode == self.mode:
            return
        focus = self.selection.focus_key
        self.mode = mode
        self._release_all()
        self.set_cell_size(self.cell_points)
        self._layout()
        index = self.source.index_of(focus) if focus else None
        self._top = 0.0
        if index is not None:
            self.ensure_visible(index)
        self._schedule()

    def set_cell_size(self, points: float) -> None:
        t = self.theme
        self.cell_points = points
        self.thumb_px = t.px(points)
        self.gap = t.px(6)
        self.margin = t.px(12)
        self.pad = t.px(5)
        body = t.font(FONT_BODY).metrics("linespace")
        caption = t.font(FONT_CAPTION).metrics("linespace")
        self.body_line = self._body_line = body
        self.cell_w: float = self.thumb_px + 2 * self.pad
        self.cell_h = self.thumb_px + 2 * self.pad + t.px(4) + body + caption + t.px(2)
        if self.mode == "list":
            self.cell_h = max(self.painter.list_thumb(), body) + 2 * t.px(3)
            # the rows start right under the headings
            self.arrangement = Uniform(self.cell_w, self.cell_h, 0, self.margin, stretch=True,
                                       top=t.px(2))
        elif self.mode == "justified":
            # pictures close together, as the justified grids of photo sites; the pad is
            # where a selected picture shows its outline
            self.pad, self.gap = t.px(3), t.px(4)
            self._justified.resize(self.thumb_px, self.gap, self.margin, self.pad)
            self.arrangement = self._justified
        else:
            self.arrangement = Uniform(self.cell_w, self.cell_h, self.gap, self.margin)
        self.row_h = self.arrangement.step
        if self.mode == "list":
            self.header.grid(row=0, column=0, columnspan=2, sticky="ew")
        else:
            self.header.grid_remove()
        self.text.clear()
        self._relayout_needed = True
        self._schedule()

    def _layout(self) -> None:
        self.arrangement.arrange(self._width, self._count)
        self._cols = self.arrangement.cols
        if isinstance(self.arrangement, Uniform):
            self.cell_w = self.arrangement.cell_w
        if self.mode == "list":
            self.painter.columns = arrange_columns(
                self.cell_w, self.theme, 2 * self.pad + self.painter.list_thumb())
            self.header.show(self.painter.columns, self.margin, self.header.sort)
        self._relayout_needed = False

    def _content_height(self) -> int:
        return int(self.arrangement.height())

    def origin(self, index: int) -> tuple[float, float]:
        """Cell `index`'s top left on the canvas now."""
        x, y, _w, _h = self.arrangement.box(index)
        return x, y - self._top

    _origin = origin

    def index_at(self, x: float, y: float) -> int:
        """The cell under canvas point (x, y), or -1 (a gap, the margin, below the end)."""
        if self._relayout_needed:
            self._layout()
        index = geometry.index_at(self.arrangement, x, y + self._top)
        return index if 0 <= index < self._count else -1

    def visible_range(self) -> tuple[int, int]:
        """First and last index at least partly on screen (last < first when empty)."""
        if not self._count:
            return 0, -1
        return geometry.visible_range(self.arrangement, self._top, self._height)

    def _page_rows(self) -> int:
        return geometry.rows_on_screen(self.arrangement, self._height)

    def picture_of(self, key: str) -> tk.PhotoImage | None:
        """The picture cell `key` shows, if decoded (what a drag carries along)."""
        index = self.source.index_of(key)
        return self.thumbnails.image(key, self.painter.pixels(index)
                                     if index is not None and index < self._count
                                     and not self._relayout_needed else self.thumb_px)

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
        if self._relayout_needed:
            self._layout()
        _x, top, _w, height = self.arrangement.box(min(index, self._count - 1))
        bottom = top + height
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
        self._justified.forget()
        self._release_all()
        self._batch.flush()
        self._relayout_needed = True
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

    def _recycle(self, cell: Cell) -> None:
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
        sizes: list[int] = []
        reshaped = False
        for index in range(first, last + 1):
            data = self.source.cell(index)
            if data is not None and self.mode == "justified":
                reshaped = self._justified.learn(index, data.ratio) or reshaped
            if reshaped:
                continue                      # laid out again below, then painted
            cell = self._cells.get(index)
            if cell is None:
                cell = self._pool.pop() if self._pool else Cell(self.canvas)
                cell.index = index
                cell.shown = ()
                self._cells[index] = cell
                self.painter.place(cell)
            if data is not None:
                keys.append(data.key)
                sizes.append(self.painter.pixels(index))
            self._paint(cell, data)
        if reshaped:
            self._reshape(first)
            return
        if self._count:
            self.source.request(first, last)
        self._batch.flush()
        self.thumbnails.want(keys, sizes if self.mode == "justified" else
                             (sizes[0] if sizes else self.thumb_px))
        height = self._content_height()
        if height <= self._height:
            self.scrollbar.set(0.0, 1.0)
            self.scrollbar.grid_remove()     # nothing to scroll: no scrollbar
        else:
            self.scrollbar.set(self._top / height, (self._top + self._height) / height)
            self.scrollbar.grid()

    def _reshape(self, anchor: int) -> None:
        """New proportions arrived (justified): lay out again with the first visible cell
        where it was on screen, and paint."""
        offset = self.arrangement.box(anchor)[1] - self._top
        self._layout()
        self._release_all()
        self._top = min(max(0.0, self.arrangement.box(anchor)[1] - offset), self._max_top())
        self._batch.flush()
        self._schedule()

    def _paint(self, cell: Cell, data: GridCell | None) -> None:
        key = data.key if data else None
        selected = key is not None and key in self.selection
        focused = key is not None and key == self.selection.focus_key
        hovered = cell.index == self._hover
        image = self.thumbnails.image(key, self.painter.pixels(cell.index)) if key else None
        problem = self._problem(key, data) if image is None else ""
        state = (key, data, selected, focused, hovered, image, problem)
        if state == cell.shown:
            return
        cell.shown = state
        p = self.theme.palette
        if selected:
            colours = (p.selection, p.selection_outline, float(self.theme.px(1.5)))
        elif focused:
            colours = (p.surface_hover if hovered else "", p.focus_outline, 1.0)
        elif hovered:
            colours = (p.surface_hover, "", 0.0)
        else:
            colours = ("", "", 0.0)
        self.painter.paint(cell, data, image, problem, colours)

    def _problem(self, key: str | None, data: GridCell | None) -> str:
        from serpent_tk.ui.browser.thumbnails import problem_words

        problem = getattr(self.thumbnails, "problem", None)
        if key is None or data is None or problem is None:
            return ""
        return problem_words(problem(key), data.picture)

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
        self.header.columns = []
        self.set_cell_size(self.cell_points)
        self.repaint()
