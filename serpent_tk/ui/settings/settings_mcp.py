"""Settings → MCP: the service switch, status and port; it holds the client-config and the
credentials panels (`settings_clients.py`, `settings_credentials.py`).

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

from serpent_tk.credentials import CredentialStore
from serpent_tk.settings import Settings, SettingsStore
from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.settings.mcp_controls import McpControlError, McpControls, McpControlsStatus
from serpent_tk.ui.settings.settings_clients import ClientConfigPanel
from serpent_tk.ui.settings.settings_credentials import CredentialsPanel
from serpent_tk.ui.shell.commands import Commands
from serpent_tk.ui.shell.theme import Theme

log = logging.getLogger(__name__)

STATUS_POLL_MS = 1000
MIN_PORT, MAX_PORT = 1024, 65535


def check_port(text: str) -> tuple[int | None, str | None]:
    """(port, None) or (None, a sentence saying what is wrong)."""
    text = text.strip()
    if not text.isdigit():
        return None, _("Type a port number from {low} to {high}.").format(low=MIN_PORT,
                                                                          high=MAX_PORT)
    port = int(text)
    if not MIN_PORT <= port <= MAX_PORT:
        return None, _("Use a port from {low} to {high}.").format(low=MIN_PORT, high=MAX_PORT)
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
        self.busy = False
        self._status = McpControlsStatus(running=False)
        self._poll: str | None = None
        self._build_service()
        card = self._section(_("Connect an AI client"),
                             _("Copy the config for your client and paste it where it says, "
                               "or let Serpent install it. Then restart the client."))
        self.connect = ClientConfigPanel(card, theme, commands, controls, credentials)
        self.connect.pack(fill="x")
        card = self._section(_("Credentials"), _(
            "Each AI client gets its own token. Auto lets it organize the library; Read only "
            "can only look; Full Access can do everything."))
        self.creds = CredentialsPanel(card, theme, commands, credentials)
        self.creds.pack(fill="x")
        self.creds.on_names = self.connect.set_names
        self.creds.default_name = self._chosen_client_label
        self.connect.on_created = lambda name: self.creds.reload(select=name)
        self.refresh_status()
        self.bind("<Map>", lambda e: self._start_polling())
        self.bind("<Destroy>", self._on_destroy, add="+")

    # layout ------------------------------------------------------------------------------
    def _chosen_client_label(self) -> str:
        client = self.connect.client()
        return client.label if client else ""

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
        card = self._section(_("MCP service"), _(
            "AI clients on this computer connect to Serpent over 127.0.0.1 only; nothing is "
            "reachable from the network."))
        self.enabled_var = tk.BooleanVar(value=self.settings.mcp.enabled)
        self.auto_var = tk.BooleanVar(value=self.settings.mcp.auto_start)
        self.enabled_switch = ttk.Checkbutton(card, text=_("Enable MCP service"),
                                              variable=self.enabled_var,
                                              style="Switch.TCheckbutton",
                                              command=self._toggle_enabled)
        self.enabled_switch.grid(row=0, column=0, columnspan=4, sticky="w")
        self.auto_switch = ttk.Checkbutton(card, text=_("Start automatically when Serpent "
                                                        "opens"),
                                           variable=self.auto_var,
                                           style="Switch.TCheckbutton",
                                           command=self._toggle_auto)
        self.auto_switch.grid(row=1, column=0, columnspan=4, sticky="w", pady=(px(4), 0))

        status_row = ttk.Frame(card)
        status_row.grid(row=2, column=0, columnspan=4, sticky="we", pady=(px(10), 0))
        self.status_dot = ttk.Label(status_row, text="●")
        self.status_dot.pack(side="left", padx=(0, px(6)))
        self.status_label = ttk.Label(status_row, text=_("Stopped"))
        self.status_label.pack(side="left")
        self.status_detail = ttk.Label(card, style="Caption.TLabel")
        self.status_detail.grid(row=3, column=0, columnspan=4, sticky="w")

        ttk.Label(card, text=_("Port")).grid(row=4, column=0, sticky="w", pady=(px(10), 0))
        self.port_var = tk.StringVar(value=str(self.settings.mcp.port))
        self.port_entry = ttk.Entry(card, textvariable=self.port_var, width=8)
        self.port_entry.grid(row=4, column=1, sticky="w", padx=(px(8), px(6)),
                             pady=(px(10), 0))
        self.port_entry.bind("<Return>", lambda e: self.apply_port())
        self.port_apply = ttk.Button(card, text=_("Apply"), command=self.apply_port)
        self.port_apply.grid(row=4, column=2, sticky="w", pady=(px(10), 0))
        buttons = ttk.Frame(card)
        buttons.grid(row=4, column=3, sticky="e", pady=(px(10), 0))
        self.start_button = ttk.Button(buttons, text=_("Start"), style="Accent.TButton",
                                       command=self.start)
        self.start_button.pack(side="left")
        self.stop_button = ttk.Button(buttons, text=_("Stop"), command=self.stop)
        self.stop_button.pack(side="left", padx=(px(6), 0))
        card.columnconfigure(3, weight=1)

        self.port_problem = ttk.Frame(card)
        self.port_problem.grid(row=5, column=0, columnspan=4, sticky="we")
        self.port_error = ttk.Label(self.port_problem, style="Danger.TLabel",
                                    wraplength=px(500), justify="left")
        self.port_error.pack(anchor="w", pady=(px(8), 0))
        self.free_port_button = ttk.Button(self.port_problem, text=_("Use a free port instead"),
                                           command=self.use_free_port)
        self.port_problem.grid_remove()

    # settings ----------------------------------------------------------------------------
    def _save(self, change: Callable[[Settings], None]) -> None:
        change(self.settings)
        self.commands.background(lambda: self.store.update(change), self._saved)

    def _saved(self, _result: object, error: BaseException | None) -> None:
        if error is not None:
            log.warning("settings not saved: %s", error)
            self.port_error.configure(text=_("Settings could not be saved: {error}").format(
                error=error))

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
        if status.error and not status.running and not self.busy and not status.starting \
                and not self.port_problem_text:
            # it failed before this page was open (at start-up): say why, with the way out
            self._show_port_problem(status.error, port_in_use=status.port_in_use)
        if self.busy or status.starting:
            colour, text = p.warning, _("Starting…") if status.starting else _("Working…")
        elif status.running:
            colour = p.success
            text = _("Listening on {url}").format(
                url=status.url or f"http://127.0.0.1:{status.port}/mcp")
        elif status.error:
            colour, text = p.danger, _("Not running")
        else:
            colour, text = p.text_muted, _("Stopped")
        self.status_dot.configure(foreground=colour)
        self.status_label.configure(text=text)
        details = []
        if status.running:
            n = status.clients_connected
            connected = ngettext("{n} client connected", "{n} clients connected", n).format(
                n=humanize.number(n))
            if status.client_names:
                connected = _("{connected} ({names})").format(
                    connected=connected, names=humanize.listed(list(status.client_names)))
            details.append(connected)
            if status.last_request_at is not None:
                details.append(_("last request {when}").format(
                    when=humanize.ago(status.last_request_at, seconds_precise=True)))
            else:
                details.append(_("no requests yet"))
        elif not self.enabled_var.get():
            details.append(_("The service is turned off; AI clients cannot connect."))
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

    def _run(self, work: Callable[[], McpControlsStatus]) -> None:
        if self.busy:
            return
        self.busy = True
        self._paint_status()
        self.commands.background(work, self._service_done)

    def _service_done(self, status: McpControlsStatus | None, error: BaseException | None) -> None:
        self.busy = False
        if not self.winfo_exists():
            return
        if isinstance(error, McpControlError):
            self._show_port_problem(error.message, port_in_use=error.port_in_use)
        elif error is not None:
            log.warning("MCP service action failed: %s", error)
            self._show_port_problem(_("The MCP service could not be changed: {error}").format(
                error=error))
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
            self.connect.connect_result.configure(
                text=_("The port is now {port}. Copy the config again for clients that were "
                       "set up with the old port.").format(port=port))

    def _restart(self, port: int) -> None:
        def work() -> McpControlsStatus:
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
                self._show_port_problem(_("No free port found: {error}").format(error=error))
                return
            self.port_var.set(str(port))
            self.apply_port()

        self.commands.background(self.controls.free_port, chosen)
