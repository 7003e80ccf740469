"""Tags of the shown asset(s) as removable chips, plus a field to add one. Tk thread only.

Chips wrap like words (they live in a read-only Text widget). Enter or comma adds what was
typed; the field completes from the library's known tags.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Sequence
from tkinter import ttk

from serpent_tk.ui.theme import FONT_BODY, Theme


class TagEditor(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_add: Callable[[str], None] = lambda tag: None
        self.on_remove: Callable[[str], None] = lambda tag: None
        self.known_tags: list[str] = []
        self.tags: list[str] = []
        self._built = False
        p = theme.palette
        self.chips = tk.Text(self, height=1, wrap="word", borderwidth=0, highlightthickness=0,
                             background=p.background, cursor="arrow", padx=0, pady=0,
                             spacing1=theme.px(2), spacing3=theme.px(2), takefocus=0)
        self.chips.pack(fill="x")
        self.entry_var = tk.StringVar()
        self.entry = ttk.Combobox(self, textvariable=self.entry_var, values=())
        self.entry.pack(fill="x", pady=(theme.px(4), 0))
        self._placeholder = "Add a tag…"
        self._show_placeholder()
        self.entry.bind("<FocusIn>", lambda e: self._hide_placeholder())
        self.entry.bind("<FocusOut>", lambda e: self._show_placeholder())
        self.entry.bind("<Return>", lambda e: self._commit())
        self.entry.bind("<KP_Enter>", lambda e: self._commit())
        self.entry.bind("<comma>", lambda e: self._commit())
        self.entry.bind("<KeyRelease>", self._complete)
        self.entry.bind("<<ComboboxSelected>>", lambda e: self._commit())
        self.chips.bind("<Configure>", lambda e: self._fit_height())
        theme.on_change(self._restyle)
        self.chips.configure(state="disabled")

    def set_tags(self, tags: Sequence[str], force: bool = False) -> None:
        if list(tags) == self.tags and self._built and not force:
            return                       # unchanged: keep the chips (no widget churn)
        self._built = True
        self.tags = list(tags)
        chips = self.chips
        chips.configure(state="normal")
        for child in chips.winfo_children():
            child.destroy()
        chips.delete("1.0", "end")
        for tag in self.tags:
            chips.window_create("end", window=self._chip(tag), padx=self.theme.px(2),
                                pady=self.theme.px(1))
        if not self.tags:
            chips.insert("end", "No tags yet", ("muted",))
            chips.tag_configure("muted", foreground=self.theme.palette.text_muted,
                                font=FONT_BODY)
        chips.configure(state="disabled")
        self.after_idle(self._fit_height)

    def _chip(self, tag: str) -> tk.Frame:
        p, px = self.theme.palette, self.theme.px
        frame = tk.Frame(self.chips, background=p.surface_hover, padx=px(5), pady=px(1))
        label = tk.Label(frame, text=tag, background=p.surface_hover, foreground=p.text,
                         font=FONT_BODY)
        label.pack(side="left")
        close = tk.Label(frame, text="✕", background=p.surface_hover,
                         foreground=p.text_muted, font=FONT_BODY, cursor="hand2")
        close.pack(side="left", padx=(px(4), 0))
        close.bind("<Button-1>", lambda e: self.on_remove(tag))
        frame.tag_name = tag  # type: ignore[attr-defined]  # tests find chips by tag
        return frame

    def chip_names(self) -> list[str]:
        return [getattr(w, "tag_name", "") for w in self.chips.winfo_children()]

    def _fit_height(self) -> None:
        try:
            lines = self.chips.count("1.0", "end", "displaylines")
        except tk.TclError:
            return
        count = lines[0] if isinstance(lines, tuple) else (lines or 1)
        self.chips.configure(height=max(1, min(6, int(count))))

    def _commit(self) -> str:
        text = self.entry_var.get().strip().strip(",").strip()
        if text and text != self._placeholder:
            self.entry_var.set("")
            if text not in self.tags:
                self.on_add(text)
        return "break"

    def _complete(self, event: tk.Event) -> None:
        typed = self.entry_var.get().strip().casefold()
        if not typed or event.keysym in ("Return", "KP_Enter", "Escape", "Up", "Down"):
            return
        matches = [t for t in self.known_tags if t.casefold().startswith(typed)
                   and t not in self.tags][:30]
        self.entry.configure(values=matches)

    def _show_placeholder(self) -> None:
        if not self.entry_var.get():
            self.entry_var.set(self._placeholder)
            self.entry.configure(foreground=self.theme.palette.text_muted)

    def _hide_placeholder(self) -> None:
        if self.entry_var.get() == self._placeholder:
            self.entry_var.set("")
        self.entry.configure(foreground=self.theme.palette.text)

    def _restyle(self) -> None:
        self.chips.configure(background=self.theme.palette.background)
        self.set_tags(self.tags, force=True)
        if self.entry_var.get() == self._placeholder:
            self.entry.configure(foreground=self.theme.palette.text_muted)
