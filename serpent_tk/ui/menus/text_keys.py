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
            root.bind_class(widget_class, f"<{MOD}-{letter}>",
                            lambda event: select_all_entry(root, event))
        root.bind_class("Text", f"<{MOD}-{letter}>", lambda event: select_all_text(root, event))


# By the widget's Tcl name: a file dialog's entry is Tk's own, not a Python widget, and
# its event names it by path only.
def select_all_entry(root: tk.Misc, event: tk.Event) -> str:
    path = str(event.widget)
    root.tk.call(path, "selection", "range", 0, "end")
    root.tk.call(path, "icursor", "end")
    return "break"


def select_all_text(root: tk.Misc, event: tk.Event) -> str:
    path = str(event.widget)
    root.tk.call(path, "tag", "add", "sel", "1.0", "end-1c")
    root.tk.call(path, "mark", "set", "insert", "end-1c")
    return "break"
