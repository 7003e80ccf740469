"""Changes made by an AI client over MCP show up in the open window by themselves, and the
person can undo them from the window."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.ui.conftest import App, make_images, mcp_call

pytestmark = pytest.mark.gui


def start_mcp(app: App, name: str = "Claude") -> tuple[str, str]:
    status = app.window.services.mcp.start(app.window.services.settings.mcp.port)  # type: ignore[union-attr]
    assert status.running
    token = app.credentials.create(name, "auto", "everything")[1]
    return str(status.url), token


def test_an_agents_rename_appears_in_the_grid_within_a_second_with_a_toast(
        app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    url, token = start_mcp(app)
    grid = app.window.grid
    key = grid.source.cell(0).key  # type: ignore[union-attr]
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(mcp_call, url, token, "serpent_asset_update",
                             {"libraryId": library_id, "assetId": key, "name": "hero pose"})
        app.pump(future.done, "the MCP call")
        answered = time.monotonic()
        assert future.result()["status"] == "ok", future.result()

    def shown() -> bool:
        index = grid.source.index_of(key)
        cell = grid.source.cell(index) if index is not None else None
        painted = [c for c in grid._cells.values() if c.shown and c.shown[0] == key]
        return bool(cell and cell.title == "hero pose" and painted and
                    painted[0].shown[1] == cell)

    app.pump(shown, "the new name in the grid", timeout=5)
    assert time.monotonic() - answered < 1.0
    app.pump(lambda: any("Claude via MCP edited 1 asset" in t
                         for t in app.window.toasts.texts()), "the agent toast", timeout=1)


def test_undo_in_the_window_reverts_an_agents_change(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    url, token = start_mcp(app)
    window = app.window
    key = window.grid.source.cell(0).key  # type: ignore[union-attr]
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None, "the inspector")
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(mcp_call, url, token, "serpent_asset_tag",
                             {"libraryId": library_id, "assetIds": [key], "tags": ["moodboard"]})
        app.pump(future.done, "the MCP call")
        assert future.result()["status"] == "ok", future.result()
    app.pump(lambda: window.inspector.tags.chip_names() == ["moodboard"],
             "the agent's tag in the inspector")
    app.pump(lambda: (window.inspector.asset or {}).get("modifiedBy", {}).get("label")
             == "Claude via MCP", "the audit label")
    assert "Changed by Claude via MCP" in window.inspector.audit.cget("text")

    window.undo_button.invoke()
    app.pump(lambda: window.inspector.tags.chip_names() == [], "the tag gone after undo")
    stored = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [key]})
    assert stored["items"][0]["tags"] == []
    assert any("Undid" in t and "Claude via MCP" in t for t in window.toasts.texts())


def test_an_agents_notify_and_library_rename_raise_toasts(app: App) -> None:
    library_id = app.open_default()
    url, token = start_mcp(app, "Cursor")
    with ThreadPoolExecutor(1) as pool:
        notify = pool.submit(mcp_call, url, token, "serpent_ui_notify",
                             {"text": "Done sorting your sketches", "level": "info"})
        app.pump(notify.done, "ui.notify")
        rename = pool.submit(mcp_call, url, token, "serpent_library_rename",
                             {"libraryId": library_id, "name": "Sketchbook"})
        app.pump(rename.done, "library.rename")
    assert rename.result()["status"] == "ok", rename.result()
    app.pump(lambda: any("Done sorting your sketches" in t for t in app.window.toasts.texts()),
             "the notify toast")
    app.pump(lambda: any("Cursor via MCP renamed" in t for t in app.window.toasts.texts()),
             "the rename toast")
    app.pump(lambda: app.root.title() == "Sketchbook — Serpent", "the new title")


def test_an_agent_can_point_at_assets_and_close_the_library(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    url, token = start_mcp(app, "Gemini")
    window = app.window
    key = window.grid.source.cell(2).key  # type: ignore[union-attr]
    with ThreadPoolExecutor(1) as pool:
        shown = pool.submit(mcp_call, url, token, "serpent_library_show_in_desktop",
                            {"libraryId": library_id, "assetIds": [key]})
        app.pump(shown.done, "show-in-desktop")
        assert shown.result()["status"] == "ok", shown.result()
        app.pump(lambda: window.grid.selected_keys() == [key], "the asset selected")
        closed = pool.submit(mcp_call, url, token, "serpent_library_close",
                             {"libraryId": library_id})
        app.pump(closed.done, "library.close")
    assert closed.result()["status"] == "ok", closed.result()
    app.pump(lambda: window.empty.kind == "closed", "the closed-library panel")
    app.pump(lambda: any("Gemini via MCP closed" in t for t in window.toasts.texts()),
             "the close toast")
    window.empty.button.invoke()                      # "Open it again"
    app.pump(lambda: window.empty.kind == "" and window.pages.count() == 3, "reopened")
