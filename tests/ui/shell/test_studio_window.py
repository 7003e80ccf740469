"""A studio library in the window (docs/studio.md): made from the New library dialog with
its PostgreSQL address, and the banner over the grid while its database server is away,
gone once it is back, at start-up too. Real Tk under Xvfb, the real gateway and worker, a
real PostgreSQL (tests/postgres: a server of this test's own, since it is stopped)."""

from __future__ import annotations

import contextlib
import json
import tkinter as tk
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.postgres import PostgresServer
from tests.ui.browser.test_live_updates import start_mcp
from tests.ui.conftest import App, make_images, mcp_call

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


def test_at_start_up_a_studio_library_whose_server_is_down_is_shown_with_the_banner(
        app: App, tmp_path: Path) -> None:
    """The library remembered from last time is a studio library and its server is down:
    the window shows it all the same (not the default library instead), with the banner;
    once the server is back the banner goes, the grid fills, and the window's and an AI
    client's calls work without opening it again."""
    server = PostgresServer.start()  # its own: this test stops it
    down = False
    try:
        shared = tmp_path / "shared drive"
        shared.mkdir()
        made = app.gateway_call("library.create", {
            "selectedParentPath": str(shared), "name": "Team refs",
            "database": server.new_database("startup")})
        library_id = made["libraryId"]
        app.gateway_call("file.import", {"libraryId": library_id, "sourcePaths": [
            str(p) for p in make_images(tmp_path / "refs", 2)]})
        app.gateway_call("library.close", {"libraryId": library_id})
        app.window.session.settings.last_library = Path(made["path"])  # as at the last quit

        server.outage()
        down = True
        window = app.window
        window.start()
        app.pump(lambda: window.session.library_id == library_id, "the studio library shown")
        app.pump(lambda: window.database_banner.shown == AWAY, "the banner at start-up")
        assert (window.session.current or {}).get("name") == "Team refs"
        app.shot(tmp_path, "studio-database-away-at-start-up")
        url, token = start_mcp(app)
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(mcp_call, url, token, "serpent_folder_list",
                                 {"libraryId": library_id})
            app.pump(future.done, "the MCP call while the server is down")
        assert future.result()["status"] == "error"
        assert future.result()["error"]["code"] == "DATABASE_UNAVAILABLE"
        assert future.result()["error"]["retryable"] is True

        server.back()
        down = False
        app.pump(lambda: window.database_banner.shown == "", "the banner gone")
        app.pump(lambda: window.pages.known and window.pages.count() == 2, "the grid filled")
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(mcp_call, url, token, "serpent_folder_create",
                                 {"libraryId": library_id, "name": "Back"})
            app.pump(future.done, "the MCP call once the server is back")
        assert future.result()["status"] == "ok", future.result()
        assert [f["name"] for f in app.gateway_call("folder.list", {
            "libraryId": library_id})["items"]] == ["Back"]
    finally:
        if down:
            server.back()
        server.stop()


def test_a_local_library_moved_to_a_studio_server_from_the_library_menu(
        app: App, tmp_path: Path, postgres_database: str) -> None:
    library_id = app.open_default()
    window = app.window
    root = Path(str(window.session.current["path"]))  # type: ignore[index]
    folder = app.gateway_call("folder.create", {"libraryId": library_id, "name": "Kept"})
    menu = window.menubar.refresh("Library")  # Library menu → Move to a studio server…
    entry = next(i for i in range(int(menu.index("end") or 0) + 1)
                 if menu.type(i) == "command"
                 and menu.entrycget(i, "label") == "Move to a studio server…")
    assert str(menu.entrycget(entry, "state")) != "disabled"
    menu.invoke(entry)
    app.pump(lambda: _dialog(app) is not None, "the Move to a studio server dialog")
    dialog = _dialog(app)
    assert dialog is not None and str(root) in _texts(dialog)

    dialog.database.set("postgresql://serpent:secret@studio-server/refs")  # refused
    dialog.confirm()
    app.pump(lambda: "password" in str(dialog.error.cget("text")), "the password refusal")
    assert dialog.step == "ask" and (root / "library.sqlite").is_file()

    dialog.database.set(postgres_database)
    dialog.confirm()  # the plan: what will happen, then the second press moves
    app.pump(lambda: dialog.step == "confirm", "what the move will do")
    assert ".before-studio" in str(dialog.message.cget("text"))
    app.shot(tmp_path, "move-to-studio-dialog", dialog)
    dialog.confirm()
    app.pump(lambda: dialog.step == "done", "the move done", timeout=120)
    assert "studio library now" in str(dialog.message.cget("text"))
    app.shot(tmp_path, "move-to-studio-done", dialog)
    studio = json.loads((root / "studio.json").read_text())
    assert studio["libraryId"] == library_id == window.session.library_id
    assert (root / ".before-studio" / "library.sqlite").is_file()
    dialog.confirm()  # Close
    assert dialog.closed

    # the window goes on with the studio library: its folder there, a change saved there
    made = app.gateway_call("folder.create", {"libraryId": library_id, "name": "After"})
    app.pump(lambda: window.sidebar.tree.exists(f"folder:{made['id']}"), "the new folder")
    assert window.sidebar.tree.exists(f"folder:{folder['id']}")
    assert not (root / "library.sqlite").exists()


def _dialog(app: App) -> Any:
    from serpent_tk.ui.actions.studio_move import MoveToStudioDialog

    found = [w for w in app.root.winfo_children() if isinstance(w, MoveToStudioDialog)
             and not w.closed]
    return found[-1] if found else None


def _texts(widget: Any) -> str:
    texts, stack = [], [widget]
    while stack:
        item = stack.pop()
        stack.extend(item.winfo_children())
        with contextlib.suppress(tk.TclError):  # a widget without text
            texts.append(str(item.cget("text")))
    return " ".join(texts)
