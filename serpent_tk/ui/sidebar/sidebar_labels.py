"""Sidebar rows that fit: a name too long for the sidebar ends in "…" instead of running
under the numbers, and the number column is only as wide as its widest number.

Tk thread only. The sidebar hands every row's full label over (`text()` returns what to
show now); on a resize, a theme change or new counts the labels are fitted again, once per
idle moment. Where the text of a row starts at each depth is measured from the tree itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from tkinter import ttk

from serpent_tk.ui.shell.theme import FONT_BODY, Theme

FALLBACK_OFFSETS = (31, 20)   # text start of a top-level row, indent per level (pixels)


def fit_end(measure: Callable[[str], int], text: str, width: int) -> str:
    """`text`, or as much of it as fits `width` pixels followed by "…"."""
    if measure(text) <= width:
        return text
    low, high, best = 0, len(text), "…"
    while low <= high:
        keep = (low + high) // 2
        candidate = text[:keep].rstrip() + "…"
        if measure(candidate) <= width:
            best, low = candidate, keep + 1
        else:
            high = keep - 1
    return best


class LabelFitter:
    def __init__(self, tree: ttk.Treeview, theme: Theme,
                 counts: Callable[[], Iterable[str]]) -> None:
        self.tree = tree
        self.theme = theme
        self.counts = counts
        self.labels: dict[str, str] = {}        # iid -> the whole label
        self._shown: dict[str, str] = {}        # iid -> what the row shows now
        self._offsets: tuple[int, int] | None = None
        self._width = 0
        self._pending = False
        self._cache: dict[tuple[str, int], str] = {}
        tree.bind("<Configure>", lambda e: self.refit_soon(), add="+")
        theme.on_change(self._theme_changed)

    def text(self, iid: str, label: str, parent: str) -> str:
        """Remember `label` for `iid` (a child of `parent`); what to show now."""
        self.labels[iid] = label
        shown = self._fit(label, self._depth(parent) + 1)
        self._shown[iid] = shown
        return shown

    def forget(self, iid: str) -> None:
        self.labels.pop(iid, None)
        self._shown.pop(iid, None)

    def refit_soon(self) -> None:
        if not self._pending:
            self._pending = True
            self.tree.after_idle(self.refit)

    def _theme_changed(self) -> None:
        self._offsets = None
        self._cache.clear()
        self.refit_soon()

    # fitting -------------------------------------------------------------------------------
    def refit(self) -> None:
        self._pending = False
        if not self.tree.winfo_exists():
            return
        self._size_columns()
        for iid, label in list(self.labels.items()):
            if not self.tree.exists(iid):
                self.forget(iid)
                continue
            shown = self._fit(label, self._depth(self.tree.parent(iid)) + 1)
            if shown != self._shown.get(iid):
                self._shown[iid] = shown
                self.tree.item(iid, text=shown)

    def _size_columns(self) -> None:
        """The number column as wide as its widest number; the names get the rest."""
        font = self.theme.font(FONT_BODY)
        widest = max((font.measure(c) for c in self.counts() if c), default=0)
        count_width = max(self.theme.px(14), widest + self.theme.px(10))
        tree_width = self.tree.winfo_width()
        if tree_width <= 1:
            return
        if int(self.tree.column("count", "width")) != count_width:
            self.tree.column("count", width=count_width)
        name_width = max(self.theme.px(80), tree_width - count_width)
        if int(self.tree.column("#0", "width")) != name_width:
            self.tree.column("#0", width=name_width)
        if name_width != self._width:
            self._width = name_width
            self._cache.clear()

    def _fit(self, label: str, depth: int) -> str:
        if self._width <= 1:
            return label
        base, indent = self._text_offsets()
        room = self._width - base - indent * depth - self.theme.px(4)
        key = (label, room)
        shown = self._cache.get(key)
        if shown is None:
            shown = fit_end(self.theme.font(FONT_BODY).measure, label, room)
            if len(self._cache) > 5000:
                self._cache.clear()
            self._cache[key] = shown
        return shown

    def _depth(self, iid: str) -> int:
        """0 for a section heading, 1 for its rows, 2 for a subfolder, ..."""
        depth = -1
        while iid:
            depth += 1
            iid = self.tree.parent(iid)
        return depth

    def _text_offsets(self) -> tuple[int, int]:
        """Where a top-level row's text starts, and how much each level indents it."""
        if self._offsets is not None:
            return self._offsets
        starts = []
        for iid in ("section:library", "all"):
            start = self._text_start(iid)
            if start is None:
                return FALLBACK_OFFSETS
            starts.append(start)
        self._offsets = (starts[0], max(0, starts[1] - starts[0]))
        return self._offsets

    def _text_start(self, iid: str) -> int | None:
        if not self.tree.exists(iid):
            return None
        box = self.tree.bbox(iid)
        if not box:
            return None
        x, y, width, height = box
        for offset in range(0, min(width, 300)):
            if self.tree.identify_element(x + offset, y + height // 2) == "text":
                return int(x + offset)
        return None
