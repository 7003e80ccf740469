"""The window's toolbar: [◧] [Library ▾] [Search… colour] [Sort ▾] [Import ▾] [↶] [↷] [▦] [size]
[◨] [⋯] [⚙].

Tk thread only. Layout only: the buttons call what the main window hands over. Every icon
button has a tooltip. The search box keeps at least `MIN_SEARCH_PT` wide and Import its
whole word: in a narrow window the thumbnail-size slider and the layout button, then the sort
menu, undo and redo and the inspector's button step aside (in that order) into the ⋯ menu,
which appears only then (they are in the menus too); below that the library's name gets
narrower.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from tkinter import ttk
from typing import Any

from serpent_tk.ui.browser.layouts.choice import LAYOUTS, SYMBOLS
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
SWITCHER_CHARS = (16, 7)      # the library's name: as wide as usual, or in a narrow window


@dataclass
class ToolbarActions:
    toggle_sidebar: Callable[[], None]
    toggle_inspector: Callable[[], None]
    search: Callable[[str], None]
    # the colour filter (None: off), how close, how much of the picture
    color: Callable[[str | None, float, float], None]
    sort: Callable[[str], None]
    import_files: Callable[[], None]
    import_folder: Callable[[], None]
    import_flattened: Callable[[], None]   # every file straight into the folder shown
    undo: Callable[[], None]
    redo: Callable[[], None]
    zoom_to: Callable[[int], None]
    settings: Callable[[], None]
    layout: Callable[[str], None] = lambda mode: None    # "grid", "justified", "list"


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
        self.layout_button = ttk.Menubutton(self, text=SYMBOLS["grid"], width=2)
        self.layout_menu: tk.Menu = themed_menu(
            self.layout_button, theme, postcommand=lambda: self._fill_layouts(self.layout_menu))
        self.layout_button["menu"] = self.layout_menu
        self._layout = "grid"
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
        self.actions = actions
        self.overflow = ttk.Menubutton(self, text="⋯", width=2)
        self.overflow_menu = themed_menu(self.overflow, theme, postcommand=self._fill_overflow)
        self.overflow["menu"] = self.overflow_menu
        # the right side, right to left, and (name, pack options) of each
        self._right: list[tuple[str, tk.Widget, dict[str, Any]]] = [
            ("settings", self.settings_button, {}),
            ("overflow", self.overflow, {"padx": (0, px(6))}),
            ("inspector", self.inspector_button, {"padx": (0, px(6))}),
            ("zoom", self.zoom, {"padx": (px(10), px(10))}),
            ("layout", self.layout_button, {"padx": (px(8), 0)}),
            ("redo", self.redo_button, {"padx": (px(2), 0)}),
            ("undo", self.undo_button, {"padx": (px(8), 0)}),
            ("import", self.import_button, {"padx": (px(8), 0)}),
            ("sort", self.sort, {})]
        # what steps aside first (a group at a time) when the search box would get narrow
        self._optional = [("zoom", "layout"), ("sort",), ("undo", "redo"), ("inspector",),
                          ("settings",)]
        self.hidden: set[str] = set()
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
        tooltip(self.layout_button, t, _("Thumbnails, a justified grid or a list"))
        tooltip(self.switcher, t, _("Switch to another library, or make a new one"))
        tooltip(self.sort, t, _("Sort the grid"))
        tooltip(self.search.clear_button, t, _("Clear the search (Esc)"))

    def icon_buttons(self) -> list[tk.Misc]:
        """Every button that shows a symbol rather than a word (each has a tooltip)."""
        return [self.sidebar_button, self.inspector_button, self.settings_button,
                self.undo_button, self.redo_button, self.zoom, self.layout_button,
                self.search.clear_button]

    def _make_room(self, width: int) -> None:
        """Hide the optional items (slider, sort, undo and redo, the inspector's button) while
        the search box would be narrower than `MIN_SEARCH_PT`, into the ⋯ menu; bring them
        back when there is room; last, the library's name narrows."""
        px = self.theme.px
        room = width - px(MIN_SEARCH_PT) - px(24) - self._width_of(("sidebar", "switcher"))
        always = {"import"}
        room -= self._width_of(always)
        hidden: set[str] = set()
        for group in reversed(self._optional):           # the most useful kept first
            size = self._width_of(group)
            if room >= size:
                room -= size
            else:
                hidden.update(group)
        for group in self._optional:                     # whatever steps aside: from the top
            if hidden & set(group) and not set(group) <= hidden:
                hidden.update(group)
        if hidden:
            room -= self._width_of(("overflow",))
            for group in reversed(self._optional):
                if not set(group) <= hidden and room < 0:
                    hidden.update(group)
                    room += self._width_of(group)
        narrow = room < 0
        wanted = SWITCHER_CHARS[1] if narrow else SWITCHER_CHARS[0]
        if int(str(self.switcher.cget("width"))) != wanted:
            self.switcher.configure(width=wanted)
        if hidden != self.hidden or not self._arranged:
            self.hidden = hidden
            self._arrange()

    _arranged = False

    def _width_of(self, names: tuple[str, ...] | set[str]) -> int:
        px = self.theme.px
        widgets = {"sidebar": self.sidebar_button, "switcher": self.switcher,
                   **{name: widget for name, widget, _ in self._right}}
        return sum(widgets[name].winfo_reqwidth() + px(10) for name in names)

    def _arrange(self) -> None:
        """Pack the right side again in its order, without what is hidden."""
        self._arranged = True
        for _name, widget, _options in self._right:
            widget.pack_forget()
        for name, widget, options in self._right:
            if name == "overflow" and not self.hidden:
                continue
            if name not in self.hidden:
                widget.pack(side="right", **options)
        self.search.pack_forget()
        self.search.pack(side="left", fill="x", expand=True,
                         padx=(self.theme.px(12), self.theme.px(12)))

    def _fill_overflow(self) -> None:
        """The ⋯ menu: what stepped aside for room."""
        menu, a = self.overflow_menu, self.actions
        menu.delete(0, "end")
        if "sort" in self.hidden:
            sorts = themed_menu(menu, self.theme)
            chosen = tk.IntVar(master=menu, value=self.sort.current())
            menu._sort_chosen = chosen  # type: ignore[attr-defined]  # kept while shown
            for index, label in enumerate(self.sort.offered):
                sorts.add_radiobutton(label=label, value=index, variable=chosen,
                                      command=partial(self.sort.choose, label))
            menu.add_cascade(label=_("Sort by"), menu=sorts)
        if "zoom" in self.hidden:
            menu.add_command(label=_("Bigger thumbnails"), command=lambda: self._zoom_by(1))
            menu.add_command(label=_("Smaller thumbnails"), command=lambda: self._zoom_by(-1))
            layouts = themed_menu(menu, self.theme)
            self._fill_layouts(layouts)
            menu.add_cascade(label=_("Layout"), menu=layouts)
        if "undo" in self.hidden:
            menu.add_command(label=_("Undo"), accelerator=f"{MOD_NAME}+Z", command=a.undo)
            menu.add_command(label=_("Redo"), accelerator=f"{MOD_NAME}+Shift+Z",
                             command=a.redo)
        if "inspector" in self.hidden:
            menu.add_command(label=_("Show or hide the inspector"),
                             command=a.toggle_inspector)
        if "settings" in self.hidden:
            menu.add_command(label=_("Settings…"), accelerator=f"{MOD_NAME}+,",
                             command=a.settings)

    def show_layout(self, mode: str) -> None:
        """The grid is laid out as `mode` now: the layout button shows its symbol."""
        self._layout = mode
        self.layout_button.configure(text=SYMBOLS.get(mode, SYMBOLS["grid"]))

    def _fill_layouts(self, menu: tk.Menu) -> None:
        menu.delete(0, "end")
        chosen = tk.StringVar(master=menu, value=self._layout)
        menu._layout_chosen = chosen  # type: ignore[attr-defined]  # kept while shown
        for mode, label in LAYOUTS:
            menu.add_radiobutton(label=f"{SYMBOLS[mode]}  {_(label)}", value=mode,
                                 variable=chosen,
                                 command=partial(self.actions.layout, mode))

    def _zoom_by(self, delta: int) -> None:
        last = int(float(self.zoom.cget("to")))
        index = max(0, min(last, round(float(self.zoom.get())) + delta))
        self.zoom.set(index)
        self.actions.zoom_to(index)

    @property
    def hidden_for_room(self) -> list[str]:
        return [name for group in self._optional for name in group if name in self.hidden]
