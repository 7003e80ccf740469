"""Settings → General: the person's name, kept, and what the person's AI clients change is
theirs in the history ("Changed by Anna's Claude via MCP"): how a studio library's team
tells whose agent did what (docs/studio.md). Real window, gateway, worker and MCP."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.language import humanize
from tests.ui.browser.test_live_updates import start_mcp
from tests.ui.conftest import App, mcp_call

pytestmark = pytest.mark.gui


def test_the_persons_name_is_kept_and_names_their_clients_changes(app: App) -> None:
    library_id = app.open_default()
    window = app.window
    window.open_settings("general")
    general = window.settings_window.general  # type: ignore[union-attr]
    general.person_var.set("  Anna ")
    general.person_named()
    app.pump(lambda: SettingsStore(app_dirs().settings_file).load().settings.ui.person_name
             == "Anna", "the name saved")
    url, token = start_mcp(app, "Claude")
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(mcp_call, url, token, "serpent_folder_create",
                             {"libraryId": library_id, "name": "Anna's refs"})
        app.pump(future.done, "the MCP call")
        assert future.result()["status"] == "ok", future.result()
    mine = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Mine"})
    assert mine["name"] == "Mine"
    entries = app.gateway_call("history.list", {"libraryId": library_id})["items"]
    labels = [entry["actor"]["label"] for entry in entries[:2]]
    assert labels == ["You", "Anna's Claude via MCP"]
    assert humanize.changed_by(False, entries[1]["actor"], None) == \
        "Changed by Anna's Claude via MCP"
    window.settings_window.destroy()  # type: ignore[union-attr]
