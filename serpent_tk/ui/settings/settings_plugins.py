"""Settings → Plugins: every plugin found, with its name, version, state and the error if it
failed, and two switches: Enable (run it) and Expose to MCP (its commands become tools for
full-access AI clients).

Tk thread only. Switching goes through `PluginControls` (the composition root hands the
plugin manager) on a background thread; the page follows `PluginsChanged` from the gateway,
so a change made with `serpent-tk plugin ...`, or a plugin turned off after a failure, shows
at once.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Protocol

from serpent_tk.automation.events import PluginsChanged
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.state import PluginState
from serpent_tk.ui.language.gateway_words import listed
from serpent_tk.ui.language.translate import N_, _, known
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.theme import Theme

ORIGINS = {"built-in": N_("Comes with Serpent"), "folder": N_("From your plugins folder"),
           "entry point": N_("From an installed package")}  # i18n: not words (the key)
# what a plugin is doing now (`PluginState.status`), in the window's words
STATUS_WORDS = {"off": N_("Off"), "starting": N_("Starting…"), "running": N_("Running"),
                "failed": N_("Turned off after an error"), "broken": N_("Cannot run"),
                "incompatible": N_("Made for another Serpent version")}


class PluginControls(Protocol):
    """What the page needs from the plugin manager (`serpent_tk.plugins.manager`)."""

    def states(self) -> list[PluginState]:
        """Fast; callable on the Tk thread."""

    def set_enabled(self, plugin_id: str, enabled: bool) -> PluginState:
        """Blocking: only from a background thread."""

    def set_exposed(self, plugin_id: str, exposed: bool) -> PluginState:
        """Blocking: only from a background thread."""


class _Card:
    """One plugin's row of the page."""

    def __init__(self, page: PluginsSettingsPage, state: PluginState) -> None:
        px = page.theme.px
        self.px = px
        self.id = state.id
        self.frame = ttk.Frame(page.list_frame, style="Card.TFrame", padding=(px(12), px(10)))
        self.frame.pack(fill="x", pady=(px(6), 0))
        self.frame.columnconfigure(0, weight=1)
        top = ttk.Frame(self.frame)
        top.grid(row=0, column=0, columnspan=2, sticky="we")
        self.title = ttk.Label(top, text=known(state.name), style="Strong.TLabel")
        self.title.pack(side="left")
        self.version = ttk.Label(top, text=f"  {state.version}", style="Caption.TLabel")
        self.version.pack(side="left")
        self.status = ttk.Label(top, style="Caption.TLabel")
        self.status.pack(side="right")
        self.description = ttk.Label(self.frame, text=known(state.description),
                                     wraplength=px(500),
                                     justify="left")
        self.description.grid(row=1, column=0, columnspan=2, sticky="w", pady=(px(2), 0))
        self.details = ttk.Label(self.frame, style="Caption.TLabel", wraplength=px(500),
                                 justify="left")
        self.details.grid(row=2, column=0, columnspan=2, sticky="w", pady=(px(2), 0))
        switches = ttk.Frame(self.frame)
        switches.grid(row=3, column=0, columnspan=2, sticky="w", pady=(px(8), 0))
        self.enabled_var = tk.BooleanVar(value=state.enabled)
        self.exposed_var = tk.BooleanVar(value=state.exposed)
        self.enable = ttk.Checkbutton(switches, text=_("Enable"), style="Switch.TCheckbutton",
                                      variable=self.enabled_var,
                                      command=lambda: page.switch(self, "enabled"))
        self.enable.pack(side="left")
        self.expose = ttk.Checkbutton(switches, text=_("Expose to MCP (Full Access clients)"),
                                      style="Switch.TCheckbutton", variable=self.exposed_var,
                                      command=lambda: page.switch(self, "exposed"))
        self.expose.pack(side="left", padx=(px(16), 0))
        self.error = ttk.Label(self.frame, style="Danger.TLabel", wraplength=px(500),
                               justify="left")
        self.busy = False
        self.show(state)

    def show(self, state: PluginState) -> None:
        self.title.configure(text=known(state.name))
        self.version.configure(text=f"  {state.version}" if state.version else "")
        style = {"failed": "Danger.TLabel", "broken": "Warning.TLabel",
                 "incompatible": "Warning.TLabel", "running": "Success.TLabel"}.get(
            state.status, "Caption.TLabel")
        status = STATUS_WORDS.get(state.status)
        self.status.configure(text=_(status) if status else state.status_text, style=style)
        self.description.configure(text=known(state.description))
        adds = listed([known(c) for c in state.commands])
        origin = ORIGINS.get(state.origin)
        self.details.configure(text=_("{origin} · {adds}").format(
            origin=_(origin) if origin else state.origin,
            adds=adds or _("adds hooks or analysers only")))
        self.enabled_var.set(state.enabled)
        self.exposed_var.set(state.exposed)
        for switch in (self.enable, self.expose):
            switch.state(["disabled" if self.busy else "!disabled"])
        if not state.can_enable:
            self.enable.state(["disabled"])
        self.set_error(state.error, "Danger.TLabel" if state.can_enable else "Warning.TLabel")

    def set_error(self, text: str | None, style: str = "Danger.TLabel") -> None:
        if text:
            self.error.configure(text=text, style=style)
            self.error.grid(row=4, column=0, columnspan=2, sticky="w",
                            pady=(self.px(6), 0))
        else:
            self.error.grid_remove()


class PluginsSettingsPage(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands,
                 controls: PluginControls, folder: str | None = None) -> None:
        px = theme.px
        super().__init__(master, padding=(px(16), px(12)))
        self.theme = theme
        self.commands = commands
        self.controls = controls
        self.cards: dict[str, _Card] = {}
        ttk.Label(self, text=_("Plugins"), style="Strong.TLabel").pack(anchor="w")
        ttk.Label(self, style="Caption.TLabel", wraplength=px(520), justify="left",
                  text=_("Plugins add commands, checks that run before a change, and "
                         "analysers for new imports. Each runs in its own process: one that "
                         "fails or hangs is turned off and everything else keeps working. "
                         "Exposed plugins' commands are MCP tools only for credentials in Full "
                         "Access mode.")).pack(anchor="w", pady=(px(2), 0))
        self.list_frame = ttk.Frame(self)
        self.list_frame.pack(fill="x")
        self.empty = ttk.Label(self, style="Caption.TLabel", wraplength=px(520),
                               justify="left", text=_("No plugins found."))
        folder = str(app_dirs().plugins) if folder is None else folder
        if folder:
            ttk.Label(self, style="Caption.TLabel", wraplength=px(520), justify="left",
                      text=_("Your plugins folder: {folder} (one folder per plugin, with its "
                             "plugin.toml).").format(folder=folder)).pack(
                anchor="w", side="bottom", pady=(px(12), 0))
        self._unsubscribe: Callable[[], None] = commands.bus.subscribe(
            PluginsChanged, lambda _event: self.refresh())
        self.bind("<Destroy>", self._destroyed, add="+")
        self.refresh()

    def refresh(self) -> None:
        """Show the plugins as they are now (cards are kept; new ones are added)."""
        if not self.winfo_exists():
            return
        states = self.controls.states()
        for state in states:
            card = self.cards.get(state.id)
            if card is None:
                self.cards[state.id] = _Card(self, state)
            elif not card.busy:
                card.show(state)
        if states:
            self.empty.pack_forget()
        else:
            self.empty.pack(anchor="w", pady=(self.theme.px(8), 0))

    def switch(self, card: _Card, key: str) -> None:
        """A switch was flipped: apply it off the Tk thread, then show what happened."""
        value = (card.enabled_var if key == "enabled" else card.exposed_var).get()
        card.busy = True
        card.enable.state(["disabled"])
        card.expose.state(["disabled"])
        card.status.configure(text=_("Starting…") if key == "enabled" and value else "…")
        setter = self.controls.set_enabled if key == "enabled" else self.controls.set_exposed

        def done(state: PluginState | None, error: BaseException | None) -> None:
            card.busy = False
            if not card.frame.winfo_exists():  # the window closed meanwhile
                return
            if error is not None or state is None:
                self.refresh_card(card)
                card.set_error(str(error) or _("That did not work."))
                return
            card.show(state)

        self.commands.background(lambda: setter(card.id, value), done)

    def refresh_card(self, card: _Card) -> None:
        for state in self.controls.states():
            if state.id == card.id:
                card.show(state)

    def _destroyed(self, event: tk.Event) -> None:
        if event.widget is self:
            self._unsubscribe()
