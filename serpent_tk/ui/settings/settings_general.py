"""Settings → General: appearance, and carrying settings to another computer.

Tk thread only; file work runs through `Commands.background`. Export and import call the
portable-settings module; libraries the imported settings name that are not on this
computer are listed as "missing — locate…" with a button to point at where they are.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from functools import partial
from pathlib import Path
from tkinter import filedialog, ttk
from typing import Any

from serpent_tk import portable
from serpent_tk.settings import Settings, SettingsStore
from serpent_tk.ui.language import humanize, translate
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.theme import Theme, ThemeName, theme_name

log = logging.getLogger(__name__)


class GeneralSettingsPage(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands,
                 settings_store: SettingsStore, settings: Settings,
                 on_theme: Callable[[ThemeName], None],
                 on_thumbnail_size: Callable[[int], None] | None = None,
                 on_language: Callable[[str], object] | None = None) -> None:
        px = theme.px
        super().__init__(master, padding=(px(16), px(12)))
        self.theme = theme
        self.commands = commands
        self.store = settings_store
        self.settings = settings
        self.on_theme = on_theme
        self.on_thumbnail_size = on_thumbnail_size
        self.on_language = on_language
        self.missing: list[portable.MissingLibrary] = []

        ttk.Label(self, text=_("Appearance"), style="Strong.TLabel").pack(anchor="w")
        card = ttk.Frame(self, style="Card.TFrame", padding=(px(12), px(10)))
        card.pack(fill="x", pady=(px(6), 0))
        ttk.Label(card, text=_("Theme")).grid(row=0, column=0, sticky="w", padx=(0, px(12)))
        self.theme_var = tk.StringVar(value=settings.ui.theme)
        for column, (value, label) in enumerate((("system", _("Like the system")),
                                                 ("light", _("Light")), ("dark", _("Dark"))),
                                                start=1):
            ttk.Radiobutton(card, text=label, value=value, variable=self.theme_var,
                            command=self._theme_chosen).grid(row=0, column=column, sticky="w",
                                                             padx=(0, px(12)))
        ttk.Label(card, text=_("Language")).grid(row=1, column=0, sticky="w",
                                                 padx=(0, px(12)), pady=(px(10), 0))
        self.language_var = tk.StringVar(value=settings.ui.language)
        languages = [(translate.SYSTEM, _("Like the system")),
                     *translate.LANGUAGES.items()]
        self.language_buttons = {}
        for column, (value, label) in enumerate(languages, start=1):
            button = ttk.Radiobutton(card, text=label, value=value, variable=self.language_var,
                                     command=self._language_chosen)
            button.grid(row=1, column=column, sticky="w", padx=(0, px(12)), pady=(px(10), 0))
            self.language_buttons[value] = button
        ttk.Label(card, text=_("Thumbnails")).grid(row=2, column=0, sticky="w",
                                                   padx=(0, px(12)), pady=(px(10), 0))
        self.size_var = tk.IntVar(value=settings.ui.thumbnail_size)
        self.size_scale = ttk.Scale(card, from_=96, to=320, variable=self.size_var,
                                    command=lambda _v: self._size_moved())
        self.size_scale.grid(row=2, column=1, columnspan=3, sticky="we", pady=(px(10), 0))
        card.columnconfigure(3, weight=1)

        ttk.Label(self, text=_("Your name"), style="Strong.TLabel").pack(
            anchor="w", pady=(px(16), px(2)))
        ttk.Label(self, style="Caption.TLabel", wraplength=px(520), justify="left",
                  text=_("In a library your team shares, what your AI clients change is "
                         "shown as yours: “Changed by Anna's Claude via MCP”.")).pack(
            anchor="w")
        self.person_var = tk.StringVar(value=settings.ui.person_name)
        self.person_entry = ttk.Entry(self, textvariable=self.person_var, width=30)
        self.person_entry.pack(anchor="w", pady=(px(6), 0))
        self.person_entry.bind("<Return>", lambda _e: self.person_named())
        self.person_entry.bind("<FocusOut>", lambda _e: self.person_named())

        ttk.Label(self, text=_("Move your settings to another computer"),
                  style="Strong.TLabel").pack(anchor="w", pady=(px(16), px(2)))
        ttk.Label(self, style="Caption.TLabel", wraplength=px(520), justify="left",
                  text=_("One file with your settings, MCP port and the list of your "
                         "libraries (library folders themselves are not copied). Tokens are "
                         "included only if you tick the box — keep such a file "
                         "private.")).pack(anchor="w")
        card = ttk.Frame(self, style="Card.TFrame", padding=(px(12), px(10)))
        card.pack(fill="x", pady=(px(6), 0))
        self.include_tokens = tk.BooleanVar(value=False)
        ttk.Checkbutton(card, text=_("Include AI client tokens (secret)"),
                        variable=self.include_tokens).pack(anchor="w")
        buttons = ttk.Frame(card)
        buttons.pack(fill="x", pady=(px(8), 0))
        ttk.Button(buttons, text=_("Export settings…"), command=self.ask_export).pack(
            side="left")
        ttk.Button(buttons, text=_("Import settings…"), command=self.ask_import).pack(
            side="left", padx=(px(6), 0))
        self.result = ttk.Label(card, wraplength=px(500), justify="left")
        self.result.pack(anchor="w", pady=(px(8), 0))
        self.missing_frame = ttk.Frame(card)
        self.missing_frame.pack(fill="x")
        self.refresh_missing()

    # the person --------------------------------------------------------------------------
    def person_named(self) -> None:
        """Keep the name (saved, and used by the gateway from the next call on)."""
        name = " ".join(self.person_var.get().split())[:60]
        if name == self.settings.ui.person_name:
            return
        self.settings.ui.person_name = name
        self.commands.gateway.person = name
        self.commands.background(lambda: self.store.update(
            lambda s: setattr(s.ui, "person_name", name)))

    # appearance --------------------------------------------------------------------------
    def _theme_chosen(self) -> None:
        name = theme_name(self.theme_var.get())
        self.settings.ui.theme = name
        self.commands.background(lambda: self.store.update(
            lambda s: setattr(s.ui, "theme", name)))
        self.on_theme(name)

    def _language_chosen(self) -> None:
        """The window speaks the chosen language from now on (rebuilt, keeping what it
        shows); the setting is saved for the next start."""
        language = self.language_var.get()
        if language == self.settings.ui.language:
            return
        self.settings.ui.language = language  # type: ignore[assignment]
        self.commands.background(lambda: self.store.update(
            lambda s: setattr(s.ui, "language", language)))
        if self.on_language is not None:
            self.on_language(language)

    def _size_moved(self) -> None:
        size = int(self.size_var.get())
        if size == self.settings.ui.thumbnail_size:
            return
        self.settings.ui.thumbnail_size = size
        if self.on_thumbnail_size is not None:
            self.on_thumbnail_size(size)
        self.commands.background(lambda: self.store.update(
            lambda s: setattr(s.ui, "thumbnail_size", size)))

    # export / import ---------------------------------------------------------------------
    def ask_export(self) -> None:
        path = filedialog.asksaveasfilename(
            parent=self, title=_("Export settings"), defaultextension=".json",
            initialfile="serpent-settings.json",
            filetypes=[(_("Serpent settings"), "*.json"), (_("All files"), "*")])
        if path:
            self.export_to(path)

    def export_to(self, path: str | Path) -> None:
        include = self.include_tokens.get()

        def done(report: portable.ExportReport | None, error: BaseException | None) -> None:
            if error is not None or report is None:
                self.result.configure(text=self._problem(error))
                return
            libraries = ngettext("{n} library", "{n} libraries", report.libraries).format(
                n=humanize.number(report.libraries))
            said = _("Exported {libraries} and {tokens} tokens to {path} (keep this file "
                     "private).") if report.credentials else _("Exported {libraries} to "
                                                              "{path}.")
            self.result.configure(text=said.format(libraries=libraries, path=report.path,
                                                   tokens=report.credentials))

        self.commands.background(
            lambda: portable.export_settings(path, include_credentials=include), done)

    def ask_import(self) -> None:
        path = filedialog.askopenfilename(
            parent=self, title=_("Import settings"),
            filetypes=[(_("Serpent settings"), "*.json"), (_("All files"), "*")])
        if path:
            self.import_from(path)

    def import_from(self, path: str | Path) -> None:
        def done(report: portable.ImportReport | None, error: BaseException | None) -> None:
            if error is not None or report is None:
                self.result.configure(text=self._problem(error))
                return
            self.settings = report.settings
            found = len(report.found)
            lines = [ngettext("Imported. {n} library found on this computer.",
                              "Imported. {n} libraries found on this computer.", found).format(
                n=humanize.number(found))]
            if report.missing:
                lines.append(ngettext("{n} not found here — locate it below.",
                                      "{n} not found here — locate them below.",
                                      len(report.missing)).format(n=len(report.missing)))
            if report.credentials_added:
                lines.append(_("Added credentials: {names}.").format(
                    names=humanize.listed(list(report.credentials_added))))
            lines.extend(report.notices)
            self.result.configure(text="\n".join(lines))
            self.missing = list(report.missing)
            self._show_missing()
            self.theme_var.set(report.settings.ui.theme)
            self.on_theme(report.settings.ui.theme)

        self.commands.background(lambda: portable.import_settings(path), done)

    def refresh_missing(self) -> None:
        settings = self.settings
        self.commands.background(lambda: portable.missing_libraries(settings),
                                 self._missing_loaded)

    def _missing_loaded(self, missing: list[portable.MissingLibrary] | None,
                        error: BaseException | None) -> None:
        if error is None and missing is not None and self.winfo_exists():
            self.missing = missing
            self._show_missing()

    def _show_missing(self) -> None:
        for child in self.missing_frame.winfo_children():
            child.destroy()
        px = self.theme.px
        for entry in self.missing:
            row = ttk.Frame(self.missing_frame)
            row.pack(fill="x", pady=(px(4), 0))
            ttk.Label(row, text=_("{name} — missing").format(name=entry.name),
                      style="Warning.TLabel").pack(
                side="left")
            ttk.Label(row, text=entry.path, style="Caption.TLabel").pack(
                side="left", padx=(px(8), 0))
            ttk.Button(row, text=_("Locate…"),
                       command=partial(self.ask_locate, entry)).pack(side="right")

    def ask_locate(self, entry: portable.MissingLibrary) -> None:
        path = filedialog.askdirectory(parent=self,
                                       title=_("Where is “{name}”?").format(name=entry.name),
                                       mustexist=True)
        if path:
            self.locate(entry, path)

    def locate(self, entry: portable.MissingLibrary, path: str | Path) -> None:
        def done(settings: Settings | None, error: BaseException | None) -> None:
            if error is not None or settings is None:
                self.result.configure(text=self._problem(error))
                return
            self.settings = settings
            self.missing = [m for m in self.missing if m != entry]
            self._show_missing()
            self.result.configure(text=_("“{name}” found at {path}.").format(
                name=entry.name, path=path))

        self.commands.background(lambda: portable.locate_library(entry, path), done)

    @staticmethod
    def _problem(error: Any) -> str:
        if isinstance(error, portable.PortableSettingsError):
            return error.message
        return _("That did not work: {error}").format(error=error)
