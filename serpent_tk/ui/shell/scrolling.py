"""A vertically scrolling container for pages taller than their window. Tk thread only.

Put children in `.inner`. The scrollbar shows only when needed; the wheel scrolls while the
pointer is over the page.
"""

from __future__ import annotations

import tkinter as tk
from tkinter import ttk

from serpent_tk.ui.shell.theme import Theme


class ScrollableFrame(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self.canvas = tk.Canvas(self, highlightthickness=0, borderwidth=0,
                                background=theme.palette.background)
        self.scrollbar = ttk.Scrollbar(self, orient="vertical", command=self.canvas.yview)
        self.inner = ttk.Frame(self.canvas)
        self._window = self.canvas.create_window(0, 0, window=self.inner, anchor="nw")
        self.canvas.configure(yscrollcommand=self._scrolled)
        self.canvas.grid(row=0, column=0, sticky="nsew")
        self.scrollbar.grid(row=0, column=1, sticky="ns")
        self.rowconfigure(0, weight=1)
        self.columnconfigure(0, weight=1)
        self.inner.bind("<Configure>", lambda e: self._update_region())
        self.canvas.bind("<Configure>", self._on_resize)
        for sequence in ("<MouseWheel>", "<Button-4>", "<Button-5>"):
            self.bind_all(sequence, self._on_wheel, add="+")
        theme.on_change(lambda: self.canvas.configure(background=theme.palette.background))

    def _update_region(self) -> None:
        height = self.inner.winfo_reqheight()
        self.canvas.configure(scrollregion=(0, 0, self.inner.winfo_reqwidth(), height))
        if height <= self.canvas.winfo_height():
            self.canvas.yview_moveto(0)      # all of it fits: nothing may stay scrolled away

    def scroll_to_top(self) -> None:
        self.canvas.yview_moveto(0)

    def _on_resize(self, event: tk.Event) -> None:
        self.canvas.itemconfigure(self._window, width=event.width)
        self._update_region()

    def _scrolled(self, first: float | str, last: float | str) -> None:
        self.scrollbar.set(first, last)
        if float(first) <= 0.0 and float(last) >= 1.0:
            self.scrollbar.grid_remove()
        else:
            self.scrollbar.grid()

    def _on_wheel(self, event: tk.Event) -> None:
        try:
            widget = self.winfo_containing(event.x_root, event.y_root)
        except (tk.TclError, KeyError):
            return
        if widget is None or not str(widget).startswith(str(self)):
            return
        if not self.scrollbar.winfo_ismapped():
            return
        if event.num == 4 or event.delta > 0:
            self.canvas.yview_scroll(-2, "units")
        else:
            self.canvas.yview_scroll(2, "units")
