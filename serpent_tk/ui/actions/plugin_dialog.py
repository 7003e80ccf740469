"""The dialog that asks for a plugin command's arguments: one field per simple property of its
input schema, a Preview button when the command can show what it would do, and Run.

Tk thread only. The dialog only collects values and shows answers; `PluginCommands` runs the
command through the gateway and tells the dialog what came back (`show_preview`,
`show_error`, `close`). It never blocks: while a call runs its buttons wait greyed out.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from serpent_tk.ui.actions.plugin_fields import FieldInput, FieldProblem, Fields
from serpent_tk.ui.language.formats import number
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.dialogs import Dialog
from serpent_tk.ui.shell.theme import FONT_SUBTITLE, Theme

MAX_PREVIEW_LINES = 12

Values = dict[str, Any]


class PluginDialog(Dialog):
    def __init__(self, parent: tk.Misc, theme: Theme, *, title: str, summary: str,
                 aim: str, fields: Fields, on_run: Callable[[Values], None],
                 on_preview: Callable[[Values], None] | None, run_label: str | None = None,
                 danger: bool = False) -> None:
        super().__init__(parent, theme, title)
        self.on_run = on_run
        self.on_preview = on_preview
        p, px = theme.palette, theme.px
        if danger:
            tk.Frame(self, background=p.danger, height=px(6)).pack(fill="x")
        body = ttk.Frame(self, padding=(px(20), px(16), px(20), px(12)))
        body.pack(fill="both", expand=True)
        tk.Label(body, text=title, font=FONT_SUBTITLE, anchor="w", justify="left",
                 background=p.background, foreground=p.text).pack(fill="x")
        ttk.Label(body, text=summary, wraplength=px(460), justify="left").pack(
            anchor="w", pady=(px(4), 0))
        self.aim = ttk.Label(body, text=aim, style="Caption.TLabel", wraplength=px(460),
                             justify="left")
        self.aim.pack(anchor="w", pady=(px(4), 0))
        grid = ttk.Frame(body)
        grid.pack(fill="x", pady=(px(6), 0))
        grid.columnconfigure(1, weight=1)
        self.inputs = [FieldInput(grid, spec, row * 2, px)
                       for row, spec in enumerate(fields.fields)]
        self.preview = ttk.Label(body, style="Caption.TLabel", wraplength=px(460),
                                 justify="left", font=("TkFixedFont", 9))
        self.preview_shown = False
        self.error = ttk.Label(body, style="Danger.TLabel", wraplength=px(460),
                               justify="left")
        self.error.pack(anchor="w", pady=(px(8), 0))
        buttons = ttk.Frame(body)
        buttons.pack(fill="x", pady=(px(10), 0))
        self.buttons = buttons
        self.cancel_button = ttk.Button(buttons, text=_("Cancel"), command=self.cancel)
        self.cancel_button.pack(side="right")
        self.run_button = ttk.Button(buttons, text=run_label or _("Run"), command=self.confirm,
                                     style="Accent.TButton")
        self.run_button.pack(side="right", padx=(0, px(8)))
        self.preview_button: ttk.Button | None = None
        if on_preview is not None:
            self.preview_button = ttk.Button(buttons, text=_("Preview"),
                                             command=self.ask_preview)
            self.preview_button.pack(side="right", padx=(0, px(8)))
        self.bind("<Return>", lambda e: self.confirm())
        first = self.inputs[0].widget if self.inputs else self.run_button
        self.present(focus=first)

    def field(self, key: str) -> FieldInput:
        """The input of argument `key` (tests type into it)."""
        return next(i for i in self.inputs if i.spec.key == key)

    def values(self) -> Values | None:
        """What the person typed, or None (the problem is shown)."""
        values: Values = {}
        for field in self.inputs:
            try:
                given, value = field.read()
            except FieldProblem as problem:
                self.show_error(str(problem))
                return None
            if given:
                values[field.spec.key] = value
        return values

    def ask_preview(self) -> None:
        values = self.values()
        if values is not None and self.on_preview is not None and not self.closed:
            self.busy(True)
            self.on_preview(values)

    def confirm(self) -> None:
        if self.closed or self.run_button.instate(["disabled"]):
            return
        values = self.values()
        if values is not None:
            self.busy(True)
            self.on_run(values)

    # what came back ------------------------------------------------------------------------
    def busy(self, working: bool) -> None:
        if self.closed:
            return
        state = ["disabled"] if working else ["!disabled"]
        for button in (self.run_button, self.preview_button):
            if button is not None:
                button.state(state)
        if working:
            self.error.configure(text="")

    def show_preview(self, lines: list[str]) -> None:
        if self.closed:
            return
        self.busy(False)
        shown = lines[:MAX_PREVIEW_LINES]
        if len(lines) > len(shown):
            shown.append(_("… and {n} more").format(n=number(len(lines) - len(shown))))
        self.preview.configure(text="\n".join(shown) or _("Nothing would change."))
        if not self.preview_shown:
            self.preview.pack(anchor="w", fill="x", pady=(self.theme.px(8), 0),
                              before=self.error)
            self.preview_shown = True

    def show_error(self, text: str) -> None:
        if self.closed:
            return
        self.busy(False)
        self.error.configure(text=text)

    def gone(self, text: str) -> None:
        """The command is not there any more (its plugin was turned off)."""
        if self.closed:
            return
        self.show_error(text)
        for button in (self.run_button, self.preview_button):
            if button is not None:
                button.state(["disabled"])
