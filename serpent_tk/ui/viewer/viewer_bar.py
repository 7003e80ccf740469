"""The viewer's bar: back to the grid, the asset's name and place ("3 of 40"), the zoom
("42 %", Fit, 100 %, − +) and "Open with system app". Tk thread only. Layout only: the
buttons call the viewer."""

from __future__ import annotations

import tkinter as tk
from tkinter import ttk
from typing import Any

from serpent_tk.ui.browser.cell_text import middle
from serpent_tk.ui.language.formats import number
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus.action_table import MOD_NAME
from serpent_tk.ui.shell.theme import FONT_STRONG, Theme
from serpent_tk.ui.shell.tooltip import tooltip


class ViewerBar(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, viewer: Any) -> None:
        px = theme.px
        super().__init__(master, padding=(px(8), px(5)))
        self.theme = theme
        self.back = ttk.Button(self, text="←", width=3, command=viewer.close)
        self.back.pack(side="left")
        tooltip(self.back, theme, _("Back to the grid (Esc)"))
        self.previous = ttk.Button(self, text="‹", width=2, command=lambda: viewer.step(-1))
        self.previous.pack(side="left", padx=(px(6), 0))
        tooltip(self.previous, theme, _("Previous (Left arrow)"))
        self.next = ttk.Button(self, text="›", width=2, command=lambda: viewer.step(1))
        self.next.pack(side="left", padx=(px(2), 0))
        tooltip(self.next, theme, _("Next (Right arrow)"))
        self.open_button = ttk.Button(self, text=_("Open with system app"),
                                      command=lambda: viewer.open_outside(viewer._keys()))
        self.open_button.pack(side="right")
        tooltip(self.open_button, theme, _("Open a copy in your usual app ({key})").format(
            key=f"{MOD_NAME}+Enter"))
        self.zoom_in = ttk.Button(self, text="+", width=2, command=viewer.zoom_in)
        self.zoom_in.pack(side="right", padx=(0, px(10)))
        tooltip(self.zoom_in, theme, _("Zoom in (+ or the wheel)"))
        self.zoom_out = ttk.Button(self, text="−", width=2, command=viewer.zoom_out)
        self.zoom_out.pack(side="right", padx=(0, px(2)))
        tooltip(self.zoom_out, theme, _("Zoom out (− or the wheel)"))
        self.actual = ttk.Button(self, text="100 %", command=viewer.actual_size)
        self.actual.pack(side="right", padx=(0, px(6)))
        tooltip(self.actual, theme, _("Actual size: one picture pixel per screen pixel (1)"))
        self.fit = ttk.Button(self, text=_("Fit"), command=viewer.fit)
        self.fit.pack(side="right", padx=(0, px(4)))
        tooltip(self.fit, theme, _("Fit the window (0)"))
        self.zoom_label = ttk.Label(self, style="Caption.TLabel", width=6, anchor="e")
        self.zoom_label.pack(side="right", padx=(0, px(8)))
        self.title = ttk.Label(self, style="Strong.TLabel", anchor="w")
        self.position = ttk.Label(self, style="Caption.TLabel")
        self.position.pack(side="left", padx=(px(10), 0))
        self.title.pack(side="left", fill="x", expand=True, padx=(px(8), px(8)))
        self.title.bind("<Configure>", lambda e: self._fit_title(e.width))
        self._name = ""
        self._room = 0

    def show_asset(self, name: str, index: int | None, total: int) -> None:
        self._name = name
        self._fit_title(self._room)
        self.show_position(index, total)

    def _fit_title(self, width: int) -> None:
        """A long name is shortened in the middle to the room the bar leaves it."""
        self._room = width
        font = self.theme.font(FONT_STRONG)
        text = self._name if width <= 1 else middle(self._name, font, width)
        if str(self.title.cget("text")) != text:
            self.title.configure(text=text)

    def show_position(self, index: int | None, total: int) -> None:
        self.position.configure(text=_("{index} of {total}").format(
            index=number(index + 1), total=number(total)) if index is not None and total
            else "")

    def show_zoom(self, percent: int | None, *, zoomable: bool) -> None:
        self.zoom_label.configure(text=f"{percent} %" if percent is not None else "")
        state = ["!disabled"] if zoomable else ["disabled"]
        for button in (self.zoom_in, self.zoom_out, self.actual, self.fit):
            button.state(state)
