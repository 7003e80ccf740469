"""The toolbar's sort menu ("Newest first", "Name A–Z", ...). Tk thread only.

In a hand-picked collection it also offers "Collection order" (the order its assets were
added in), which is where such a collection opens; with a colour filter set, "Closest
colour" (`color-similarity`), which is where choosing a colour goes.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.language.translate import N_, _

SORTS = (("added-desc", N_("Newest first")), ("added-asc", N_("Oldest first")),
         ("name-asc", N_("Name A–Z")), ("name-desc", N_("Name Z–A")),
         ("rating-desc", N_("Best rated")), ("size-desc", N_("Largest")),
         ("modified-desc", N_("Recently changed")), ("taken-desc", N_("Date taken")),
         ("hue", N_("Colour (hue)")))
COLLECTION_ORDER = ("collection-order", N_("Collection order"))
CLOSEST_COLOUR = ("color-similarity", N_("Closest colour"))
CLOSEST_FIRST = N_("Closest first")


class SortChooser(ttk.Combobox):
    def __init__(self, master: tk.Misc, on_sort: Callable[[str], None]) -> None:
        super().__init__(master, state="readonly", width=14)
        self.on_sort = on_sort
        self._sorts: list[tuple[str, str]] = list(SORTS)
        self.configure(values=self.offered)
        self.current(0)
        self.bind("<<ComboboxSelected>>", lambda e: self.on_sort(self.sort))

    @property
    def offered(self) -> list[str]:
        """The labels the menu offers now (in the window's language)."""
        return [_(label) for _key, label in self._sorts]

    def choose(self, label: str) -> None:
        """Pick the sort labelled `label`, as a click on it would."""
        self.current(self.offered.index(label))
        self.on_sort(self.sort)

    def choose_sort(self, sort: str) -> None:
        """Pick the sort `sort` ("name-asc") as a click on its label would, if offered."""
        keys = [key for key, _label in self._sorts]
        if sort in keys and self.cget("state") != "disabled":
            self.current(keys.index(sort))
            self.on_sort(sort)

    @property
    def sort(self) -> str:
        return self._sorts[max(0, self.current())][0]

    def show(self, sort: str, in_collection: bool, with_color: bool = False,
             fixed: bool = False) -> None:
        """Offer what fits the view (collection order only in a hand-picked collection,
        closest colour only with a colour filter) and show `sort` as chosen; `fixed`: the
        view has its own order (similar images: closest first), nothing to choose."""
        self.configure(state="disabled" if fixed else "readonly")
        if fixed:
            self._sorts = [(sort, CLOSEST_FIRST)]
            self.configure(values=self.offered)
            self.current(0)
            return
        self._sorts = [*([CLOSEST_COLOUR] if with_color else []), *SORTS,
                       *([COLLECTION_ORDER] if in_collection else [])]
        self.configure(values=self.offered)
        keys = [key for key, _label in self._sorts]
        self.current(keys.index(sort) if sort in keys else 0)
