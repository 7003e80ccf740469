"""Finding by looks: the assets with a colour (a swatch of the inspector), the images similar
to one ("Find similar"), and the duplicates review window ("Find duplicates…"). Tk thread
only; wiring between the window's parts, the commands run in the browser and the review.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from serpent_tk.ui.language.translate import _

if TYPE_CHECKING:  # the review window's modules load when it first opens, not with the window
    from serpent_tk.ui.duplicates.duplicates_window import DuplicatesWindow


class Finding:
    def __init__(self, window: Any) -> None:
        self.w = window                      # the MainWindow
        self.duplicates: DuplicatesWindow | None = None

    def color(self, colour: str) -> None:
        """Show the assets with `colour` (the search bar shows the filter, ✕ clears it)."""
        self.w.search.color.set(colour)

    def is_image(self, key: str) -> bool:
        items = self.w.pages.items_for([key])
        return bool(items) and items[0].get("kind", "image") == "image"

    def similar(self, keys: list[str]) -> None:
        """The grid shows `keys[0]` and the images that look like it."""
        if not keys:
            return
        items = self.w.pages.items_for(keys[:1])
        name = str(items[0].get("name")) if items else _("this image")
        self.w.close_viewer()
        self.w.browser.show_similar(keys[0], name)

    def open_duplicates(self) -> None:
        """The duplicates review of the library shown (one window; asked again: in front)."""
        w = self.w
        library = w.session.current
        if library is None:
            return
        window = self.duplicates
        if window is not None and window.winfo_exists():
            if window.library_id == library["libraryId"]:
                window.present()
                return
            window.close()
        from serpent_tk.ui.duplicates.duplicates_window import DuplicatesWindow

        self.duplicates = DuplicatesWindow(w.root, w.theme, w.commands, w.services.bus,
                                           library, w.thumbnails.preview, w.actions.trash,
                                           w.actions.undo)
