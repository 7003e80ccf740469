"""Settings → MCP, "Connect an AI client": the client and credential pickers, "Copy MCP
config" (exactly what `serpent-tk mcp-config` prints) and "Install into <client>".

Tk thread only; making the snippet and writing the client's file run in the background.
The token travels only inside the copied or installed config.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from serpent_tk.credentials import CredentialStore
from serpent_tk.ui.language.translate import N_, _, known
from serpent_tk.ui.settings.mcp_controls import McpClient, McpControlError, McpControls
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.theme import Theme

log = logging.getLogger(__name__)

NEW_SUFFIX = N_(" (new)")


def new_suffix() -> str:
    """" (new)" after a client's name: its credential will be made on the first copy."""
    return _(NEW_SUFFIX)



class GridLabelWhenSaid(ttk.Label):
    """A gridded label that takes no room while it has nothing to say."""

    def configure(self, cnf: Any = None, **kw: Any) -> Any:
        result = super().configure(cnf, **kw)
        if "text" in kw:
            if kw["text"]:
                self.grid()
            else:
                self.grid_remove()
        return result

class ClientConfigPanel(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands,
                 controls: McpControls, credentials: CredentialStore) -> None:
        super().__init__(master)
        self.theme = theme
        self.commands = commands
        self.controls = controls
        self.credentials = credentials
        self.on_created: Callable[[str], None] = lambda name: None
        self._clients: list[McpClient] = []
        self._names: list[str] = []
        self._build()
        self._load_clients()

    def _build(self) -> None:
        px = self.theme.px
        card = self
        ttk.Label(card, text=_("Client")).grid(row=0, column=0, sticky="w")
        self.client_var = tk.StringVar()
        self.client_box = ttk.Combobox(card, textvariable=self.client_var, state="readonly",
                                       width=18)
        self.client_box.grid(row=0, column=1, sticky="w", padx=(px(8), px(16)))
        self.client_box.bind("<<ComboboxSelected>>", lambda e: self._client_changed())
        ttk.Label(card, text=_("Credential")).grid(row=0, column=2, sticky="w")
        self.credential_var = tk.StringVar()
        self.credential_box = ttk.Combobox(card, textvariable=self.credential_var,
                                           state="readonly", width=18)
        self.credential_box.grid(row=0, column=3, sticky="w", padx=(px(8), 0))
        buttons = ttk.Frame(card)
        buttons.grid(row=1, column=0, columnspan=4, sticky="w", pady=(px(10), 0))
        self.copy_button = ttk.Button(buttons, text=_("Copy MCP config"),
                                      style="Accent.TButton", command=self.copy_config)
        self.copy_button.pack(side="left")
        self.install_button = ttk.Button(buttons, text=_("Install"), command=self.install)
        self.install_button.pack(side="left", padx=(px(6), 0))
        self.paste_hint = ttk.Label(card, style="Caption.TLabel", wraplength=px(520),
                                    justify="left")
        self.paste_hint.grid(row=2, column=0, columnspan=4, sticky="w", pady=(px(8), 0))
        self.connect_result = GridLabelWhenSaid(card, wraplength=px(520), justify="left")
        self.connect_result.grid(row=3, column=0, columnspan=4, sticky="w", pady=(px(4), 0))
        self.connect_result.grid_remove()             # no empty line until there is news

    def set_names(self, names: list[str]) -> None:
        """The credentials that exist now (from the credentials panel)."""
        self._names = list(names)
        self._credential_choices()

    def _load_clients(self) -> None:
        try:
            self._clients = list(self.controls.clients())
        except Exception as error:
            log.warning("MCP client list unavailable: %s", error)
            self._clients = []
        self.client_box.configure(values=[c.label for c in self._clients])
        if self._clients:
            self.client_box.current(0)
        self._client_changed()

    def client(self) -> McpClient | None:
        label = self.client_var.get()
        return next((c for c in self._clients if c.label == label), None)

    def select_client(self, client_id: str) -> None:
        for index, client in enumerate(self._clients):
            if client.id == client_id:
                self.client_box.current(index)
                self._client_changed()
                return
        raise KeyError(client_id)

    def _client_changed(self) -> None:
        client = self.client()
        self.connect_result.configure(text="")
        if client is None:
            self.install_button.state(["disabled"])
            self.copy_button.state(["disabled"])
            return
        self.copy_button.state(["!disabled"])
        self.install_button.configure(text=_("Install into {client}").format(
            client=client.label))
        self.install_button.state(["!disabled"] if client.install_path else ["disabled"])
        hint = _("Paste it into: {where}").format(where=known(client.paste_hint))
        if client.install_path:
            hint += "\n" + _("“Install” writes it into {path} (a backup is kept).").format(
                path=client.install_path)
        self.paste_hint.configure(text=hint)
        self._credential_choices()

    def _credential_names(self) -> list[str]:
        return list(self._names)

    def _credential_choices(self) -> None:
        """Existing credentials, plus "<client> (new)" when the client has none of its own;
        the client's own credential is chosen by default (as `mcp-config` does)."""
        client = self.client()
        values = list(self._names)
        if client is not None and client.label not in self._names:
            values.append(client.label + new_suffix())
        self.credential_box.configure(values=values)
        if client is not None and client.label in self._names:
            self.credential_var.set(client.label)
        elif self.credential_var.get() not in values:
            self.credential_var.set(values[-1] if values else "")

    def _credential_for_copy(self, then: Callable[[str], None]) -> None:
        """The chosen credential; "<name> (new)" is created first (mode Auto)."""
        name = self.credential_var.get()
        if name and not name.endswith(new_suffix()):
            then(name)
            return
        client = self.client()
        assert client is not None
        new_name = name.removesuffix(new_suffix()) if name else client.label

        def created(_result: object, error: BaseException | None) -> None:
            if error is not None:
                self.connect_result.configure(text=_("No credential could be made: "
                                                     "{error}").format(error=error))
                return
            self.on_created(new_name)
            self.credential_var.set(new_name)
            then(new_name)

        self.commands.background(lambda: self.credentials.create(new_name, "auto")[0],
                                 created)

    def copy_config(self) -> None:
        client = self.client()
        if client is None:
            return

        def with_credential(name: str) -> None:
            self.commands.background(lambda: self.controls.config_snippet(client.id, name),
                                     lambda text, error: self._copied(client, text, error))

        self._credential_for_copy(with_credential)

    def _copied(self, client: McpClient, text: str | None, error: BaseException | None) -> None:
        if error is not None or text is None:
            self.connect_result.configure(text=_("The config could not be made: "
                                                 "{error}").format(error=error))
            return
        self.clipboard_clear()
        self.clipboard_append(text)
        self.connect_result.configure(
            text=_("Copied the {client} config to the clipboard. Paste it into: "
                   "{where}").format(client=client.label, where=known(client.paste_hint)))

    def install(self) -> None:
        client = self.client()
        if client is None or not client.install_path:
            return

        def with_credential(name: str) -> None:
            self.commands.background(lambda: self.controls.install(client.id, name),
                                     self._installed)

        self._credential_for_copy(with_credential)

    def _installed(self, sentence: str | None, error: BaseException | None) -> None:
        if error is not None:
            message = error.message if isinstance(error, McpControlError) else str(error)
            self.connect_result.configure(text=_("Not installed: {why}").format(why=message))
        else:
            self.connect_result.configure(text=known(sentence or "") or _("Installed."))
