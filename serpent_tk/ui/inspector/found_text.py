"""The inspector's "Text in the picture": the words an analyser found in the asset (the
`ocr-text` plugin), read-only but selectable, with Copy. Tk thread only; layout only."""

from __future__ import annotations

import tkinter as tk
from tkinter import ttk
from typing import Any

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.theme import FONT_BODY, Theme

MAX_LINES = 8  # taller text scrolls


class FoundText(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        px = theme.px
        head = ttk.Frame(self)
        head.pack(fill="x", pady=(px(8), px(2)))
        self.label = ttk.Label(head, text=_("Text in the picture"), style="Caption.TLabel")
        self.label.pack(side="left")
        self.copy_button = ttk.Button(head, text=_("Copy"), command=self.copy)
        self.copy_button.pack(side="right")
        self.text = tk.Text(self, height=3, wrap="word", font=FONT_BODY, relief="flat",
                            borderwidth=0, highlightthickness=1, padx=px(6), pady=px(4),
                            cursor="xterm")
        self.text.pack(fill="x")
        # read-only, but the words can be selected and copied (Ctrl+C, the Copy button)
        self.text.bind("<Key>", self._read_only)
        self.text.bind("<<Paste>>", lambda e: "break")
        self.text.bind("<<Cut>>", lambda e: "break")
        theme.on_change(self._restyle)
        self._restyle()

    def show(self, asset: dict[str, Any]) -> bool:
        """Fill in the asset's found text; False (and nothing to show) when it has none."""
        found = "\n".join(str(part.get("text") or "") for part in asset.get("foundText") or []
                          if part.get("text"))
        self.text.delete("1.0", "end")
        self.text.insert("1.0", found)
        lines = int(self.text.index("end-1c").split(".")[0])
        self.text.configure(height=max(1, min(MAX_LINES, lines)))
        return bool(found)

    @property
    def value(self) -> str:
        return str(self.text.get("1.0", "end-1c"))

    def copy(self) -> None:
        """The selected words, or all of them, on the clipboard."""
        try:
            chosen = str(self.text.get("sel.first", "sel.last"))
        except tk.TclError:
            chosen = self.value
        self.clipboard_clear()
        self.clipboard_append(chosen)

    def _read_only(self, event: tk.Event) -> str | None:
        copying = (int(event.state) & 0x4) and event.keysym.lower() in ("c", "a", "insert")
        moving = event.keysym in ("Left", "Right", "Up", "Down", "Home", "End", "Prior",
                                  "Next", "Tab")
        return None if copying or moving else "break"

    def _restyle(self) -> None:
        p = self.theme.palette
        self.text.configure(background=p.background, foreground=p.text,
                            insertbackground=p.text, highlightbackground=p.placeholder,
                            highlightcolor=p.accent, selectbackground=p.accent)
