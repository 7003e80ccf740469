"""What Settings → MCP needs from the MCP service, as a small protocol the window owns.

Thread-safe by contract: `status()` is fast and callable from the Tk thread; everything
else may block (sockets, files) and is only called from a background thread. The window
never imports `serpent_tk.mcp`: `serpent_tk/desktop_mcp.py`, built by the composition root,
adapts the MCP service and the client-config module to this protocol. Errors are raised as
`McpControlError` with a sentence for people.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class McpControlError(Exception):
    """Something Settings → MCP could not do. `port_in_use` names a taken port."""

    def __init__(self, message: str, *, port_in_use: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.port_in_use = port_in_use


@dataclass(frozen=True)
class McpControlsStatus:
    """The MCP server as Settings → MCP shows it (the composition root maps the MCP
    service's own `McpStatus` onto it: the window never imports `serpent_tk.mcp`)."""

    running: bool
    port: int | None = None                 # the port it listens on (when running)
    url: str | None = None                  # "http://127.0.0.1:47615/mcp"
    clients_connected: int = 0
    last_request_at: datetime | None = None
    client_names: tuple[str, ...] = ()      # credential names of the connected clients
    error: str | None = None                # why the last start failed, for people
    starting: bool = False                  # being started right now (app start-up)
    port_in_use: int | None = None          # `error` is this port being taken


@dataclass(frozen=True)
class McpClient:
    """An AI client Serpent can write a config for."""

    id: str                 # the `--client` value: "claude-desktop", "cursor", ...
    label: str              # "Claude Desktop"
    paste_hint: str         # where the copied snippet goes, in words
    install_path: str | None = None   # config file "Install into" would change (None: unknown)


class McpControls(Protocol):
    def status(self) -> McpControlsStatus:
        """Fast, thread-safe."""

    def start(self, port: int) -> McpControlsStatus:
        """Start listening on 127.0.0.1:`port` (blocking). `McpControlError` with
        `port_in_use` when another program has the port."""

    def stop(self) -> McpControlsStatus:
        """Stop listening (blocking, quick)."""

    def free_port(self) -> int:
        """A port on 127.0.0.1 that is free right now."""

    def clients(self) -> list[McpClient]:
        """The clients of the "Copy MCP config" picker, in display order."""

    def config_snippet(self, client_id: str, credential: str) -> str:
        """Exactly what `serpent-tk mcp-config --client ID --credential NAME` prints."""

    def install(self, client_id: str, credential: str) -> str:
        """Merge Serpent into the client's config file (backup kept, atomic write);
        returns a sentence saying what was written where."""
