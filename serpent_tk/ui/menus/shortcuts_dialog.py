"""Help → Keyboard shortcuts: every shortcut of the action table by menu, and the keys and
mouse moves of the grid and the viewer. Tk thread only."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Sequence
from tkinter import ttk

from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.menus.action_table import MOD_NAME, Action, shortcut_rows
from serpent_tk.ui.shell.dialogs import Dialog
from serpent_tk.ui.shell.theme import Theme

# Keys and pointer moves that belong to the grid or the viewer themselves (not menu actions)
OTHER_KEYS = (
    (N_("In the grid"), N_("Arrows, Home / End, Page Up / Down"), N_("Move the selection")),
    (N_("In the grid"), N_("Shift + the same"), N_("Extend the selection")),
    (N_("In the grid"), N_("Click, {mod}+click, Shift+click, drag a box"),
     N_("Select one, toggle one, a range, a rectangle")),
    (N_("In the grid"), N_("Double-click"), N_("Open in the viewer")),
    (N_("In the grid"), N_("Drag onto a folder, tag, collection or the Trash"),
     N_("File, tag, collect or trash")),
    (N_("In the grid"), N_("Drag out of the window"), N_("Copy the files into another app")),
    (N_("In the viewer"), N_("Wheel"), N_("Zoom at the pointer")),
    (N_("In the viewer"), N_("Drag"), N_("Move the picture")),
    (N_("In the viewer"), N_("Double-click"), N_("100 % there, or back to fit")),
)


class ShortcutsDialog(Dialog):
    def __init__(self, parent: tk.Misc, theme: Theme, actions: Sequence[Action]) -> None:
        super().__init__(parent, theme, _("Keyboard shortcuts"))
        px = theme.px
        self.resizable(True, True)
        body = ttk.Frame(self, padding=(px(16), px(14), px(16), px(12)))
        body.pack(fill="both", expand=True)
        ttk.Label(body, text=_("Keyboard shortcuts"), style="Title.TLabel").pack(anchor="w")
        ttk.Label(body, text=_("Every action is also in the menus; right-click assets or the "
                               "sidebar for the ones that apply there."), style="Muted.TLabel",
                  wraplength=px(440), justify="left").pack(anchor="w", pady=(px(2), px(10)))
        holder = ttk.Frame(body)
        holder.pack(fill="both", expand=True)
        self.tree = ttk.Treeview(holder, columns=("keys",), show="tree", height=18,
                                 selectmode="none")
        self.tree.column("#0", width=px(250), stretch=True)
        self.tree.column("keys", width=px(210), stretch=True, anchor="w")
        scrollbar = ttk.Scrollbar(holder, orient="vertical", command=self.tree.yview)
        self.tree.configure(yscrollcommand=scrollbar.set)
        self.tree.pack(side="left", fill="both", expand=True)
        scrollbar.pack(side="right", fill="y")
        self.tree.tag_configure("heading", font="SunValleyBodyStrongFont")
        self.rows: list[tuple[str, str, str]] = []
        for menu, label, keys in shortcut_rows(actions):
            self._row(_(menu), label.rstrip("…"), keys)
        for place, keys, does in OTHER_KEYS:
            self._row(_(place), _(does), _(keys).format(mod=MOD_NAME))
        buttons = ttk.Frame(body)
        buttons.pack(fill="x", pady=(px(12), 0))
        self.close_button = ttk.Button(buttons, text=_("Close"), style="Accent.TButton",
                                       command=self.cancel)
        self.close_button.pack(side="right")
        self.bind("<Return>", lambda e: self.cancel())
        self.present(focus=self.close_button)

    def _row(self, group: str, label: str, keys: str) -> None:
        iid = f"group:{group}"
        if not self.tree.exists(iid):
            self.tree.insert("", "end", iid=iid, text=group, open=True, tags=("heading",))
        self.tree.insert(iid, "end", text=label, values=(keys,))
        self.rows.append((group, label, keys))

    def confirm(self) -> None:
        self.cancel()
