"""A port already taken when Serpent starts: the log says so, the status bar and Settings →
MCP say why it is not running, and "Use a free port instead" is there at once (no need to
press Start first)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from tests.ui.conftest import App
from tests.ui.settings.test_settings_mcp import open_page

pytestmark = pytest.mark.gui


def test_a_port_taken_at_start_up_is_explained_with_the_way_out(
        app: App, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app.open_default()
    controls = app.window.services.mcp
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(1)
        taken = squatter.getsockname()[1]
        app.service.port = taken               # as if the settings said so at start-up
        app.window.services.settings.mcp.port = taken
        with caplog.at_level(logging.WARNING, logger="serpent_tk.desktop_mcp"):
            controls.warm_up(True)             # what the app does at start-up (auto start)
        assert any(str(taken) in r.getMessage() and r.levelno == logging.WARNING
                   for r in caplog.records), caplog.text
        assert not app.service.status.running
        status_bar = app.window.status
        status_bar._poll_once()
        assert "not running" in status_bar.mcp.cget("text")
        page = open_page(app)
        app.pump(lambda: str(taken) in page.port_problem_text, "the reason on the page")
        assert page.status_label.cget("text") == "Not running"
        assert page.free_port_button.winfo_manager() == "pack"   # no Start press needed
        app.shot(tmp_path, "settings-port-taken-at-start-light", app.window.settings_window)
        page.free_port_button.invoke()
        app.pump(lambda: app.service.status.running and not page.busy,
                 "the server on a free port")
    assert app.service.status.port != taken
    page.stop()
    app.pump(lambda: not app.service.status.running and not page.busy, "stop")
