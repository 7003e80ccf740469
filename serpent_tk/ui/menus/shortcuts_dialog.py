"""Help → Keyboard shortcuts: every shortcut of the action table by menu, and the keys and
mouse moves of the grid and the viewer. Tk thread only."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Sequence
from tkinter import ttk

from serpent_tk.ui.menus.action_table import MOD_NAME, Action, shortcut_rows
from serpent_tk.ui.shell.dialogs import Dialog
from serpent_tk.ui.shell.theme import Theme

# Keys and pointer moves that belong to the grid or the viewer themselves (not menu actions)
OTHER_KEYS = (
    ("In the grid", "Arrows, Home / End, Page Up / Down", "move the selection"),
    ("In the grid", "Shift + the same", "extend the selection"),
    ("In the grid", f"Click, {MOD_NAME}+click, Shift+click, drag a box",
     "select one, toggle one, a range, a rectangle"),
    ("In the grid", "Double-click", "open in the viewer"),
    ("In the grid", "Drag onto a folder, tag, collection or the Trash",
     "file, tag, collect or trash"),
    ("In the grid", "Drag out of the window", "copy the files into another app"),
    ("In the viewer", "Wheel", "zoom at the pointer"),
    ("In the viewer", "Drag", "move the picture"),
    ("In the viewer", "Double-click", "100 % there, or back to fit"),
)


class ShortcutsDialog(Dialog):
    def __init__(self, parent: tk.Misc, theme: Theme, actions: Sequence[Action]) -> None:
        super().__init__(parent, theme, "Keyboard shortcuts")
        px = theme.px
        self.resizable(True, True)
        body = ttk.Frame(self, padding=(px(16), px(14), px(16), px(12)))
        body.pack(fill="both", expand=True)
        ttk.Label(body, text="Keyboard shortcuts", style="Title.TLabel").pack(anchor="w")
        ttk.Label(body, text="Every action is also in the menus; right-click assets or the "
                  "sidebar for the ones that apply there.", style="Muted.TLabel",
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
            self._row(menu, label.rstrip("…"), keys)
        for place, keys, does in OTHER_KEYS:
            self._row(place, does[:1].upper() + does[1:], keys)
        buttons = ttk.Frame(body)
        buttons.pack(fill="x", pady=(px(12), 0))
        self.close_button = ttk.Button(buttons, text="Close", style="Accent.TButton",
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
