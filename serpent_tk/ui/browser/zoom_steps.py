"""The thumbnail sizes the toolbar's slider and Ctrl+plus / Ctrl+minus step through, and
what a step does: the grid's cells change at once, the setting is saved in the background.
Tk thread only."""

from __future__ import annotations

from typing import Any

ZOOM_STEPS = (96, 120, 144, 160, 192, 224, 256, 320)


def zoom_index(size: int) -> int:
    """The step nearest to a thumbnail size (in pixels of a 96-dpi display)."""
    return min(range(len(ZOOM_STEPS)), key=lambda i: abs(ZOOM_STEPS[i] - size))


def zoom_step(window: Any, delta: int) -> None:
    """`delta` steps bigger (or smaller), as far as the steps go; the slider follows."""
    index = zoom_index(window.services.settings.ui.thumbnail_size) + delta
    index = max(0, min(len(ZOOM_STEPS) - 1, index))
    window.zoom.set(index)
    zoom_to(window, index)


def zoom_to(window: Any, index: int) -> None:
    size = ZOOM_STEPS[index]
    if size != window.services.settings.ui.thumbnail_size:
        set_thumbnail_size(window, size)
        store = window.services.settings_store
        window.commands.background(lambda: store.update(
            lambda s: setattr(s.ui, "thumbnail_size", size)))


def set_thumbnail_size(window: Any, size: int) -> None:
    window.services.settings.ui.thumbnail_size = size
    window.grid.set_cell_size(size * 0.75)
