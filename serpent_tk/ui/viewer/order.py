"""Which asset comes before and after the one in the viewer: the grid's own order (the view's
scope, search and sort). Tk thread only.

Stepping stops at the first and the last asset (no wrap-around: in a library of thousands,
going past the end to the first picture is more surprising than helpful). A neighbour whose
page of results is not loaded yet is asked for (by scrolling the grid to it) and the step
is answered `LOADING`: the viewer tries again when the page arrives.
"""

from __future__ import annotations

from typing import Any

LOADING = "…loading"


class ViewOrder:
    def __init__(self, pages: Any, grid: Any) -> None:
        self.pages = pages          # GridSource: count, cell, index_of
        self.grid = grid            # VirtualGrid: ensure_visible

    def position(self, key: str) -> tuple[int | None, int]:
        """(index of `key` in the view or None, how many the view holds)."""
        return self.pages.index_of(key), self.pages.count()

    def neighbour(self, key: str, delta: int) -> str | None:
        """The key `delta` steps away, None past either end, LOADING while its page is on
        its way (or while `key`'s own place is not known)."""
        index, total = self.position(key)
        if index is None:
            return LOADING if total else None
        target = index + delta
        if target < 0 or target >= total:
            return None
        cell = self.pages.cell(target)
        if cell is None:
            self.grid.ensure_visible(target)       # the grid fetches the page it shows
            return LOADING
        return str(cell.key)

    def item(self, key: str) -> dict[str, Any] | None:
        """The loaded summary of `key` (name, kind, size...), if its page is here."""
        found = self.pages.items_for([key])
        return found[0] if found else None
