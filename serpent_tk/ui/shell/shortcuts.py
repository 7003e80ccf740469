"""Keyboard shortcuts of the main window, declared once as data. Tk thread only.

Shortcuts that would clash with typing (Delete, Ctrl+Z) are ignored while a text field has
the focus, so they keep their usual meaning there.
"""

from __future__ import annotations

import sys
import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass

MOD = "Command" if sys.platform == "darwin" else "Control"
TEXT_CLASSES = {"Entry", "TEntry", "Text", "TCombobox", "Spinbox", "TSpinbox"}


@dataclass(frozen=True)
class Shortcut:
    sequences: tuple[str, ...]
    action: str            # key of the handler
    label: str             # what it does (for menus and the README)
    not_while_typing: bool = True


SHORTCUTS = (
    Shortcut(("<Delete>", "<BackSpace>"), "trash",
             "Move the selection to the Trash (in the Trash: delete permanently, confirmed)"),
    Shortcut((f"<{MOD}-z>",), "undo", "Undo"),
    Shortcut((f"<{MOD}-Shift-z>", f"<{MOD}-Shift-Z>", f"<{MOD}-y>"), "redo", "Redo"),
    Shortcut((f"<{MOD}-f>",), "search", "Search", not_while_typing=False),
    Shortcut((f"<{MOD}-i>",), "import", "Import files", not_while_typing=False),
    Shortcut((f"<{MOD}-comma>",), "settings", "Settings", not_while_typing=False),
    Shortcut(("<F5>",), "refresh", "Refresh", not_while_typing=False),
    Shortcut((f"<{MOD}-plus>", f"<{MOD}-equal>"), "zoom_in", "Bigger thumbnails"),
    Shortcut((f"<{MOD}-minus>",), "zoom_out", "Smaller thumbnails"),
)


def typing_in(widget: object) -> bool:
    try:
        return widget is not None and widget.winfo_class() in TEXT_CLASSES  # type: ignore[attr-defined]
    except tk.TclError:
        return False


def bind_shortcuts(root: tk.Misc, handlers: dict[str, Callable[[], None]]) -> None:
    """Bind every `SHORTCUTS` entry that has a handler on `root` (a toplevel: its widgets
    see the binding, other windows such as Settings do not)."""
    for shortcut in SHORTCUTS:
        handler = handlers.get(shortcut.action)
        if handler is None:
            continue

        def run(event: tk.Event, s: Shortcut = shortcut,
                h: Callable[[], None] = handler) -> str | None:
            if s.not_while_typing and typing_in(event.widget):
                return None
            h()
            return "break"

        for sequence in shortcut.sequences:
            root.bind(sequence, run, add="+")
