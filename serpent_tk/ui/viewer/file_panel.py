"""What the viewer shows instead of a picture: a file that is not one (its type, name and
size) or a picture that cannot be shown (why: damaged, unreadable format, missing, too
large), with "Open with system app" and "Show in folder". Tk thread only; layout only."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.asset_words import kind_word
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.theme import FONT_TITLE, Theme
from serpent_tk.ui.shell.tooltip import tooltip

TITLES = {"missing": N_("File missing"), "unsupported": N_("Can't read this format"),
          "damaged": N_("Damaged file"), "too-large": N_("Too large to show")}


class FilePanel(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, open_outside: Callable[[], None],
                 show_in_folder: Callable[[], None]) -> None:
        px = theme.px
        super().__init__(master, style="Card.TFrame", padding=(px(28), px(22)))
        self.badge = ttk.Label(self, font=FONT_TITLE, anchor="center")
        self.badge.pack()
        self.title = ttk.Label(self, style="Strong.TLabel", anchor="center", justify="center",
                               wraplength=px(360))
        self.title.pack(pady=(px(8), 0))
        self.text = ttk.Label(self, style="Muted.TLabel", anchor="center", justify="center",
                              wraplength=px(360))
        self.text.pack(pady=(px(4), px(14)))
        buttons = ttk.Frame(self)
        buttons.pack()
        self.open_button = ttk.Button(buttons, text=_("Open with system app"),
                                      style="Accent.TButton", command=open_outside)
        self.open_button.pack(side="left")
        self.show_button = ttk.Button(buttons, text=_("Show in folder"),
                                      command=show_in_folder)
        self.show_button.pack(side="left", padx=(px(8), 0))
        tooltip(self.open_button, theme, _("Open a copy in the app your system uses for "
                                           "this kind of file"))

    def fill(self, asset: dict[str, Any], reason: str | None = None,
             message: str | None = None) -> None:
        """`asset` (an `asset.get` item or a grid summary); with `reason`, why its picture
        cannot be shown (`message`: the sentence)."""
        ext = str(asset.get("ext") or asset.get("format") or _("file")).upper()
        self.badge.configure(text=ext)
        kind = kind_word(str(asset.get("kind") or "other"))
        if reason is not None:
            self.title.configure(text=_(TITLES.get(reason, N_("No picture"))))
            self.text.configure(text=message or "")
            return
        self.title.configure(text=str(asset.get("name") or ""))
        self.text.configure(text=" · ".join(
            part for part in (f"{ext} {kind}", humanize.size(asset.get("size"))) if part))
