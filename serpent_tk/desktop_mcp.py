"""Adapts the MCP service and the client-config snippets to the window's `McpControls`.

Thread-safe. The window never imports `serpent_tk.mcp`; the composition root hands it this
adapter. The MCP stack is imported lazily, off the Tk thread, on first use.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class DesktopMcpControls:
    """Adapts `McpService` and `client_configs` to the window's
    `serpent_tk.ui.mcp_controls.McpControls` (the window never imports `serpent_tk.mcp`).

    Thread-safe. Give it a running-or-not `service`, or `make_service` to build one on first
    use (off the Tk thread: importing the MCP stack takes a moment)."""

    def __init__(self, credentials: Any, *, service: Any = None,
                 make_service: Callable[[], Any] | None = None) -> None:
        self.credentials = credentials
        self._service = service
        self._make_service = make_service
        self._lock = threading.Lock()
        self._starting = False

    def service(self) -> Any:
        with self._lock:
            if self._service is None:
                assert self._make_service is not None
                self._service = self._make_service()
            return self._service

    def warm_up(self, start: bool, ready: threading.Event | None = None,
                ready_timeout_s: float = 120.0) -> None:
        """Background thread: build the service and, if the settings say so, start it once
        `ready` is set (the window's first library is open), so no agent finds the app
        without the library it reopens."""
        self._starting = start
        try:
            service = self.service()  # importing the MCP stack overlaps the library opening
            if start and ready is not None and not ready.wait(ready_timeout_s):
                log.warning("the first library took over %.0f s to open; starting MCP anyway",
                            ready_timeout_s)
            if start:
                status = service.start()
                if not status.running:       # a taken port, say: said in Settings → MCP too
                    log.warning("the MCP service did not start: %s", status.last_error)
        except Exception:
            log.exception("the MCP service could not be started")
        finally:
            self._starting = False

    def shutdown(self) -> None:
        if self._service is not None:
            self._service.stop()

    def status(self) -> Any:
        from serpent_tk.ui.settings.mcp_controls import McpControlsStatus

        service = self._service
        if service is None:
            return McpControlsStatus(running=False, starting=self._starting)
        s = service.status
        return McpControlsStatus(running=s.running, port=s.port, url=s.url,
                         clients_connected=s.clients_connected,
                         last_request_at=s.last_request_at, client_names=tuple(s.clients),
                         error=s.last_error, starting=self._starting and not s.running,
                         port_in_use=s.port if s.port_in_use and not s.running else None)

    def start(self, port: int) -> Any:
        from serpent_tk.ui.settings.mcp_controls import McpControlError

        service = self.service()
        service.port = port
        status = service.start(port)
        if not status.running:
            raise McpControlError(status.last_error or "The MCP server did not start.",
                                  port_in_use=port if status.port_in_use else None)
        return self.status()

    def stop(self) -> Any:
        self.service().stop()
        return self.status()

    def free_port(self) -> int:
        import socket

        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])

    def clients(self) -> list[Any]:
        from serpent_tk.mcp import client_configs
        from serpent_tk.ui.settings.mcp_controls import McpClient

        return [McpClient(c.id, c.label, c.paste_hint,
                          install_path=str(client_configs.install_targets(c.id)[0]))
                for c in client_configs.CLIENTS.values()]

    def config_snippet(self, client_id: str, credential: str) -> str:
        from serpent_tk.mcp import client_configs
        from serpent_tk.mcp.endpoint import current_port

        return client_configs.snippet(client_id, port=current_port(),
                                      token=self.credentials.token_for(credential))

    def install(self, client_id: str, credential: str) -> str:
        from serpent_tk.mcp import client_configs
        from serpent_tk.mcp.endpoint import current_port
        from serpent_tk.ui.settings.mcp_controls import McpControlError

        try:
            done = client_configs.install(client_id, port=current_port(),
                                          token=self.credentials.token_for(credential))
        except (client_configs.ConfigError, OSError) as error:
            raise McpControlError(str(error)) from None
        label = client_configs.client(client_id).label
        return " ".join(item.sentence() for item in done) + f" Restart {label} to load it."
