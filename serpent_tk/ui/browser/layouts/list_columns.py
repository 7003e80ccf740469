"""The list layout's columns: name, kind, size, dimensions, rating, tags, added. Tk thread
only.

Which columns fit and how wide they are (a narrow window drops the kind, then dimensions,
tags, added, rating and size, rather than cutting every word), the words of each (sizes and
dates in the person's locale, cached: the same rows are painted again and again while
scrolling), and the header above the rows, whose headings sort the list where the library can
sort by them.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from serpent_tk.ui.language import formats
from serpent_tk.ui.language.asset_words import kind_word
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.theme import FONT_CAPTION, Theme
from serpent_tk.ui.tk_typed import item_option

if TYPE_CHECKING:
    from serpent_tk.ui.browser.grid import GridCell

# id, heading, anchor, the sorts it offers (the first is where a click goes, the second where
# a second click goes). Name and tags share what is left; the others are as wide as their
# widest words (`_samples`).
Anchor = Literal["w", "e"]
COLUMNS: tuple[tuple[str, str, Anchor, tuple[str, ...]], ...] = (
    ("name", N_("Name"), "w", ("name-asc", "name-desc")),
    ("kind", N_("Kind"), "w", ()),
    ("size", N_("Size"), "e", ("size-desc",)),
    ("dimensions", N_("Dimensions"), "w", ()),
    ("rating", N_("Rating"), "w", ("rating-desc",)),
    ("tags", N_("Tags"), "w", ()),
    ("added", N_("Added"), "w", ("added-desc", "added-asc")),
)
FLEXIBLE = ("name", "tags")
# in a narrow window, in this order
DROPPED_FIRST = ("kind", "dimensions", "tags", "added", "rating", "size")
MIN_NAME_PT = 110
MIN_TAGS_PT = 50
GAP_PT = 8

Column = tuple[str, float, float, Anchor]   # id, x (from the row's left), width, anchor


def _samples(column: str) -> list[str]:
    """The widest words `column` usually shows, in the window's language."""
    if column == "kind":
        return [_("{type} · {kind}").format(type="BLEND", kind=kind_word(kind))
                for kind in ("image", "video", "document", "model", "archive")]
    if column == "size":
        return [formats.size(999_900_000), formats.size(999)]
    if column == "dimensions":
        return ["8888 × 8888"]
    if column == "rating":
        return ["★★★★★"]
    if column == "added":
        return [formats.day(datetime(2026, month, 28)) for month in (5, 9, 12)]
    return []


def _width(theme: Theme, column: str, heading: str) -> float:
    """How wide `column` is: its widest sample or its heading with a sort arrow."""
    caption = theme.font(FONT_CAPTION)
    widest = max((caption.measure(words) for words in _samples(column)), default=0)
    return max(widest, caption.measure(_(heading) + " ↓")) + theme.px(2)


def arrange(width: float, theme: Theme, text_left: float) -> list[Column]:
    """The columns that fit a row `width` pixels wide whose words start at `text_left`."""
    px = theme.px
    widths = {ident: _width(theme, ident, heading) for ident, heading, _a, _s in COLUMNS
              if ident not in FLEXIBLE}
    shown = list(COLUMNS)
    for drop in ("",) + DROPPED_FIRST:
        shown = [c for c in shown if c[0] != drop]
        fixed = sum(widths[c[0]] + px(GAP_PT) for c in shown if c[0] not in FLEXIBLE)
        flexible = [c for c in shown if c[0] in FLEXIBLE]
        room = width - text_left - px(GAP_PT) - fixed - px(GAP_PT) * (len(flexible) - 1)
        if room >= px(MIN_NAME_PT) + (px(MIN_TAGS_PT) if len(flexible) > 1 else 0):
            break
    shares = {"name": 0.62, "tags": 0.38} if len(flexible) > 1 else {"name": 1.0}
    columns: list[Column] = []
    x = text_left
    for ident, _heading, anchor, _sorts in shown:
        width_px = widths[ident] if ident in widths else max(1.0, room * shares[ident])
        columns.append((ident, x, width_px, anchor))
        x += width_px + px(GAP_PT)
    return columns


@lru_cache(maxsize=4096)
def _added(value: str, language: str) -> str:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return ""
    return formats.day(moment.astimezone() if moment.tzinfo else moment)


@lru_cache(maxsize=4096)
def _size(value: int, language: str) -> str:
    return formats.size(value)


def words(cell: GridCell, column: str) -> str:
    """What `cell` shows in `column`."""
    language = formats.locale().language
    if column == "name":
        return cell.title
    if column == "kind":
        kind = kind_word(cell.kind) if cell.kind else ""
        return _("{type} · {kind}").format(type=cell.badge, kind=kind) if kind else cell.badge
    if column == "size":
        return _size(cell.size, language) if cell.size is not None else ""
    if column == "dimensions":
        return cell.dimensions
    if column == "rating":
        return "★" * cell.stars
    if column == "tags":
        return ", ".join(cell.tags)
    if column == "added":
        return _added(cell.added, language) if cell.added else ""
    return ""


class ListHeader(tk.Canvas):
    """The headings above the list's rows; a click on one that sorts sorts by it (again:
    the other way, where there is one)."""

    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        self.theme = theme
        line = theme.font(FONT_CAPTION).metrics("linespace")
        super().__init__(master, height=line + theme.px(8), highlightthickness=0,
                         borderwidth=0)
        self.on_sort: Callable[[str], None] | None = None
        self.sort = ""                     # the list's sort now (an arrow beside its column)
        self.columns: list[Column] = []
        self.left = 0.0
        self.bind("<Button-1>", self._on_click)

    def show(self, columns: list[Column], left: float, sort: str) -> None:
        if (columns, left, sort) == (self.columns, self.left, self.sort) and self.find_all():
            return
        self.columns, self.left, self.sort = columns, left, sort
        self.delete("all")
        p = self.theme.palette
        self.configure(background=p.background)
        middle = int(self.cget("height")) / 2
        for ident, x, width, anchor in columns:
            sorts = next(c[3] for c in COLUMNS if c[0] == ident)
            arrow = ""
            if sort in sorts:
                arrow = " ↑" if sort.endswith("-asc") else " ↓"
            heading = _(next(c[1] for c in COLUMNS if c[0] == ident)) + arrow
            at = left + x + (width if anchor == "e" else 0)
            self.create_text(at, middle, text=heading, anchor=anchor, font=FONT_CAPTION,
                             fill=p.text if arrow else p.text_muted, tags=(ident,))
        bottom = int(self.cget("height")) - 1
        self.create_line(0, bottom, self.winfo_screenwidth(), bottom, fill=p.surface_hover)

    def set_sort(self, sort: str) -> None:
        """The list is sorted by `sort` now."""
        if sort != self.sort and self.columns:
            self.show(self.columns, self.left, sort)
        self.sort = sort

    def headings(self) -> list[str]:
        """The headings shown, left to right (tests)."""
        return [item_option(self, item, "text") for item in self.find_all()
                if str(self.type(item)) == "text"]

    def click(self, column: str) -> None:
        """A click on `column`'s heading."""
        sorts = next((c[3] for c in COLUMNS if c[0] == column), ())
        if not sorts or self.on_sort is None:
            return
        again = self.sort == sorts[0] and len(sorts) > 1
        self.on_sort(sorts[1] if again else sorts[0])

    def _on_click(self, event: tk.Event) -> None:
        for ident, x, width, _anchor in self.columns:
            if self.left + x <= event.x <= self.left + x + width:
                self.click(ident)
                return
