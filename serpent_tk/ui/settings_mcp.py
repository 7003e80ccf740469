"""Settings → MCP: the service switch, status, port, credentials and client configs.

Tk thread only. Everything that can take time (starting the server, writing a client's
config file, the credential file) runs through `Commands.background`, and the answer comes
back through the UiBus. The MCP service is reached only through `McpControls` (no import of
`serpent_tk.mcp`). A token is shown only after an explicit "Reveal", is never logged, and
leaves the window only as part of a copied config.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import Any

from serpent_tk.credentials import CredentialError, CredentialStore
from serpent_tk.settings import Settings, SettingsStore
from serpent_tk.ui import humanize
from serpent_tk.ui.commands import Commands
from serpent_tk.ui.dialogs import AskTextDialog, ConfirmDialog, Dialog, full_access_dialog
from serpent_tk.ui.mcp_controls import McpClient, McpControlError, McpControls, McpStatus
from serpent_tk.ui.theme import Theme

log = logging.getLogger(__name__)

STATUS_POLL_MS = 1000
MODE_LABELS = {"read-only": "Read only", "auto": "Auto", "full-access": "Full Access"}
MIN_PORT, MAX_PORT = 1024, 65535
NEW_SUFFIX = " (new)"


def check_port(text: str) -> tuple[int | None, str | None]:
    """(port, None) or (None, a sentence saying what is wrong)."""
    text = text.strip()
    if not text.isdigit():
        return None, f"Type a port number from {MIN_PORT} to {MAX_PORT}."
    port = int(text)
    if not MIN_PORT <= port <= MAX_PORT:
        return None, f"Use a port from {MIN_PORT} to {MAX_PORT}."
    return port, None


class McpSettingsPage(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands,
                 controls: McpControls, settings_store: SettingsStore, settings: Settings,
                 credentials: CredentialStore) -> None:
        px = theme.px
        super().__init__(master, padding=(px(16), px(12)))
        self.theme = theme
        self.commands = commands
        self.controls = controls
        self.store = settings_store
        self.settings = settings
        self.credentials = credentials
        self.dialog: Dialog | None = None
        self.busy = False
        self._status = McpStatus(running=False)
        self._poll: str | None = None
        self._clients: list[McpClient] = []
        self._revealed: str | None = None
        self._names: list[str] = []
        self._build_service()
        self._build_connect()
        self._build_credentials()
        self.refresh_status()
        self.reload_credentials()
        self._load_clients()
        self.bind("<Map>", lambda e: self._start_polling())
        self.bind("<Destroy>", self._on_destroy, add="+")

    # layout ------------------------------------------------------------------------------
    def _section(self, title: str, subtitle: str | None = None) -> ttk.Frame:
        px = self.theme.px
        first = not self.winfo_children()
        ttk.Label(self, text=title, style="Strong.TLabel").pack(
            anchor="w", pady=(0 if first else px(16), px(2)))
        if subtitle:
            ttk.Label(self, text=subtitle, style="Caption.TLabel", wraplength=px(520),
                      justify="left").pack(anchor="w")
        frame = ttk.Frame(self, style="Card.TFrame", padding=(px(12), px(10)))
        frame.pack(fill="x", pady=(px(6), 0))
        return frame

    def _build_service(self) -> None:
        px = self.theme.px
        card = self._section("MCP service", "AI clients on this computer connect to Serpent "
                             "over 127.0.0.1 only; nothing is reachable from the network.")
        self.enabled_var = tk.BooleanVar(value=self.settings.mcp.enabled)
        self.auto_var = tk.BooleanVar(value=self.settings.mcp.auto_start)
        self.enabled_switch = ttk.Checkbutton(card, text="Enable MCP service",
                                              variable=self.enabled_var,
                                              style="Switch.TCheckbutton",
                                              command=self._toggle_enabled)
        self.enabled_switch.grid(row=0, column=0, columnspan=4, sticky="w")
        self.auto_switch = ttk.Checkbutton(card, text="Start automatically when Serpent opens",
                                           variable=self.auto_var,
                                           style="Switch.TCheckbutton",
                                           command=self._toggle_auto)
        self.auto_switch.grid(row=1, column=0, columnspan=4, sticky="w", pady=(px(4), 0))

        status_row = ttk.Frame(card)
        status_row.grid(row=2, column=0, columnspan=4, sticky="we", pady=(px(10), 0))
        self.status_dot = ttk.Label(status_row, text="●")
        self.status_dot.pack(side="left", padx=(0, px(6)))
        self.status_label = ttk.Label(status_row, text="Stopped")
        self.status_label.pack(side="left")
        self.status_detail = ttk.Label(card, style="Caption.TLabel")
        self.status_detail.grid(row=3, column=0, columnspan=4, sticky="w")

        ttk.Label(card, text="Port").grid(row=4, column=0, sticky="w", pady=(px(10), 0))
        self.port_var = tk.StringVar(value=str(self.settings.mcp.port))
        self.port_entry = ttk.Entry(card, textvariable=self.port_var, width=8)
        self.port_entry.grid(row=4, column=1, sticky="w", padx=(px(8), px(6)),
                             pady=(px(10), 0))
        self.port_entry.bind("<Return>", lambda e: self.apply_port())
        self.port_apply = ttk.Button(card, text="Apply", command=self.apply_port)
        self.port_apply.grid(row=4, column=2, sticky="w", pady=(px(10), 0))
        buttons = ttk.Frame(card)
        buttons.grid(row=4, column=3, sticky="e", pady=(px(10), 0))
        self.start_button = ttk.Button(buttons, text="Start", style="Accent.TButton",
                                       command=self.start)
        self.start_button.pack(side="left")
        self.stop_button = ttk.Button(buttons, text="Stop", command=self.stop)
        self.stop_button.pack(side="left", padx=(px(6), 0))
        card.columnconfigure(3, weight=1)

        self.port_problem = ttk.Frame(card)
        self.port_problem.grid(row=5, column=0, columnspan=4, sticky="we")
        self.port_error = ttk.Label(self.port_problem, style="Danger.TLabel",
                                    wraplength=px(500), justify="left")
        self.port_error.pack(anchor="w", pady=(px(8), 0))
        self.free_port_button = ttk.Button(self.port_problem, text="Use a free port instead",
                                           command=self.use_free_port)
        self.port_problem.grid_remove()

    def _build_connect(self) -> None:
        px = self.theme.px
        card = self._section("Connect an AI client",
                             "Copy the config for your client and paste it where it says, "
                             "or let Serpent install it. Then restart the client.")
        ttk.Label(card, text="Client").grid(row=0, column=0, sticky="w")
        self.client_var = tk.StringVar()
        self.client_box = ttk.Combobox(card, textvariable=self.client_var, state="readonly",
                                       width=18)
        self.client_box.grid(row=0, column=1, sticky="w", padx=(px(8), px(16)))
        self.client_box.bind("<<ComboboxSelected>>", lambda e: self._client_changed())
        ttk.Label(card, text="Credential").grid(row=0, column=2, sticky="w")
        self.credential_var = tk.StringVar()
        self.credential_box = ttk.Combobox(card, textvariable=self.credential_var,
                                           state="readonly", width=18)
        self.credential_box.grid(row=0, column=3, sticky="w", padx=(px(8), 0))
        buttons = ttk.Frame(card)
        buttons.grid(row=1, column=0, columnspan=4, sticky="w", pady=(px(10), 0))
        self.copy_button = ttk.Button(buttons, text="Copy MCP config",
                                      style="Accent.TButton", command=self.copy_config)
        self.copy_button.pack(side="left")
        self.install_button = ttk.Button(buttons, text="Install", command=self.install)
        self.install_button.pack(side="left", padx=(px(6), 0))
        self.paste_hint = ttk.Label(card, style="Caption.TLabel", wraplength=px(520),
                                    justify="left")
        self.paste_hint.grid(row=2, column=0, columnspan=4, sticky="w", pady=(px(8), 0))
        self.connect_result = ttk.Label(card, wraplength=px(520), justify="left")
        self.connect_result.grid(row=3, column=0, columnspan=4, sticky="w", pady=(px(4), 0))

    def _build_credentials(self) -> None:
        px = self.theme.px
        card = self._section("Credentials", "Each AI client gets its own token. Auto lets it "
                             "organize the library; Read only can only look; Full Access can "
                             "do everything.")
        columns = ("mode", "created", "used")
        self.tree = ttk.Treeview(card, columns=columns, height=4, selectmode="browse")
        self.tree.heading("#0", text="Name", anchor="w")
        self.tree.heading("mode", text="Mode", anchor="w")
        self.tree.heading("created", text="Created", anchor="w")
        self.tree.heading("used", text="Last used", anchor="w")
        self.tree.column("#0", width=px(150), stretch=True)
        self.tree.column("mode", width=px(90), stretch=False)
        self.tree.column("created", width=px(110), stretch=False)
        self.tree.column("used", width=px(110), stretch=False)
        self.tree.pack(fill="x")
        self.tree.bind("<<TreeviewSelect>>", lambda e: self._credential_selected())
        self.no_credentials = ttk.Label(card, style="Caption.TLabel",
                                        text="No credentials yet: copying a config creates "
                                             "one for that client.")
        buttons = ttk.Frame(card)
        buttons.pack(fill="x", pady=(px(8), 0))
        ttk.Button(buttons, text="New…", command=self.new_credential).pack(side="left")
        self.mode_var = tk.StringVar()
        self.mode_button = ttk.Menubutton(buttons, text="Mode")
        menu = tk.Menu(self.mode_button, tearoff=False)
        for mode, label in MODE_LABELS.items():
            menu.add_radiobutton(label=label, value=mode, variable=self.mode_var,
                                 command=lambda m=mode: self.set_mode(self.selected(), m))
        self.mode_button["menu"] = menu
        self.mode_button.pack(side="left", padx=(px(6), 0))
        self.reveal_button = ttk.Button(buttons, text="Reveal token", command=self.reveal)
        self.reveal_button.pack(side="left", padx=(px(6), 0))
        self.revoke_button = ttk.Button(buttons, text="Revoke…", command=self.ask_revoke)
        self.revoke_button.pack(side="left", padx=(px(6), 0))
        self.token_row = ttk.Frame(card)
        self.token_var = tk.StringVar()
        self.token_entry = ttk.Entry(self.token_row, textvariable=self.token_var,
                                     state="readonly", font=("TkFixedFont", 9))
        self.token_entry.pack(side="left", fill="x", expand=True)
        ttk.Button(self.token_row, text="Copy", command=self._copy_token).pack(
            side="left", padx=(px(6), 0))
        ttk.Button(self.token_row, text="Hide", command=self.hide_token).pack(
            side="left", padx=(px(6), 0))
        self.credential_message = ttk.Label(card, style="Caption.TLabel", wraplength=px(520))
        self.credential_message.pack(anchor="w", pady=(px(4), 0))
        self._credential_selected()

    # settings ----------------------------------------------------------------------------
    def _save(self, change: Callable[[Settings], None]) -> None:
        change(self.settings)
        self.commands.background(lambda: self.store.update(change), self._saved)

    def _saved(self, _result: object, error: BaseException | None) -> None:
        if error is not None:
            log.warning("settings not saved: %s", error)
            self.port_error.configure(text=f"Settings could not be saved: {error}")

    def _toggle_enabled(self) -> None:
        enabled = self.enabled_var.get()
        self._save(lambda s: setattr(s.mcp, "enabled", enabled))
        if enabled and not self._status.running:
            self.start()
        elif not enabled and self._status.running:
            self.stop()
        self._paint_status()

    def _toggle_auto(self) -> None:
        auto = self.auto_var.get()
        self._save(lambda s: setattr(s.mcp, "auto_start", auto))

    # service -----------------------------------------------------------------------------
    def refresh_status(self) -> None:
        try:
            self._status = self.controls.status()
        except Exception as error:  # a broken adapter must not break the page
            log.warning("MCP status unavailable: %s", error)
        self._paint_status()

    def _paint_status(self) -> None:
        status, p = self._status, self.theme.palette
        if self.busy or status.starting:
            colour, text = p.warning, "Starting…" if status.starting else "Working…"
        elif status.running:
            colour = p.success
            text = f"Listening on {status.url or f'http://127.0.0.1:{status.port}/mcp'}"
        elif status.error:
            colour, text = p.danger, "Not running"
        else:
            colour, text = p.text_muted, "Stopped"
        self.status_dot.configure(foreground=colour)
        self.status_label.configure(text=text)
        details = []
        if status.running:
            connected = humanize.count(status.clients_connected, "client") + " connected"
            if status.client_names:
                connected += f" ({', '.join(status.client_names)})"
            details.append(connected)
            if status.last_request_at is not None:
                details.append("last request "
                               + humanize.ago(status.last_request_at, seconds_precise=True))
            else:
                details.append("no requests yet")
        elif not self.enabled_var.get():
            details.append("The service is turned off; AI clients cannot connect.")
        self.status_detail.configure(text=" · ".join(details))
        enabled = self.enabled_var.get() and not self.busy
        self.start_button.state(["!disabled"] if enabled and not status.running
                                else ["disabled"])
        self.stop_button.state(["!disabled"] if status.running and not self.busy
                               else ["disabled"])

    def _start_polling(self) -> None:
        if self._poll is None:
            self._poll = self.after(STATUS_POLL_MS, self._tick)

    def _tick(self) -> None:
        self._poll = None
        if not self.winfo_exists():
            return
        if not self.busy:
            self.refresh_status()
        if self.winfo_ismapped():
            self._poll = self.after(STATUS_POLL_MS, self._tick)

    def _on_destroy(self, event: tk.Event) -> None:
        if event.widget is self and self._poll is not None:
            self.after_cancel(self._poll)
            self._poll = None

    def start(self, port: int | None = None) -> None:
        if port is None:
            port, problem = check_port(self.port_var.get())
            if problem:
                self._show_port_problem(problem)
                return
        assert port is not None
        self._show_port_problem(None)
        self._run(lambda: self.controls.start(port))

    def stop(self) -> None:
        self._run(self.controls.stop)

    def _run(self, work: Callable[[], McpStatus]) -> None:
        if self.busy:
            return
        self.busy = True
        self._paint_status()
        self.commands.background(work, self._service_done)

    def _service_done(self, status: McpStatus | None, error: BaseException | None) -> None:
        self.busy = False
        if not self.winfo_exists():
            return
        if isinstance(error, McpControlError):
            self._show_port_problem(error.message, port_in_use=error.port_in_use)
        elif error is not None:
            log.warning("MCP service action failed: %s", error)
            self._show_port_problem(f"The MCP service could not be changed: {error}")
        self.refresh_status()
        if status is not None and status.error and error is None:
            self._show_port_problem(status.error)

    def apply_port(self) -> None:
        port, problem = check_port(self.port_var.get())
        if problem:
            self._show_port_problem(problem)
            return
        assert port is not None
        self._show_port_problem(None)
        changed = port != self.settings.mcp.port
        self._save(lambda s: setattr(s.mcp, "port", port))
        if self._status.running and (changed or self._status.port != port):
            self._restart(port)
        elif not self._status.running and self.enabled_var.get():
            self.start(port)
        if changed:
            self.connect_result.configure(
                text=f"The port is now {port}. Copy the config again for clients that "
                     "were set up with the old port.")

    def _restart(self, port: int) -> None:
        def work() -> McpStatus:
            self.controls.stop()
            return self.controls.start(port)

        self._run(work)

    def _show_port_problem(self, message: str | None, port_in_use: int | None = None) -> None:
        self.port_error.configure(text=message or "")
        if message:
            self.port_problem.grid()
        else:
            self.port_problem.grid_remove()
        if port_in_use is not None:
            self.free_port_button.pack(anchor="w", pady=(self.theme.px(6), 0))
        else:
            self.free_port_button.pack_forget()

    @property
    def port_problem_text(self) -> str:
        return str(self.port_error.cget("text"))

    def use_free_port(self) -> None:
        """The way out of "port in use": pick a free port, save it and start there."""
        def chosen(port: int | None, error: BaseException | None) -> None:
            if port is None or error is not None:
                self._show_port_problem(f"No free port found: {error}")
                return
            self.port_var.set(str(port))
            self.apply_port()

        self.commands.background(self.controls.free_port, chosen)

    # clients -----------------------------------------------------------------------------
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
        self.install_button.configure(text=f"Install into {client.label}")
        self.install_button.state(["!disabled"] if client.install_path else ["disabled"])
        hint = f"Paste it into: {client.paste_hint}"
        if client.install_path:
            hint += f"\n“Install” writes it into {client.install_path} (a backup is kept)."
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
            values.append(client.label + NEW_SUFFIX)
        self.credential_box.configure(values=values)
        if client is not None and client.label in self._names:
            self.credential_var.set(client.label)
        elif self.credential_var.get() not in values:
            self.credential_var.set(values[-1] if values else "")

    def _credential_for_copy(self, then: Callable[[str], None]) -> None:
        """The chosen credential; "<name> (new)" is created first (mode Auto)."""
        name = self.credential_var.get()
        if name and not name.endswith(NEW_SUFFIX):
            then(name)
            return
        client = self.client()
        assert client is not None
        new_name = name.removesuffix(NEW_SUFFIX) if name else client.label

        def created(_result: object, error: BaseException | None) -> None:
            if error is not None:
                self.connect_result.configure(text=f"No credential could be made: {error}")
                return
            self.reload_credentials(select=new_name)
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
            self.connect_result.configure(text=f"The config could not be made: {error}")
            return
        self.clipboard_clear()
        self.clipboard_append(text)
        self.connect_result.configure(
            text=f"Copied the {client.label} config to the clipboard. Paste it into: "
                 f"{client.paste_hint}")

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
            self.connect_result.configure(text=f"Not installed: {message}")
        else:
            self.connect_result.configure(text=sentence or "Installed.")

    # credentials -------------------------------------------------------------------------
    def reload_credentials(self, select: str | None = None) -> None:
        self.commands.background(self.credentials.list,
                                 lambda items, error: self._show_credentials(items, error,
                                                                             select))

    def _show_credentials(self, items: list[Any] | None, error: BaseException | None,
                          select: str | None) -> None:
        if error is not None or items is None:
            self.credential_message.configure(text=f"Credentials could not be read: {error}")
            return
        if not self.winfo_exists():
            return
        current = select or self.selected()
        self.tree.delete(*self.tree.get_children())
        for credential in items:
            self.tree.insert("", "end", iid=credential.name, text=credential.name, values=(
                MODE_LABELS.get(credential.mode, credential.mode),
                humanize.ago(credential.created_at),
                humanize.ago(credential.last_used_at) if credential.last_used_at else "never"))
        names = [c.name for c in items]
        self._names = names
        self._credential_choices()
        if current in names:
            self.tree.selection_set(current)
        if names:
            self.no_credentials.pack_forget()
        else:
            self.no_credentials.pack(anchor="w", before=self.tree)
        self._credential_selected()

    def selected(self) -> str | None:
        selection = self.tree.selection()
        return selection[0] if selection else None

    def _credential_selected(self) -> None:
        name = self.selected()
        state = ["!disabled"] if name else ["disabled"]
        for button in (self.mode_button, self.reveal_button, self.revoke_button):
            button.state(state)
        if name and self.tree.exists(name):
            mode_label = self.tree.set(name, "mode")
            mode = next((m for m, label in MODE_LABELS.items() if label == mode_label), "")
            self.mode_var.set(mode)
            self.mode_button.configure(text=f"Mode: {mode_label}")
        else:
            self.mode_button.configure(text="Mode")
        if self._revealed != name:
            self.hide_token()

    def new_credential(self) -> None:
        names = {n.casefold() for n in self.tree.get_children()}
        mode = tk.StringVar(value="auto")

        def modes(frame: ttk.Frame) -> None:
            ttk.Label(frame, text="Mode").pack(anchor="w")
            for value in ("read-only", "auto"):
                ttk.Radiobutton(frame, text=MODE_LABELS[value], value=value,
                                variable=mode).pack(anchor="w")
            ttk.Label(frame, text="Full Access can be turned on afterwards.",
                      style="Caption.TLabel").pack(anchor="w")

        def validate(text: str) -> str | None:
            if not text:
                return "Please type a name, e.g. the client's name."
            if text.casefold() in names:
                return f"There is already a credential called “{text}”."
            return None

        def create(name: str) -> None:
            def done(_result: object, error: BaseException | None) -> None:
                if error is not None:
                    self.credential_message.configure(text=str(error))
                    return
                self.credential_message.configure(
                    text=f"Created “{name}”. Copy a config to connect a client with it.")
                self.reload_credentials(select=name)

            chosen = mode.get()      # read on the Tk thread: a Tk variable never leaves it
            self.commands.background(lambda: self.credentials.create(name, chosen), done)

        self.dialog = AskTextDialog(self, self.theme, title="New credential",
                                    prompt="Name (usually the AI client's name):",
                                    initial=(self.client().label if self.client() else ""),
                                    confirm_label="Create", on_confirm=create,
                                    validate=validate, extra=modes)

    def set_mode(self, name: str | None, mode: str) -> None:
        if not name:
            return
        current = self.tree.set(name, "mode") if self.tree.exists(name) else ""
        if MODE_LABELS.get(mode) == current:
            return
        if mode == "full-access":
            self._credential_selected()          # the menu shows the old mode until confirmed
            self.dialog = full_access_dialog(self, self.theme, name,
                                             lambda: self._apply_mode(name, mode))
            return
        self._apply_mode(name, mode)

    def _apply_mode(self, name: str, mode: str) -> None:
        def done(_result: object, error: BaseException | None) -> None:
            if error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(
                text=f"“{name}” is now {MODE_LABELS[mode]}. It applies from its next request.")
            self.reload_credentials(select=name)

        self.commands.background(lambda: self.credentials.set_mode(name, mode), done)

    def ask_revoke(self) -> None:
        name = self.selected()
        if not name:
            return
        self.dialog = ConfirmDialog(
            self, self.theme, title="Revoke credential", heading=f"Revoke “{name}”?",
            text="The client using it is cut off at its next request, and its pasted config "
                 "stops working. You can make a new credential at any time.",
            confirm_label="Revoke", on_confirm=lambda: self.revoke(name))

    def revoke(self, name: str) -> None:
        def done(_result: object, error: BaseException | None) -> None:
            if isinstance(error, CredentialError) or error is not None:
                self.credential_message.configure(text=str(error))
                return
            self.credential_message.configure(text=f"Revoked “{name}”.")
            self.reload_credentials()

        self.hide_token()
        self.commands.background(lambda: self.credentials.revoke(name), done)

    def reveal(self) -> None:
        """Show the selected credential's token: only on this explicit request."""
        name = self.selected()
        if not name:
            return

        def shown(token: str | None, error: BaseException | None) -> None:
            if error is not None or token is None:
                self.credential_message.configure(text=str(error))
                return
            self._revealed = name
            self.token_var.set(token)
            self.token_row.pack(fill="x", pady=(self.theme.px(6), 0),
                                before=self.credential_message)

        self.commands.background(lambda: self.credentials.token_for(name), shown)

    def hide_token(self) -> None:
        self._revealed = None
        self.token_var.set("")
        self.token_row.pack_forget()

    def _copy_token(self) -> None:
        if self.token_var.get():
            self.clipboard_clear()
            self.clipboard_append(self.token_var.get())
            self.credential_message.configure(text="Token copied to the clipboard.")

