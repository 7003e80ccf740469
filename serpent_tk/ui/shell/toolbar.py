"""The window's toolbar: [◧] [Library ▾] [Search… colour] [Sort ▾] [Import ▾] [↶] [↷] [size]
[◨] [⚙].

Tk thread only. Layout only: the buttons call what the main window hands over. Every icon
button has a tooltip. The search box keeps at least `MIN_SEARCH_PT` wide: in a narrow
window the thumbnail-size slider and then the sort menu step aside (both are in the View
menu too) instead of squeezing it to a stub.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass
from tkinter import ttk

from serpent_tk.ui.browser.search_bar import SearchBar
from serpent_tk.ui.browser.sort_chooser import SortChooser
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus.action_table import MOD_NAME
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.shell.library_session import LibrarySession
from serpent_tk.ui.shell.library_switcher import LibrarySwitcher
from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.shell.tooltip import tooltip

MIN_SEARCH_PT = 130


@dataclass
class ToolbarActions:
    toggle_sidebar: Callable[[], None]
    toggle_inspector: Callable[[], None]
    search: Callable[[str], None]
    color: Callable[[str | None, float], None]     # the colour filter (None: off), delta E
    sort: Callable[[str], None]
    import_files: Callable[[], None]
    import_folder: Callable[[], None]
    import_flattened: Callable[[], None]   # every file straight into the folder shown
    undo: Callable[[], None]
    redo: Callable[[], None]
    zoom_to: Callable[[int], None]
    settings: Callable[[], None]


class Toolbar(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, session: LibrarySession,
                 actions: ToolbarActions, zoom_steps: int, zoom_index: int) -> None:
        px = theme.px
        super().__init__(master, padding=(px(8), px(8)))
        self.theme = theme
        self.sidebar_button = ttk.Button(self, text="◧", width=3,
                                         command=actions.toggle_sidebar)
        self.sidebar_button.pack(side="left", padx=(0, px(6)))
        self.switcher = LibrarySwitcher(self, theme, session)
        self.switcher.pack(side="left")
        self.settings_button = ttk.Button(self, text="⚙", width=3, command=actions.settings)
        self.settings_button.pack(side="right")
        self.inspector_button = ttk.Button(self, text="◨", width=3,
                                           command=actions.toggle_inspector)
        self.inspector_button.pack(side="right", padx=(0, px(6)))
        self.zoom = ttk.Scale(self, from_=0, to=zoom_steps - 1, length=px(80),
                              command=lambda v: actions.zoom_to(round(float(v))))
        self.zoom.set(zoom_index)
        self.zoom.pack(side="right", padx=(px(10), px(10)))
        self.redo_button = ttk.Button(self, text="↷", width=3, command=actions.redo)
        self.redo_button.pack(side="right", padx=(px(2), 0))
        self.undo_button = ttk.Button(self, text="↶", width=3, command=actions.undo)
        self.undo_button.pack(side="right", padx=(px(8), 0))
        self.import_button = ttk.Menubutton(self, text=_("Import"), style="Accent.TButton")
        menu = themed_menu(self.import_button, theme)
        menu.add_command(label=_("Files…"), accelerator=f"{MOD_NAME}+I",
                         command=actions.import_files)
        menu.add_command(label=_("A folder…"), command=actions.import_folder)
        menu.add_command(label=_("A folder, flattened…"), command=actions.import_flattened)
        self.import_button["menu"] = menu
        self.import_button.pack(side="right", padx=(px(8), 0))
        self.sort = SortChooser(self, actions.sort)
        self.sort.pack(side="right")
        self.search = SearchBar(self, theme, actions.search, actions.color)
        self.search.pack(side="left", fill="x", expand=True, padx=(px(12), px(12)))
        self._optional = [(self.zoom, {"side": "right", "padx": (px(10), px(10)),
                                       "before": self.redo_button}),
                          (self.sort, {"side": "right", "before": self.import_button})]
        self._tips()
        self.bind("<Configure>", lambda e: self._make_room(e.width))

    def _tips(self) -> None:
        t = self.theme
        mod = MOD_NAME
        tooltip(self.sidebar_button, t, _("Show or hide the sidebar ({key})").format(
            key=f"{mod}+B"))
        tooltip(self.inspector_button, t, _("Show or hide the inspector ({key})").format(
            key=f"{mod}+Shift+I"))
        tooltip(self.settings_button, t, _("Settings ({key})").format(key=f"{mod}+,"))
        tooltip(self.undo_button, t, _("Undo the last change, yours or an AI client's "
                                       "({key})").format(key=f"{mod}+Z"))
        tooltip(self.redo_button, t, _("Redo ({key})").format(key=f"{mod}+Shift+Z"))
        tooltip(self.zoom, t, _("Thumbnail size ({bigger} / {smaller})").format(
            bigger=f"{mod}+plus", smaller=f"{mod}+minus"))
        tooltip(self.import_button, t, _("Add files or a folder to the library ({key}, or "
                                         "drop them on the grid)").format(key=f"{mod}+I"))
        tooltip(self.switcher, t, _("Switch to another library, or make a new one"))
        tooltip(self.sort, t, _("Sort the grid"))
        tooltip(self.search.clear_button, t, _("Clear the search (Esc)"))

    def icon_buttons(self) -> list[tk.Misc]:
        """Every button that shows a symbol rather than a word (each has a tooltip)."""
        return [self.sidebar_button, self.inspector_button, self.settings_button,
                self.undo_button, self.redo_button, self.zoom, self.search.clear_button]

    def _make_room(self, width: int) -> None:
        """Hide the optional items (slider, then sort) while the search box would be
        narrower than `MIN_SEARCH_PT`; bring them back when there is room."""
        px = self.theme.px
        needed = px(MIN_SEARCH_PT) + px(24)
        fixed = sum(w.winfo_reqwidth() + px(10) for w in self.winfo_children()
                    if w is not self.search and w.winfo_manager()
                    and w not in {o for o, _options in self._optional})
        room = width - fixed - needed
        for widget, options in self._optional:
            size = widget.winfo_reqwidth() + px(20)
            if room >= size:
                room -= size
                if not widget.winfo_manager():
                    widget.pack(**options)      # type: ignore[arg-type]
            elif widget.winfo_manager():
                widget.pack_forget()

    @property
    def hidden_for_room(self) -> list[str]:
        names = {str(self.zoom): "zoom", str(self.sort): "sort"}
        return [names[str(w)] for w, _options in self._optional if not w.winfo_manager()]
