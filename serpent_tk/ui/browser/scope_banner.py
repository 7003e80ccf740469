"""A thin line above the grid that says what a special view is: the Trash (with Empty
Trash…) or a smart collection (its rules in words, with Edit rules…). Hidden elsewhere.

Tk thread only. Layout only: the main window says what to show and what the button does.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.shell.theme import Theme


class ScopeBanner(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        px = theme.px
        super().__init__(master, padding=(px(14), px(6), px(10), px(6)))
        self.theme = theme
        self.title = ttk.Label(self, style="Strong.TLabel")
        self.title.pack(side="left")
        self.text = ttk.Label(self, style="Muted.TLabel", anchor="w")
        self.text.pack(side="left", fill="x", expand=True, padx=(px(8), px(8)))
        self.button = ttk.Button(self)
        self.button.pack(side="right")
        self.rule = ttk.Separator(master)
        self.bind("<Configure>", self._wrap)
        self._before: tk.Misc | None = None

    def place_above(self, widget: tk.Misc) -> None:
        """Where the banner goes when shown (packed above `widget`)."""
        self._before = widget

    def show(self, title: str, text: str = "",
             action: tuple[str, Callable[[], None]] | None = None) -> None:
        self.title.configure(text=title)
        self.text.configure(text=text)
        if action is not None:
            self.button.configure(text=action[0], command=action[1])
            self.button.pack(side="right")
        else:
            self.button.pack_forget()
        if not self.winfo_manager():
            if self._before is None:
                self.pack(side="top", fill="x")
                self.rule.pack(side="top", fill="x")
            else:
                self.pack(side="top", fill="x", before=self._before)
                self.rule.pack(side="top", fill="x", before=self._before)

    def hide(self) -> None:
        if self.winfo_manager():
            self.pack_forget()
            self.rule.pack_forget()

    @property
    def shown(self) -> str:
        return str(self.title.cget("text")) if self.winfo_manager() else ""

    def _wrap(self, event: tk.Event) -> None:
        room = event.width - self.title.winfo_reqwidth() - self.button.winfo_reqwidth() \
            - self.theme.px(48)
        self.text.configure(wraplength=max(self.theme.px(120), room))
