"""The viewer in the main window: over the grid area and back, the selection following it.
Tk thread only. Wiring between the viewer, the grid, its banner and the browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serpent_tk.ui.viewer.order import LOADING


class ViewerPlacement:
    def __init__(self, viewer: Any, grid: Any, banner: Any, browser: Any, pages: Any,
                 show_view: Callable[[], None]) -> None:
        self.viewer = viewer
        self.grid = grid
        self.banner = banner
        self.browser = browser
        self.pages = pages
        self.show_view = show_view            # the empty-state panel and banner, again
        viewer.on_shown = self._shows
        viewer.on_closed = self._closed

    def open(self, keys: list[str]) -> None:
        """Show the focused (or first) of `keys` over the grid area."""
        if not keys:
            return
        focus = self.grid.selection.focus_key
        key = focus if focus in keys else keys[0]
        if not self.viewer.winfo_manager():
            self.banner.hide()
            self.grid.pack_forget()
            self.viewer.pack(side="top", fill="both", expand=True)
            # laid out now, so the picture is decoded for the canvas's real size (not for
            # the 1 × 1 a canvas reports before its first layout, and then once again)
            self.viewer.update_idletasks()
        self.viewer.show(key)
        self.viewer.canvas.focus_set()

    def close(self) -> None:
        if self.viewer.is_open:
            self.viewer.close()

    def _shows(self, key: str) -> None:
        """Stepping moves the selection along (the inspector shows it); opening one of a
        multi-selection keeps the selection."""
        if self.grid.selected_keys() != [key] and (
                len(self.grid.selection) <= 1 or key not in self.grid.selection):
            self.browser.select([key])

    def _closed(self, key: str) -> None:
        self.viewer.pack_forget()
        self.grid.pack(side="top", fill="both", expand=True)
        self.show_view()
        index = self.pages.index_of(key)
        if index is not None:
            self.grid.ensure_visible(index)
        self.grid.canvas.focus_set()

    def trash(self, keys: list[str], trash: Callable[[list[str]], None]) -> None:
        """Move to Trash; in the viewer, the next asset takes the trashed one's place."""
        viewer = self.viewer
        if viewer.is_open and viewer.key in keys:
            following = next((k for k in (viewer.order.neighbour(viewer.key, 1),
                                          viewer.order.neighbour(viewer.key, -1))
                              if k and k != LOADING), None)
            if following is None:
                self.close()
            else:
                viewer.show(following)
        trash(keys)
