"""The status bar: how many assets, what is selected, import progress, the MCP light.

Tk thread only. The MCP light polls `McpControls.status()` (fast, thread-safe) and opens
Settings → MCP when clicked.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk

from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.settings.mcp_controls import McpControls
from serpent_tk.ui.shell.theme import FONT_CAPTION, Theme
from serpent_tk.ui.shell.tooltip import tooltip

POLL_MS = 2000


class StatusBar(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, controls: McpControls | None,
                 on_mcp_click: Callable[[], None]) -> None:
        px = theme.px
        super().__init__(master, padding=(px(12), px(4)))
        self.theme = theme
        self.controls = controls
        self.counts = ttk.Label(self, style="Caption.TLabel")
        self._counts_text = ""
        self.counts.pack(side="left")
        self.mcp = tk.Label(self, font=FONT_CAPTION, cursor="hand2", borderwidth=0)
        self.mcp.pack(side="right", padx=(px(12), 0))
        self.mcp.bind("<Button-1>", lambda e: on_mcp_click())
        tooltip(self.mcp, theme, _("The MCP server AI clients connect to: click for Settings "
                                   "→ MCP"))
        self.progress_area = ttk.Frame(self)
        self.progress_area.pack(side="right")
        theme.on_change(self._poll_once)
        self._timer: str | None = None
        self._poll()

    def show_counts(self, text: str) -> None:
        if text != self._counts_text:
            self._counts_text = text
            self.counts.configure(text=text)

    def _poll_once(self) -> None:
        p = self.theme.palette
        self.mcp.configure(background=p.background)
        if self.controls is None:
            self.mcp.configure(text="", foreground=p.text_muted)
            return
        try:
            status = self.controls.status()
        except Exception:
            return
        if status.running:
            clients = status.clients_connected
            text = _("● MCP on {address}").format(address=f"127.0.0.1:{status.port}")
            if clients:
                text += " · " + ngettext("{n} client", "{n} clients", clients).format(
                    n=clients)
            colour = p.success
        elif status.starting:
            text, colour = _("◌ MCP starting…"), p.text_muted
        elif status.error:
            text, colour = _("● MCP not running — see Settings"), p.danger
        else:
            text, colour = _("○ MCP off"), p.text_muted
        self.mcp.configure(text=text, foreground=colour)

    def _poll(self) -> None:
        self._timer = None
        if not self.winfo_exists():
            return
        self._poll_once()
        self._timer = self.after(POLL_MS, self._poll)

    def destroy(self) -> None:
        if self._timer is not None:
            self.after_cancel(self._timer)
            self._timer = None
        super().destroy()
