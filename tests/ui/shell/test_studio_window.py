"""A studio library in the window (docs/studio.md): made from the New library dialog with
its PostgreSQL address, and the banner over the grid while its database server is away,
gone once it is back. Real Tk under Xvfb, the real gateway and worker, a real PostgreSQL
(tests/postgres: a server of this test's own, since it is stopped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.postgres import PostgresServer
from tests.ui.conftest import App

pytestmark = pytest.mark.gui

AWAY = "The studio database cannot be reached."


def test_a_studio_library_made_in_the_window_and_the_banner_while_its_server_is_away(
        app: App, tmp_path: Path) -> None:
    server = PostgresServer.start()  # its own: this test stops it
    try:
        uri = server.new_database("window")
        app.open_default()
        window = app.window
        shared = tmp_path / "shared drive"
        shared.mkdir()
        window.switcher.ask_name(str(shared))
        dialog = window.switcher.dialog
        assert dialog is not None and window.switcher.database is not None
        dialog.value.set("Team refs")  # type: ignore[attr-defined]
        window.switcher.database.set(uri)
        app.shot(tmp_path, "new-studio-library-dialog", dialog)
        dialog.confirm()  # type: ignore[attr-defined]
        app.pump(lambda: (window.session.current or {}).get("name") == "Team refs",
                 "the studio library shown")
        studio = json.loads((shared / "Team refs.serpent" / "studio.json").read_text())
        assert studio["database"] == uri
        assert studio["libraryId"] == window.session.library_id
        assert not (shared / "Team refs.serpent" / "library.sqlite").exists()
        assert window.database_banner.shown == ""
        library_id = window.session.library_id
        app.gateway_call("folder.create", {"libraryId": library_id, "name": "Before"})
        app.pump(lambda: window.pages.known, "the studio library's first page")

        server.outage()
        app.pump(lambda: window.database_banner.shown == AWAY, "the banner")
        app.shot(tmp_path, "studio-database-away")
        server.back()
        app.pump(lambda: window.database_banner.shown == "", "the banner gone")
        folder = app.gateway_call("folder.create", {"libraryId": library_id,
                                                    "name": "After the outage"})
        assert folder["name"] == "After the outage"
    finally:
        server.stop()
