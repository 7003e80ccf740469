"""The search box: type to filter the grid (debounced), Escape or ✕ to clear; beside it the
colour filter (`ColorFilter`), combined with the words. Tk thread only."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.browser.color_filter import ColorFilter
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.theme import Theme

DEBOUNCE_MS = 250
PLACEHOLDER = N_("Search names, tags, notes…")


class SearchBar(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, on_search: Callable[[str], None],
                 on_color: Callable[[str | None, float, float], None] = lambda c, t, s: None
                 ) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_search = on_search
        self.var = tk.StringVar()
        self.entry = ttk.Entry(self, textvariable=self.var, width=12)
        self.color = ColorFilter(self, theme, on_color)
        self.color.pack(side="right", padx=(theme.px(8), 0))
        self.entry.pack(side="left", fill="x", expand=True)
        self.clear_button = ttk.Button(self, text="✕", width=2, command=self.clear)
        self._timer: str | None = None
        self._placeholder = False
        self._last = ""
        self.entry.bind("<KeyRelease>", lambda e: self._typed())
        self.entry.bind("<Return>", lambda e: self._run())
        self.entry.bind("<Escape>", lambda e: self.clear())
        self.entry.bind("<FocusIn>", lambda e: self._hide_placeholder())
        self.entry.bind("<FocusOut>", lambda e: self._show_placeholder())
        theme.on_change(self._restyle)
        self._show_placeholder()

    @property
    def text(self) -> str:
        return "" if self._placeholder else self.var.get()

    def focus(self) -> None:
        self.entry.focus_set()
        self.entry.select_range(0, "end")

    def set(self, text: str) -> None:
        self._hide_placeholder()
        self.var.set(text)
        self._clear_button_shown()
        self._run()

    def clear(self, notify: bool = True) -> None:
        if self._placeholder:
            return
        self.var.set("")
        self._last = ""
        self.clear_button.pack_forget()
        if notify:
            self.on_search("")
        if self.focus_get() is not self.entry:
            self._show_placeholder()

    def clear_all(self, notify: bool = True) -> None:
        """No words and no colour: the whole view again."""
        self.clear(notify)
        self.color.clear(notify)

    def _typed(self) -> None:
        if self._timer is not None:
            self.after_cancel(self._timer)
        self._timer = self.after(DEBOUNCE_MS, self._run)
        self._clear_button_shown()

    def _clear_button_shown(self) -> None:
        if self.text:
            self.clear_button.pack(side="left", padx=(self.theme.px(4), 0),
                                   after=self.entry)
        else:
            self.clear_button.pack_forget()

    def _run(self) -> None:
        self._timer = None
        text = self.text.strip()
        if text != self._last:
            self._last = text
            self.on_search(text)

    def _show_placeholder(self) -> None:
        if not self.var.get():
            self._placeholder = True
            self.var.set(_(PLACEHOLDER))
            self.entry.configure(foreground=self.theme.palette.text_muted)

    def _hide_placeholder(self) -> None:
        if self._placeholder:
            self._placeholder = False
            self.var.set("")
            self.entry.configure(foreground=self.theme.palette.text)

    def _restyle(self) -> None:
        self.entry.configure(foreground=self.theme.palette.text_muted if self._placeholder
                             else self.theme.palette.text)
