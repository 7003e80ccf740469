"""The toolbar's sort menu ("Newest first", "Name A–Z", ...). Tk thread only.

In a hand-picked collection it also offers "Collection order" (the order its assets were
added in), which is where such a collection opens; with a colour filter set, "Closest
colour" (`color-similarity`), which is where choosing a colour goes.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

SORTS = (("added-desc", "Newest first"), ("added-asc", "Oldest first"),
         ("name-asc", "Name A–Z"), ("name-desc", "Name Z–A"), ("rating-desc", "Best rated"),
         ("size-desc", "Largest"), ("modified-desc", "Recently changed"),
         ("taken-desc", "Date taken"), ("hue", "Colour (hue)"))
COLLECTION_ORDER = ("collection-order", "Collection order")
CLOSEST_COLOUR = ("color-similarity", "Closest colour")


class SortChooser(ttk.Combobox):
    def __init__(self, master: tk.Misc, on_sort: Callable[[str], None]) -> None:
        super().__init__(master, state="readonly", width=14)
        self.on_sort = on_sort
        self._sorts: list[tuple[str, str]] = list(SORTS)
        self.configure(values=[label for _, label in self._sorts])
        self.current(0)
        self.bind("<<ComboboxSelected>>", lambda e: self.on_sort(self.sort))

    @property
    def offered(self) -> list[str]:
        """The labels the menu offers now."""
        return [label for _, label in self._sorts]

    def choose(self, label: str) -> None:
        """Pick the sort labelled `label`, as a click on it would."""
        self.current(self.offered.index(label))
        self.on_sort(self.sort)

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
            self._sorts = [(sort, "Closest first")]
            self.configure(values=["Closest first"])
            self.current(0)
            return
        self._sorts = [*([CLOSEST_COLOUR] if with_color else []), *SORTS,
                       *([COLLECTION_ORDER] if in_collection else [])]
        self.configure(values=[label for _, label in self._sorts])
        keys = [key for key, _ in self._sorts]
        self.current(keys.index(sort) if sort in keys else 0)
