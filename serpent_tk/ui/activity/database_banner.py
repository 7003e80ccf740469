"""The banner over the grid while a studio library's database server cannot be reached
(`library.events.DatabaseStatus`), gone again once it can. Tk thread only.

Serpent connects again by itself; meanwhile every change answers DATABASE_UNAVAILABLE and
nothing is half-saved, which is what the banner says (docs/studio.md). A library opened
while its server was away (at start-up, say) shows it from the start. When the server of the
library shown is back, the window reads the library again (what it asked meanwhile failed).
"""

from __future__ import annotations

import tkinter as tk
from typing import Protocol

from library.events import DatabaseStatus
from serpent_tk.ui.browser.scope_banner import ScopeBanner
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.theme import Theme


class Shown(Protocol):
    @property
    def library_id(self) -> str | None: ...


class Window(Protocol):
    @property
    def session(self) -> Shown: ...

    def refresh(self) -> None: ...


class DatabaseBanner(ScopeBanner):
    def __init__(self, master: tk.Misc, theme: Theme, above: tk.Misc, window: Window) -> None:
        super().__init__(master, theme)
        self.place_above(above)
        self.title.configure(style="Warning.TLabel")
        self.window = window  # its session says which library it shows
        self.unreachable: set[str] = set()  # the libraries whose server is away now

    def status(self, event: DatabaseStatus) -> None:
        """Note what `event` says, and show or hide the banner for the library shown."""
        if event.reachable:
            back = event.library_id in self.unreachable
            self.unreachable.discard(event.library_id)
            if back and event.library_id == self.window.session.library_id:
                self.window.refresh()
        else:
            self.unreachable.add(event.library_id)
        self.showing()

    def showing(self) -> None:
        """The banner if the server of the library the window shows is away, else none."""
        current = self.window.session.library_id
        if current is None or current not in self.unreachable:
            self.hide()
            return
        self.show(_("The studio database cannot be reached."),
                  _("Changes cannot be saved until it is back; nothing is half-saved. "
                    "Serpent connects again by itself."))
