"""The window keeps up with every change to what is selected: the inspector, the grid and the
sidebar show a restore, an undo, a redo and an AI client's changes at once (issue 27: after
Trash → Restore the inspector still said "· in the Trash")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.caller import Caller
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui
AGENT = Caller.mcp("Cursor", "auto")


def agent_call(app: App, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A command run by an AI client (the gateway's MCP caller), outside the window."""
    future = app.services.gateway.submit(name, args, AGENT)
    app.pump(future.done, name)
    envelope: dict[str, Any] = future.result()
    assert envelope["status"] == "ok", envelope
    return envelope["result"]  # type: ignore[no-any-return]


def stock(app: App, tmp_path: Path, count: int = 3) -> tuple[str, list[str]]:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", count))
    window = app.window
    return library_id, [window.pages.cell(i).key for i in range(count)]  # type: ignore[union-attr]


def inspect(app: App, key: str) -> None:
    window = app.window
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset is not None and window.inspector.asset["id"] == key,
             "the inspector on the asset")


def cell_title(app: App, key: str) -> str:
    index = app.window.pages.index_of(key)
    cell = app.window.pages.cell(index) if index is not None else None
    return cell.title if cell is not None else ""


def test_restore_from_the_trash_leaves_the_trash_view_and_its_inspector(
        app: App, tmp_path: Path) -> None:
    library_id, keys = stock(app, tmp_path)
    window = app.window
    app.gateway_call("asset.trash", {"libraryId": library_id, "assetIds": keys[:1]})
    window.sidebar.select("trash")
    app.pump(lambda: window.pages.known and window.pages.count() == 1, "the Trash")
    inspect(app, keys[0])
    assert "in the Trash" in window.inspector.subtitle.cget("text")
    window.inspector.restore_button.invoke()
    app.pump(lambda: window.pages.known and window.pages.count() == 0, "the Trash emptied")
    app.pump(lambda: window.inspector.asset is None, "the inspector let go of it")
    assert "in the Trash" not in window.inspector.subtitle.cget("text")
    app.pump(lambda: window.sidebar.tree.set("trash", "count") == "", "the Trash's count")
    window.sidebar.select("all")
    app.pump(lambda: window.pages.known and window.pages.count() == 3, "back in All assets")
    inspect(app, keys[0])
    assert "in the Trash" not in window.inspector.subtitle.cget("text")


def test_undo_and_redo_show_in_the_inspector_and_the_grid(app: App, tmp_path: Path) -> None:
    library_id, keys = stock(app, tmp_path)
    window = app.window
    inspect(app, keys[0])
    before = window.inspector.name_var.get()
    window.inspector.name_var.set("hero pose")
    window.inspector._commit_name()
    app.pump(lambda: window.inspector.asset["name"] == "hero pose", "the rename")  # type: ignore[index]
    window.actions.undo()
    app.pump(lambda: window.inspector.asset["name"] == before, "the undone name")  # type: ignore[index]
    assert window.inspector.name_var.get() == before
    assert window.inspector.title.cget("text") == before
    app.pump(lambda: cell_title(app, keys[0]) == before, "the grid's old name")
    window.actions.redo()
    app.pump(lambda: window.inspector.asset["name"] == "hero pose", "the redone name")  # type: ignore[index]
    assert window.inspector.name_var.get() == "hero pose"
    app.pump(lambda: cell_title(app, keys[0]) == "hero pose", "the grid's new name")
    window.actions.undo()
    app.pump(lambda: window.inspector.name_var.get() == before, "undone again")


def test_an_agents_changes_to_the_selected_asset_show_at_once(app: App,
                                                              tmp_path: Path) -> None:
    library_id, keys = stock(app, tmp_path)
    window = app.window
    inspect(app, keys[1])
    agent_call(app, "asset.tag", {"libraryId": library_id, "assetIds": [keys[1]],
                                  "tags": ["storm"]})
    agent_call(app, "asset.update", {"libraryId": library_id, "assetId": keys[1],
                                     "rating": 4, "notes": "from the agent"})
    app.pump(lambda: window.inspector.tags.chip_names() == ["storm"], "the agent's tag")
    app.pump(lambda: window.inspector.rating.value == 4, "the agent's rating")
    assert window.inspector.notes.get("1.0", "end-1c") == "from the agent"
    app.pump(lambda: window.sidebar.tree.exists("tag:storm") and
             window.sidebar.tree.set("tag:storm", "count") == "1", "the tag in the sidebar")
    index = window.pages.index_of(keys[1])
    app.pump(lambda: window.pages.cell(index).stars == 4, "the stars in the grid")  # type: ignore[arg-type, union-attr]

    agent_call(app, "asset.trash", {"libraryId": library_id, "assetIds": [keys[1]]})
    app.pump(lambda: window.inspector.asset is None, "the trashed asset left the inspector")
    app.pump(lambda: window.pages.known and window.pages.count() == 2, "left the grid")
    app.pump(lambda: window.sidebar.tree.set("trash", "count") == "1", "the Trash's count")
    agent_call(app, "history.undo", {"libraryId": library_id})
    app.pump(lambda: window.pages.known and window.pages.count() == 3, "back after the undo")
    inspect(app, keys[1])
    assert "in the Trash" not in window.inspector.subtitle.cget("text")
    assert window.inspector.tags.chip_names() == ["storm"]
