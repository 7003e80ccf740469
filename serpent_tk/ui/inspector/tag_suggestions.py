"""Tags suggested while typing in the inspector's tag field: a list under the field that
follows every key press (no need to press Down first). Tk thread only.

The field keeps the focus throughout: Down and Up move through the list, Enter or Tab takes
the highlighted tag (Enter with nothing highlighted takes what was typed), Esc closes the
list, a click takes a tag. Known tags starting with the typed text come first, then tags
containing it.
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from collections.abc import Callable, Sequence

from serpent_tk.ui.shell.theme import FONT_BODY, Theme
from serpent_tk.ui.tk_typed import chosen_rows, row_at

MAX_SHOWN = 8


def suggestions(typed: str, known: Sequence[str], exclude: Sequence[str] = ()) -> list[str]:
    """Known tags for `typed` (case-insensitive): prefix matches first, then the rest that
    contain it; tags in `exclude` (already on the asset) left out."""
    text = typed.strip().casefold()
    if not text:
        return []
    skip = {t.casefold() for t in exclude}
    starts = [t for t in known if t.casefold().startswith(text) and t.casefold() not in skip]
    inside = [t for t in known if text in t.casefold() and not t.casefold().startswith(text)
              and t.casefold() not in skip]
    return (starts + inside)[:MAX_SHOWN]


class SuggestionList:
    def __init__(self, entry: tk.Widget, theme: Theme,
                 on_pick: Callable[[str], None]) -> None:
        self.entry = entry
        self.theme = theme
        self.on_pick = on_pick
        self.window: tk.Toplevel | None = None
        self.listbox: tk.Listbox | None = None
        self.items: list[str] = []

    @property
    def shown(self) -> bool:
        return self.window is not None

    @property
    def highlighted(self) -> str | None:
        if self.listbox is None:
            return None
        chosen = chosen_rows(self.listbox)
        return self.items[chosen[0]] if chosen else None

    def show(self, items: list[str]) -> None:
        if not items:
            self.hide()
            return
        if items == self.items and self.window is not None:
            return
        self.items = list(items)
        if self.window is None:
            self._build()
        assert self.listbox is not None and self.window is not None
        self.listbox.delete(0, "end")
        for item in self.items:
            self.listbox.insert("end", item)
        self.listbox.configure(height=len(self.items))
        self._place()

    def _build(self) -> None:
        p, px = self.theme.palette, self.theme.px
        window = self.window = tk.Toplevel(self.entry)
        window.withdraw()
        window.overrideredirect(True)
        with contextlib.suppress(tk.TclError):
            window.attributes("-type", "combo")
        window.configure(background=p.text_muted)
        self.listbox = tk.Listbox(
            window, font=FONT_BODY, activestyle="none", exportselection=False,
            borderwidth=0, highlightthickness=0, background=p.surface, foreground=p.text,
            selectbackground=p.selection, selectforeground=p.text, relief="flat",
            takefocus=0)
        self.listbox.pack(fill="both", expand=True, padx=1, pady=1, ipadx=px(2))
        self.listbox.bind("<ButtonRelease-1>", self._clicked)

    def _place(self) -> None:
        assert self.window is not None
        entry = self.entry
        self.window.geometry(f"{entry.winfo_width()}x{self.listbox_height()}"
                             f"+{entry.winfo_rootx()}+{entry.winfo_rooty() + entry.winfo_height()}")
        self.window.deiconify()
        self.window.lift()

    def listbox_height(self) -> int:
        assert self.listbox is not None
        line = self.theme.font(FONT_BODY).metrics("linespace") + 1
        return line * len(self.items) + 4

    def move(self, delta: int) -> None:
        """Down / Up: highlight the next or previous suggestion."""
        if self.listbox is None or not self.items:
            return
        chosen = chosen_rows(self.listbox)
        index = (chosen[0] + delta) if chosen else (0 if delta > 0 else len(self.items) - 1)
        index = max(0, min(len(self.items) - 1, index))
        self.listbox.selection_clear(0, "end")
        self.listbox.selection_set(index)
        self.listbox.see(index)

    def _clicked(self, event: tk.Event) -> None:
        if self.listbox is None:
            return
        index = row_at(self.listbox, event.y)
        if 0 <= index < len(self.items):
            tag = self.items[index]
            self.hide()
            self.on_pick(tag)

    def hide(self) -> None:
        if self.window is not None:
            with contextlib.suppress(tk.TclError):
                self.window.destroy()
        self.window = None
        self.listbox = None
        self.items = []
