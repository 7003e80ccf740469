"""A row of buttons that wraps onto more lines instead of cutting a button off. Tk thread
only: `add` buttons in order; each keeps its full width at any width of the inspector."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Sequence
from tkinter import ttk

from serpent_tk.ui.shell.theme import Theme


class ButtonRow(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self._shown: list[tk.Widget] = []
        self._width = 0
        self.bind("<Configure>", self._on_resize)

    def show(self, buttons: Sequence[tk.Widget]) -> None:
        """Show exactly `buttons` (children of this row), in this order."""
        self._shown = list(buttons)
        self._layout()

    def _on_resize(self, event: tk.Event) -> None:
        if event.width != self._width:
            self._width = event.width
            self._layout()

    def _layout(self) -> None:
        """Place the buttons left to right, starting a new line where the next one would
        not fit whole (each line its own: no shared columns)."""
        for child in self.winfo_children():
            if child not in self._shown and isinstance(child, tk.Widget):
                child.place_forget()
        gap = self.theme.px(6)
        width = self._width if self._width > 1 else self.winfo_reqwidth()
        x = y = line_height = 0
        for button in self._shown:
            need, height = button.winfo_reqwidth(), button.winfo_reqheight()
            if x and x + need > width:
                x, y, line_height = 0, y + line_height + gap, 0
            button.place(x=x, y=y)
            x += need + gap
            line_height = max(line_height, height)
        total = y + line_height
        if int(str(self.cget("height") or 0)) != total:
            self.configure(height=max(1, total))
