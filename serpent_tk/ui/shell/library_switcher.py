"""The library switcher in the toolbar: the current library's name, a menu of recent and
open libraries, and New / Open library. Tk thread only."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from functools import partial
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
        self.database: tk.StringVar | None = None  # the New library dialog's database field
        self.database_entry: ttk.Entry | None = None
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
                             command=partial(self.session.open_path, path))
        if self.items:
            menu.add_separator()
        menu.add_command(label=_("New library…"), command=self.ask_new)
        menu.add_command(label=_("Open library…"), command=self.ask_open)

    def ask_new(self) -> None:
        parent = filedialog.askdirectory(parent=self,
                                         title=_("Where should the new library go?"),
                                         initialdir=str(app_dirs().libraries), mustexist=True)
        if parent:
            self.ask_name(parent)

    def ask_name(self, parent: str) -> None:
        """The new library's name and, for a studio library shared by a team, its database
        (docs/studio.md); left empty, a library on this computer."""
        database = tk.StringVar(value="")
        px = self.theme.px

        def studio_field(holder: ttk.Frame) -> None:
            ttk.Label(holder, text=_("Studio database (optional):")).pack(anchor="w")
            self.database_entry = ttk.Entry(holder, textvariable=database, width=36)
            self.database_entry.pack(fill="x", pady=(px(4), px(2)))
            ttk.Label(holder, style="Muted.TLabel", wraplength=px(340), justify="left",
                      text=_("Leave it empty for a library on this computer. For a library "
                             "your team shares: its PostgreSQL address, such as "
                             "postgresql://serpent@studio-server/refs (the password goes in "
                             "the PostgreSQL password file, never here).")).pack(anchor="w")

        self.database = database
        self.dialog = AskTextDialog(
            self, self.theme, title=_("New library"), prompt=_("Name of the new library:"),
            initial=_("References"), confirm_label=_("Create"), extra=studio_field,
            on_confirm=lambda name: self.session.create(parent, name,
                                                        database.get().strip() or None))

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
