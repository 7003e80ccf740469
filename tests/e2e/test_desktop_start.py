"""The desktop app as a person starts it: `serpent-tk` with a display, twice."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from tests.conftest import serpent_command
from tests.waiting import wait_until

pytestmark = pytest.mark.gui


def log_text() -> str:
    path = app_dirs().log / "serpent.log"
    return path.read_text() if path.exists() else ""


def use_a_free_mcp_port() -> None:
    """The app's MCP server must never take (or find taken) the default port 47615."""
    from serpent_tk.mcp.http.listener import free_port
    from serpent_tk.settings import SettingsStore

    store = SettingsStore(app_dirs().ensure().settings_file)
    store.update(lambda s: setattr(s.mcp, "port", free_port()))


def test_app_opens_a_window_and_a_second_start_wakes_it(display: str, tmp_path: Path) -> None:
    use_a_free_mcp_port()
    output = (tmp_path / "first.out").open("w")
    first = subprocess.Popen(serpent_command(), stdout=output, stderr=output)
    try:
        wait_until(lambda: "window ready" in log_text() or first.poll() is not None,
                   "the window to be ready (or the app to end)", 30, interval=0.1)
        assert first.poll() is None, (tmp_path / "first.out").read_text()
        second = subprocess.run(serpent_command(), capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert "brought to the front" in second.stderr
        first.send_signal(signal.SIGTERM)
        assert first.wait(20) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        output.close()
    assert "Serpent stopped" in log_text()
    assert not app_dirs().instance_info.exists()


def test_without_a_display_the_app_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    result = subprocess.run(serpent_command(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "needs a display" in result.stderr


def test_the_window_accepts_mcp_only_once_the_library_it_reopens_is_open(
        display: str, tmp_path: Path) -> None:
    from serpent_tk.credentials import CredentialStore
    from tests.mcp.test_cli import first_answer_after_publishing

    use_a_free_mcp_port()
    dirs = app_dirs()
    token = CredentialStore(dirs.credentials_file).create("Agent")[1]
    for start in ("creates My Library", "reopens it"):
        output = (tmp_path / f"{start}.out").open("w")
        app = subprocess.Popen(serpent_command(), stdout=output, stderr=output)
        try:
            assert first_answer_after_publishing(token) == ["My Library"], start
            app.send_signal(signal.SIGTERM)
            assert app.wait(30) == 0
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
            output.close()
