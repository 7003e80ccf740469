"""One group of the duplicates review: a checkbox (include this group), then every member
side by side — its picture, name, dimensions and file size, the suggested keeper marked —
and which one to keep (a click on a picture or its Keep button). Tk thread only.

Layout and input only: `DuplicatesWindow` hands it a `Group` and what choosing does.
"""

from __future__ import annotations

import re
import tkinter as tk
from collections.abc import Callable
from functools import partial
from tkinter import ttk
from typing import Any

from serpent_tk.ui.duplicates.review import Group
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.shell.theme import FONT_CAPTION, Theme
from serpent_tk.ui.tk_typed import ignoring_event

THUMB_PT = 128
PER_ROW = 5


def member_facts(member: dict[str, Any]) -> str:
    """'480 × 360 · 120 KB · JPG'."""
    width, height = member.get("width"), member.get("height")
    parts = [_("{width} × {height}").format(width=width, height=height)] \
        if width and height else []
    parts.append(humanize.size(member.get("size")))
    if member.get("ext"):
        parts.append(str(member["ext"]).upper())
    return " · ".join(parts)


def keep_reason_words(reason: str) -> str:
    """Why the library suggests keeping one ("the largest picture (4000 x 3000)", "the
    largest file", "the oldest"), in the window's words. (The library's English is only
    compared here: i18n: not words.)"""
    found = re.search(r"\((\d+) x (\d+)\)", reason)
    if reason.startswith("the largest picture") and found:  # i18n: not words
        return _("the largest picture ({width} × {height})").format(width=found.group(1),
                                                                    height=found.group(2))
    if reason.startswith("the largest file"):  # i18n: not words
        return _("the largest file")
    if reason.startswith("the oldest"):  # i18n: not words
        return _("the oldest")
    return reason


def shortened(name: str, room: int = 22) -> str:
    """A long name cut in the middle, so its start and its end both show."""
    if len(name) <= room:
        return name
    head = (room - 1) * 2 // 3
    return name[:head] + "…" + name[len(name) - (room - 1 - head):]


class GroupCard(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, number: int, group: Group,
                 picture: Callable[[str, int, Callable[[Any], None]], None],
                 on_keep: Callable[[Group, str], None],
                 on_include: Callable[[Group, bool], None]) -> None:
        px = theme.px
        super().__init__(master, padding=(px(10), px(8)))
        self.theme = theme
        self.group = group
        self.on_keep = on_keep
        head = ttk.Frame(self)
        head.pack(fill="x")
        self.included = tk.BooleanVar(value=group.included)
        self.check = ttk.Checkbutton(
            head, variable=self.included,
            text=ngettext("Group {number} · {n} image", "Group {number} · {n} images",
                          len(group.members)).format(number=number, n=len(group.members)),
            command=lambda: on_include(group, self.included.get()))
        self.check.pack(side="left")
        if group.keep_reason:
            ttk.Label(head, style="Caption.TLabel",
                      text=_("Suggested to keep: {why}").format(
                          why=keep_reason_words(group.keep_reason))).pack(
                side="left", padx=(px(12), 0))
        row = ttk.Frame(self)
        row.pack(fill="x", pady=(px(6), 0))
        self.keep_var = tk.StringVar(value=group.keep or "")
        self.tiles: dict[str, tk.Frame] = {}
        self.pictures: dict[str, tk.Label] = {}
        self.facts: dict[str, tk.Label] = {}
        self.marks: dict[str, tk.Label] = {}      # "★ Suggested", "→ Trash"
        ttk.Style(self).configure("Tile.TRadiobutton", background=theme.palette.surface)
        self._photos: dict[str, Any] = {}
        size = px(THUMB_PT)
        p = theme.palette
        for index, member in enumerate(group.members):
            asset_id = str(member["assetId"])
            tile = tk.Frame(row, background=p.surface, highlightthickness=px(2),
                            padx=px(6), pady=px(6))
            tile.grid(row=index // PER_ROW, column=index % PER_ROW, padx=(0, px(8)),
                      pady=(0, px(8)), sticky="n")
            holder = tk.Frame(tile, width=size, height=size, background=p.placeholder)
            holder.pack()
            holder.pack_propagate(False)
            picture_label = tk.Label(holder, background=p.placeholder, cursor="hand2",
                                     text="…", foreground=p.text_muted, font=FONT_CAPTION)
            picture_label.pack(fill="both", expand=True)
            picture_label.bind("<Button-1>", ignoring_event(partial(self.choose, asset_id)))
            name = tk.Label(tile, text=shortened(str(member.get("name", ""))),
                            background=p.surface, foreground=p.text, anchor="w")
            name.pack(fill="x", pady=(px(4), 0))
            facts = tk.Label(tile, text=member_facts(member), background=p.surface,
                             foreground=p.text_muted, font=FONT_CAPTION, anchor="w")
            facts.pack(fill="x")
            self.facts[asset_id] = facts
            mark = tk.Label(tile, background=p.surface, font=FONT_CAPTION, anchor="w")
            mark.pack(fill="x")
            self.marks[asset_id] = mark
            ttk.Radiobutton(tile, text=_("Keep"), value=asset_id, variable=self.keep_var,
                            style="Tile.TRadiobutton",
                            command=partial(self.choose, asset_id)).pack(anchor="w")
            self.tiles[asset_id] = tile
            self.pictures[asset_id] = picture_label
            picture(asset_id, size, partial(self._show_picture, asset_id))
        self.show_choice()

    def facts_text(self, asset_id: str) -> str:
        """The name and facts a member's tile shows."""
        return str(self.facts[asset_id].cget("text"))

    def choose(self, asset_id: str) -> None:
        """Keep `asset_id` (the others of this group go to the Trash)."""
        self.keep_var.set(asset_id)
        self.on_keep(self.group, asset_id)
        self.show_choice()

    def show_choice(self) -> None:
        p = self.theme.palette
        group = self.group
        for asset_id, tile in self.tiles.items():
            kept = asset_id == group.keep
            tile.configure(highlightbackground=p.accent if kept else p.surface,
                           highlightcolor=p.accent if kept else p.surface)
            if asset_id == group.suggested:
                self.marks[asset_id].configure(text=_("★ Suggested"), foreground=p.star_on)
            elif not kept and group.included:
                self.marks[asset_id].configure(text=_("→ Trash"), foreground=p.text_muted)
            else:
                self.marks[asset_id].configure(text="")
        self.included.set(group.included)

    def _show_picture(self, asset_id: str, photo: Any) -> None:
        label = self.pictures.get(asset_id)
        if label is None or not label.winfo_exists():
            return
        if photo is None:
            label.configure(text=_("No preview"))
            return
        self._photos[asset_id] = photo
        label.configure(image=photo, text="")
