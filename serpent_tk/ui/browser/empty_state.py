"""What the grid area says when it has no cells: opening, empty library (how to add images
and how to connect an AI client), nothing matches, empty trash, library closed.

Tk thread only. A frame placed in the middle of the grid; the buttons call back.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.menus.menu_style import themed_menu
from serpent_tk.ui.shell.theme import Theme


class EmptyState(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, *, on_import: Callable[[], None],
                 on_connect: Callable[[], None], on_clear_search: Callable[[], None],
                 on_reopen: Callable[[], None],
                 on_import_folder: Callable[[bool], None] | None = None) -> None:
        px = theme.px
        super().__init__(master, padding=(px(28), px(22)), style="Card.TFrame")
        self.theme = theme
        self.kind = ""
        self._detail = ""
        self._shown: tuple[object, ...] = ()
        self.title = ttk.Label(self, style="Title.TLabel", anchor="center", justify="center")
        self.title.pack(fill="x")
        self.text = ttk.Label(self, anchor="center", justify="center", wraplength=px(380),
                              style="Muted.TLabel")
        self.text.pack(fill="x", pady=(px(6), 0))
        self.steps = ttk.Frame(self)
        choices = [(_("Files…"), on_import)]
        if on_import_folder is not None:
            choices += [(_("A folder…"), lambda: on_import_folder(False)),
                        (_("A folder, flattened…"), lambda: on_import_folder(True))]
        self.import_button = self._step(
            1, _("Add images"), _("Drag files or folders here from your file manager, or "
                                  "choose them:"), _("Import images…"), on_import, choices)
        self._step(2, _("Let an AI client help"), _(
            "Claude, Cursor, VS Code and others can tag, sort and find things for you. Copy "
            "the config from Settings → MCP and paste it into your client."),
            _("Connect an AI client…"), on_connect)
        self.button = ttk.Button(self)
        self._actions = {"no-match": (_("Clear search"), on_clear_search),
                         "closed": (_("Open it again"), on_reopen)}

    def _step(self, number: int, title: str, text: str, button: str,
              command: Callable[[], None],
              choices: list[tuple[str, Callable[[], None]]] | None = None) -> ttk.Widget:
        """A numbered step; `choices`: its button opens a menu of them (files or a
        folder) instead of running `command`."""
        px = self.theme.px
        row = ttk.Frame(self.steps)
        row.pack(fill="x", pady=(px(14), 0))
        ttk.Label(row, text=f"{number}", style="Title.TLabel", width=2).pack(
            side="left", anchor="n")
        body = ttk.Frame(row)
        body.pack(side="left", fill="x", expand=True)
        ttk.Label(body, text=title, style="Strong.TLabel").pack(anchor="w")
        ttk.Label(body, text=text, wraplength=px(340), justify="left").pack(
            anchor="w", pady=(px(2), px(6)))
        style = "Accent.TButton" if number == 1 else "TButton"
        widget: ttk.Widget
        if choices and len(choices) > 1:
            widget = ttk.Menubutton(body, text=button, style=style)
            menu = themed_menu(widget, self.theme)
            for label, run in choices:
                menu.add_command(label=label, command=run)
            widget["menu"] = menu
        else:
            widget = ttk.Button(body, text=button, command=command, style=style)
        widget.pack(anchor="w")
        return widget

    def show(self, kind: str, detail: str = "", *, title: str | None = None,
             action: tuple[str, Callable[[], None]] | None = None) -> None:
        """kind: "" (hide), "loading", "empty", "no-match", "trash", "closed", or "view" (an
        empty folder, collection... : `title`, `detail` and maybe an `action` say it)."""
        shown = (kind, detail, title, action[0] if action else None)
        if shown == self._shown:
            return
        self._shown = shown
        self.kind, self._detail = kind, detail
        if not kind:
            self.place_forget()
            return
        texts = {
            "loading": (_("Opening your library…"), detail),
            "empty": (_("Your library is empty"), _("Two steps to get going:")),
            "no-match": (_("Nothing matches"),
                         detail or _("Try other words or another folder.")),
            "trash": (_("The Trash is empty"),
                      _("Things you delete wait here until you empty it.")),
            "closed": (_("This library is closed"), detail or _("It was closed or removed.")),
        }
        heading, text = texts.get(kind, (title or "", detail))
        self.title.configure(text=title or heading)
        self.text.configure(text=text)
        if kind == "empty":
            self.steps.pack(fill="x")
        else:
            self.steps.pack_forget()
        action = action or self._actions.get(kind)
        if action:
            self.button.configure(text=action[0], command=action[1])
            self.button.pack(pady=(self.theme.px(12), 0))
        else:
            self.button.pack_forget()
        self.place(relx=0.5, rely=0.42, anchor="center")
        self.lift()

    def widgets(self) -> list[tk.Misc]:
        """Every widget of the panel (so drops on it still import); not its menu, which a
        drop target registration would show in the screen's corner."""
        found: list[tk.Misc] = []
        stack: list[tk.Misc] = [self]
        while stack:
            widget = stack.pop()
            if isinstance(widget, tk.Menu):
                continue
            found.append(widget)
            stack.extend(widget.winfo_children())
        return found
