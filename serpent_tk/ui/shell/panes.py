"""The three panes side by side: sidebar | grid (or viewer) | inspector. Tk thread only.

The sidebar and the inspector can be hidden and shown again (View menu, Ctrl+B,
Ctrl+Shift+I, the toolbar's ◧ and ◨), coming back at the width they had. Dragging a divider
stops where a pane would get narrower than it can lay out (`MIN_*`, in points), so text is
wrapped rather than cut off; the grid keeps room for a column of thumbnails. A pane keeps the
width the person gave it (`preferred`): a narrow window squeezes it for a while, and when the
window grows again it comes back to that width (and that is the width remembered).
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.tk_typed import panes, sash_position

MIN_SIDEBAR_PT = 120
MIN_INSPECTOR_PT = 190
MIN_MIDDLE_PT = 160


class Panes:
    def __init__(self, paned: ttk.PanedWindow, theme: Theme, sidebar: tk.Widget,
                 middle: tk.Widget, inspector: tk.Widget) -> None:
        self.paned = paned
        self.theme = theme
        self.widgets = {"sidebar": sidebar, "middle": middle, "inspector": inspector}
        self.widths = {"sidebar": theme.px(MIN_SIDEBAR_PT) * 2,
                       "inspector": theme.px(MIN_INSPECTOR_PT) * 2}
        self._preferred: dict[str, int] = {}       # what the person chose, squeezed or not
        self._dragging = False
        self.on_change: Callable[[], None] = lambda: None
        paned.add(sidebar, weight=0)
        paned.add(middle, weight=1)
        paned.add(inspector, weight=0)
        paned.bind("<ButtonPress-1>", self._pressed, add="+")
        paned.bind("<B1-Motion>", lambda e: self._clamp_soon(), add="+")
        paned.bind("<ButtonRelease-1>", self._released, add="+")
        paned.bind("<Configure>", lambda e: self._clamp_soon(), add="+")
        self._clamp_pending = False

    # showing and hiding ------------------------------------------------------------------
    def shown(self, name: str) -> bool:
        return str(self.widgets[name]) in panes(self.paned)

    def toggle(self, name: str) -> None:
        self.show(name, not self.shown(name))

    def show(self, name: str, visible: bool) -> None:
        if visible == self.shown(name):
            return
        widget = self.widgets[name]
        if not visible:
            self.widths[name] = self.preferred(name)
            self.paned.forget(widget)
        elif name == "sidebar":
            self.paned.insert(0, widget, weight=0)
        else:
            self.paned.add(widget, weight=0)
        if visible:
            self.paned.after_idle(lambda: self.set_width(name, self.widths[name]))
        self.on_change()

    # widths ------------------------------------------------------------------------------
    def preferred(self, name: str) -> int:
        """The width the person chose for the pane (not what a narrow window left it)."""
        return self._preferred.get(name) or self.width(name) or self.widths[name]

    def _pressed(self, event: tk.Event) -> None:
        self._dragging = str(self.paned.identify(event.x, event.y)).isdigit()  # on a sash

    def _released(self, _event: tk.Event) -> None:
        if self._dragging:
            self._dragging = False
            self._clamp()
            for name in ("sidebar", "inspector"):
                if self.shown(name):
                    self._preferred[name] = self.width(name)
        self._clamp_soon()

    def width(self, name: str) -> int:
        """The pane's width in pixels now (0 while hidden or before layout)."""
        if not self.shown(name):
            return 0
        try:
            if name == "sidebar":
                return sash_position(self.paned, 0)
            last = len(panes(self.paned)) - 2
            return int(self.paned.winfo_width() - sash_position(self.paned, last))
        except tk.TclError:
            return 0

    def set_width(self, name: str, pixels: int) -> None:
        """Make a shown pane `pixels` wide (within the limits)."""
        self._preferred[name] = pixels
        if not self.shown(name) or self.paned.winfo_width() <= 1:
            self.widths[name] = pixels
            return
        with contextlib.suppress(tk.TclError):
            if name == "sidebar":
                sash_position(self.paned, 0, pixels)
            else:
                last = len(panes(self.paned)) - 2
                sash_position(self.paned, last, self.paned.winfo_width() - pixels)
        self._clamp()

    def minimum(self, name: str) -> int:
        return self.theme.px({"sidebar": MIN_SIDEBAR_PT, "inspector": MIN_INSPECTOR_PT,
                              "middle": MIN_MIDDLE_PT}[name])

    def _clamp_soon(self) -> None:
        if not self._clamp_pending:
            self._clamp_pending = True
            self.paned.after_idle(self._clamp)

    def _clamp(self) -> None:
        """Keep each shown pane at least its minimum; the grid keeps its minimum first."""
        self._clamp_pending = False
        total = self.paned.winfo_width()
        if total <= 1:
            return
        with contextlib.suppress(tk.TclError):
            sidebar = self.shown("sidebar")
            inspector = self.shown("inspector")
            left = sash_position(self.paned, 0) if sidebar else 0
            right_sash = len(panes(self.paned)) - 2
            right = total - sash_position(self.paned, right_sash) if inspector else 0
            if sidebar:
                left = max(self.minimum("sidebar"), left)
            if inspector:
                right = max(self.minimum("inspector"), right)
            spare = total - left - right - self.minimum("middle")
            for name in ("sidebar", "inspector"):       # room again: back to their widths
                wanted = self._preferred.get(name, 0)
                current = left if name == "sidebar" else right
                if self.shown(name) and spare > 0 and not self._dragging and wanted > current:
                    grow = min(spare, wanted - current)
                    spare -= grow
                    if name == "sidebar":
                        left += grow
                    else:
                        right += grow
            if spare < 0:                       # too narrow: the panes give, down to minimum
                give = -spare
                for name in ("inspector", "sidebar"):
                    if not self.shown(name):
                        continue
                    current = right if name == "inspector" else left
                    room = current - self.minimum(name)
                    taken = min(room, give)
                    give -= taken
                    if name == "inspector":
                        right -= taken
                    else:
                        left -= taken
            if sidebar and sash_position(self.paned, 0) != left:
                sash_position(self.paned, 0, left)
            if inspector and total - sash_position(self.paned, right_sash) != right:
                sash_position(self.paned, right_sash, total - right)
