"""The library switcher in the toolbar: the current library's name, a menu of recent and
open libraries, and New / Open library. Tk thread only."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from pathlib import Path
from tkinter import filedialog, ttk
from typing import Any

from library.library_folder import LIBRARY_SUFFIX
from serpent_tk.paths import app_dirs
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.shell.dialogs import AskTextDialog, Dialog
from serpent_tk.ui.shell.library_session import LibrarySession
from serpent_tk.ui.shell.theme import Theme


class LibrarySwitcher(ttk.Menubutton):
    def __init__(self, master: tk.Misc, theme: Theme, session: LibrarySession) -> None:
        super().__init__(master, text=_("Opening…"), width=16)
        self.theme = theme
        self.session = session
        self.menu = themed_menu(self, theme, postcommand=self._refresh_menu)
        self["menu"] = self.menu
        self.items: list[dict[str, Any]] = []
        self.dialog: Dialog | None = None
        self.on_error: Callable[[str], None] = lambda text: None
        self._build_menu()

    def show(self, name: str) -> None:
        self.configure(text=name or _("Library"))

    def _refresh_menu(self) -> None:
        self.session.list_libraries(self._listed)

    def _listed(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self._build_menu()

    def _build_menu(self) -> None:
        menu = self.menu
        menu.delete(0, "end")
        current = self.session.library_id
        for item in self.items:
            label = item.get("name") or Path(str(item.get("path", ""))).stem
            if not item.get("exists", True):
                menu.add_command(label=_("{name} — missing").format(name=label),
                                 state="disabled")
                continue
            mark = "● " if item.get("libraryId") and item.get("libraryId") == current else "   "
            path = str(item.get("path", ""))
            menu.add_command(label=mark + label,
                             command=lambda p=path: self.session.open_path(p))
        if self.items:
            menu.add_separator()
        menu.add_command(label=_("New library…"), command=self.ask_new)
        menu.add_command(label=_("Open library…"), command=self.ask_open)

    def ask_new(self) -> None:
        parent = filedialog.askdirectory(parent=self,
                                         title=_("Where should the new library go?"),
                                         initialdir=str(app_dirs().libraries), mustexist=True)
        if not parent:
            return
        self.dialog = AskTextDialog(self, self.theme, title=_("New library"),
                                    prompt=_("Name of the new library:"),
                                    initial=_("References"), confirm_label=_("Create"),
                                    on_confirm=lambda name: self.session.create(parent, name))

    def ask_open(self) -> None:
        path = filedialog.askdirectory(parent=self,
                                       title=_("Open a library folder ({suffix})").format(
                                           suffix=LIBRARY_SUFFIX),
                                       initialdir=str(app_dirs().libraries), mustexist=True)
        if not path:
            return
        if not path.endswith(LIBRARY_SUFFIX):
            self.on_error(_("That folder is not a Serpent library (a library's name ends "
                            "in {suffix}).").format(suffix=LIBRARY_SUFFIX))
            return
        self.session.open_path(path)
