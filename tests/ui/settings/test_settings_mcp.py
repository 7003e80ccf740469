"""Settings → MCP with the real MCP service, credential store and client configs."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
from pathlib import Path

import pytest

from serpent_tk.mcp.client_configs import CLIENTS
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.settings.settings_mcp import McpSettingsPage
from serpent_tk.ui.shell.dialogs import ConfirmDialog
from tests.conftest import serpent_command
from tests.ui.conftest import App, free_port

pytestmark = pytest.mark.gui


def open_page(app: App) -> McpSettingsPage:
    app.window.open_settings("mcp")
    window = app.window.settings_window
    assert window is not None and window.mcp is not None
    app.settle(0.1)
    return window.mcp


def saved_settings() -> object:
    return SettingsStore(app_dirs().settings_file).load().settings


def test_start_stop_and_the_switches(app: App) -> None:
    page = open_page(app)
    assert not app.service.status.running
    page.start_button.invoke()
    app.pump(lambda: app.service.status.running and not page.busy, "the server to start")
    port = app.service.status.port
    app.pump(lambda: f"127.0.0.1:{port}" in page.status_label.cget("text"), "the status line")
    assert "0 clients connected" in page.status_detail.cget("text")
    app.screenshot("settings-mcp", app.window.settings_window)

    page.stop_button.invoke()
    app.pump(lambda: not app.service.status.running and not page.busy, "the server to stop")
    app.pump(lambda: page.status_label.cget("text") == "Stopped", "the stopped status")

    page.auto_switch.invoke()                       # on → off
    app.pump(lambda: saved_settings().mcp.auto_start is False, "auto start saved")  # type: ignore[attr-defined]
    page.enabled_switch.invoke()                    # on → off: cannot start
    app.pump(lambda: saved_settings().mcp.enabled is False, "enabled saved")  # type: ignore[attr-defined]
    assert page.start_button.instate(["disabled"])
    page.enabled_switch.invoke()                    # back on: starts the service
    app.pump(lambda: app.service.status.running and not page.busy,
             "the server to start when enabled")
    page.stop_button.invoke()
    app.pump(lambda: not app.service.status.running and not page.busy, "stop")


def test_port_in_use_is_explained_with_a_way_out(app: App) -> None:
    page = open_page(app)
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(1)
        taken = squatter.getsockname()[1]
        page.port_var.set("80")
        page.apply_port()
        assert "1024" in page.port_problem_text          # validated before anything runs
        page.port_var.set(str(taken))
        page.apply_port()
        app.pump(lambda: str(taken) in page.port_problem_text and not page.busy,
                 "the port-in-use message")
        assert "already in use" in page.port_problem_text
        assert page.free_port_button.winfo_manager() == "pack"
        app.screenshot("settings-mcp-port-in-use", app.window.settings_window)
        page.free_port_button.invoke()
        app.pump(lambda: app.service.status.running and not page.busy,
                 "the server on a free port")
    assert app.service.status.port != taken
    assert page.port_problem_text == ""
    app.pump(lambda: saved_settings().mcp.port == app.service.status.port,  # type: ignore[attr-defined]
             "the free port saved (saved in the background, beside the restart)")
    page.stop()
    app.pump(lambda: not app.service.status.running and not page.busy, "stop")


def test_full_access_needs_the_red_confirmation_and_revoke_removes(app: App) -> None:
    app.credentials.create("Claude Desktop", "auto")
    page = open_page(app)
    app.pump(lambda: page.creds.tree.exists("Claude Desktop"), "the credential row")
    page.creds.tree.selection_set("Claude Desktop")
    app.settle(0.05)

    page.creds.set_mode("Claude Desktop", "full-access")
    dialog = page.creds.dialog
    assert isinstance(dialog, ConfirmDialog) and dialog.danger
    assert "Full Access" in dialog.heading.cget("text")
    app.screenshot("settings-full-access-confirmation", dialog)
    dialog.cancel()
    app.settle(0.2)
    assert app.credentials.get("Claude Desktop").mode == "auto"  # type: ignore[union-attr]

    page.creds.set_mode("Claude Desktop", "full-access")
    assert isinstance(page.creds.dialog, ConfirmDialog)
    page.creds.dialog.confirm()
    app.pump(lambda: app.credentials.get("Claude Desktop").mode == "full-access",  # type: ignore[union-attr]
             "full access stored")
    app.pump(lambda: page.creds.tree.set("Claude Desktop", "mode") == "Full Access",
             "the mode column")

    page.creds.set_mode("Claude Desktop", "read-only")     # lowering powers needs no warning
    app.pump(lambda: app.credentials.get("Claude Desktop").mode == "read-only",  # type: ignore[union-attr]
             "read-only stored")

    page.creds.reveal_button.invoke()
    token = app.credentials.token_for("Claude Desktop")
    app.pump(lambda: page.creds.token_var.get() == token, "the revealed token")
    page.creds.hide_token()

    page.creds.ask_revoke()
    assert isinstance(page.creds.dialog, ConfirmDialog)
    page.creds.dialog.confirm()
    app.pump(lambda: app.credentials.get("Claude Desktop") is None, "the credential revoked")
    app.pump(lambda: not page.creds.tree.exists("Claude Desktop"), "the row gone")


def test_the_toolset_is_chosen_beside_the_mode(app: App) -> None:
    app.credentials.create("Cursor", "auto")  # a new credential: the essentials
    page = open_page(app)
    app.pump(lambda: page.creds.tree.exists("Cursor"), "the credential row")
    assert page.creds.tree.set("Cursor", "toolset") == "Essentials"
    page.creds.tree.selection_set("Cursor")
    app.settle(0.05)
    assert page.creds.toolset_button.cget("text") == "Tools: Essentials"

    page.creds.set_toolset("Cursor", "everything")
    app.pump(lambda: app.credentials.get("Cursor").toolset == "everything",  # type: ignore[union-attr]
             "everything stored")
    app.pump(lambda: page.creds.tree.set("Cursor", "toolset") == "Everything", "the column")
    app.pump(lambda: "told at once" in page.creds.credential_message.cget("text"), "the note")
    assert app.credentials.get("Cursor").mode == "auto"  # type: ignore[union-attr]


def test_tokens_stay_hidden_until_revealed(app: App) -> None:
    _, token = app.credentials.create("Cursor", "auto")
    page = open_page(app)
    app.pump(lambda: page.creds.tree.exists("Cursor"), "the credential row")
    app.settle(0.1)

    def every_text(widget: object) -> list[str]:
        found = []
        for child in widget.winfo_children():  # type: ignore[attr-defined]
            for option in ("text", "values"):
                with contextlib.suppress(Exception):
                    found.append(str(child.cget(option)))
            if hasattr(child, "get") and child.winfo_class() in ("TEntry", "Entry"):
                found.append(str(child.get()))
            found.extend(every_text(child))
        return found

    assert not any(token in text for text in every_text(page))


def test_copied_config_is_exactly_what_the_cli_prints(app: App) -> None:
    app.credentials.create("Shared", "auto")
    printing = {client_id: subprocess.Popen(   # the CLI in parallel, one process per client
        serpent_command("mcp-config", "--client", client_id, "--credential", "Shared"),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) for client_id in CLIENTS}
    page = open_page(app)
    app.pump(lambda: "Shared" in page.connect._credential_names(), "the credential list")
    copied: dict[str, str] = {}
    for client_id in CLIENTS:
        page.connect.select_client(client_id)
        page.connect.credential_var.set("Shared")
        app.root.clipboard_clear()
        page.connect.copy_button.invoke()
        app.pump(lambda: "Copied" in page.connect.connect_result.cget("text"),
                 f"{client_id} copied")
        copied[client_id] = app.root.clipboard_get()
        page.connect.connect_result.configure(text="")
    for client_id, process in printing.items():
        printed, _ = process.communicate(timeout=60)
        assert process.returncode == 0, client_id
        assert copied[client_id] == printed, client_id
        assert "localhost" not in printed
        assert "127.0.0.1" in printed or client_id == "claude-desktop"  # stdio via the bridge


def test_copy_without_a_credential_makes_one_named_after_the_client(app: App) -> None:
    page = open_page(app)
    page.connect.select_client("cursor")
    page.connect.copy_button.invoke()
    app.pump(lambda: "Copied" in page.connect.connect_result.cget("text"), "copied")
    assert app.credentials.get("Cursor") is not None
    token = app.credentials.token_for("Cursor")
    assert token in app.root.clipboard_get()
    log = app_dirs().log / "serpent.log"
    assert not log.exists() or token not in log.read_text(encoding="utf-8")


def test_install_writes_the_clients_config_file(app: App) -> None:
    page = open_page(app)
    page.connect.select_client("cursor")
    target = page.connect.client().install_path  # type: ignore[union-attr]
    assert target is not None and target.endswith("mcp.json")
    page.connect.install_button.invoke()
    app.pump(lambda: "added to" in page.connect.connect_result.cget("text"), "installed")
    config = json.loads(Path(target).read_text())
    assert config["mcpServers"]["serpent"]["url"].startswith("http://127.0.0.1:")


def test_install_into_claude_code_writes_the_user_scope_only(app: App) -> None:
    """The token goes into ~/.claude.json's user scope, never a project's .mcp.json, and the
    page says so."""
    page = open_page(app)
    page.connect.select_client("claude-code")
    target = Path(page.connect.client().install_path)  # type: ignore[union-attr,arg-type]
    assert target == Path.home() / ".claude.json"
    hint = page.connect.paste_hint.cget("text")
    assert "~/.claude.json, your user scope" in hint and "Never into a project's .mcp.json" in hint
    page.connect.install_button.invoke()
    app.pump(lambda: "added to" in page.connect.connect_result.cget("text"), "installed")
    token = app.credentials.token_for("Claude Code")
    config = json.loads(target.read_text())
    assert config["mcpServers"]["serpent"]["headers"] == {"Authorization": f"Bearer {token}"}
    assert not list(Path.cwd().glob(".mcp.json")) and not (Path.home() / ".mcp.json").exists()


def test_free_port_is_free() -> None:
    port = free_port()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))


def test_settings_export_and_import_with_a_missing_library(app: App, tmp_path: Path) -> None:
    app.open_default()
    app.window.open_settings("general")
    general = app.window.settings_window.general  # type: ignore[union-attr]
    exported = tmp_path / "serpent-settings.json"
    general.export_to(exported)
    app.pump(lambda: "Exported" in general.result.cget("text"), "the export")
    data = json.loads(exported.read_text())
    gone = "~/Elsewhere/Old Refs.serpent"
    data["settings"]["recent_libraries"].insert(0, {"path": gone, "name": "Old Refs"})
    exported.write_text(json.dumps(data))

    general.import_from(exported)
    app.pump(lambda: "Imported" in general.result.cget("text"), "the import")
    app.pump(lambda: any(m.name == "Old Refs" for m in general.missing), "the missing library")
    rows = [w for w in general.missing_frame.winfo_children()]
    labels = [c.cget("text") for row in rows for c in row.winfo_children()]
    assert "Old Refs — missing" in labels and "Locate…" in labels
    app.screenshot("settings-general", app.window.settings_window)

    moved = app.gateway_call("library.create", {"selectedParentPath": str(tmp_path),
                                                "name": "Old Refs"})
    entry = next(m for m in general.missing if m.name == "Old Refs")
    general.locate(entry, moved["path"])
    app.pump(lambda: "found at" in general.result.cget("text"), "the library located")
    assert not any(m.name == "Old Refs" for m in general.missing)
