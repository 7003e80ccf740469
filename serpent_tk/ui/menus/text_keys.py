"""The keys every text field answers as on every desktop: Ctrl+A (Cmd+A on macOS) selects
all of its text, where Tk's own bindings on X11 jump to the start of the line (emacs style),
so "Ctrl+F, Ctrl+A, type" replaced nothing. Tk thread only: installed once per root, for
every entry, combobox, spinbox and text box of every window (the file dialogs' too).
"""

from __future__ import annotations

import tkinter as tk

from serpent_tk.ui.menus.action_table import MOD

ENTRY_CLASSES = ("TEntry", "Entry", "TCombobox", "Spinbox", "TSpinbox")


def install(root: tk.Misc) -> None:
    for letter in ("a", "A"):
        for widget_class in ENTRY_CLASSES:
            root.bind_class(widget_class, f"<{MOD}-{letter}>", select_all_entry)
        root.bind_class("Text", f"<{MOD}-{letter}>", select_all_text)


def select_all_entry(event: tk.Event) -> str:
    entry = event.widget
    entry.selection_range(0, "end")
    entry.icursor("end")
    return "break"


def select_all_text(event: tk.Event) -> str:
    text = event.widget
    text.tag_add("sel", "1.0", "end-1c")
    text.mark_set("insert", "end-1c")
    return "break"
