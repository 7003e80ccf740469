"""Toasts about undoable changes carry Undo (the person's and an AI client's), which undoes
only while that change is still the latest; an AI client's toast merges only changes of the
same kind and names each kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.events import ChangeMade
from serpent_tk.ui.activity.agent_activity import AgentActivity
from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def toast_index(app: App, start: str) -> int:
    return next(i for i, t in enumerate(app.window.toasts.texts()) if t.startswith(start))


def test_the_trash_toast_undoes_the_trash(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    window.toasts.clear()
    window.actions.trash([key])
    app.pump(lambda: any(t.startswith("Moved 1 asset to the Trash") for t in
                         window.toasts.texts()), "the trash toast")
    index = toast_index(app, "Moved 1 asset to the Trash")
    assert window.toasts.actions()[index] == "Undo"
    app.pump(lambda: window.pages.count() == 2, "the asset gone from the grid")
    app.shot(tmp_path, "toast-undo-light")
    window.toasts.press(index)
    app.pump(lambda: window.pages.count() == 3, "the asset back after the toast's Undo")
    found = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [key]})
    assert not found["items"][0].get("trashed")


def test_undo_on_an_old_toast_does_not_undo_something_else(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    first, second = (window.pages.cell(i).key for i in (0, 1))  # type: ignore[union-attr]
    window.toasts.clear()
    window.actions.trash([first])
    app.pump(lambda: any(t.startswith("Moved 1 asset") for t in window.toasts.texts()),
             "the trash toast")
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": [second],
                                   "tags": ["later"]})
    window.toasts.press(toast_index(app, "Moved 1 asset"))
    app.pump(lambda: any("not the latest" in t for t in window.toasts.texts()),
             "the explanation")
    tagged = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [second]})
    assert tagged["items"][0]["tags"] == ["later"]          # the later change is untouched
    trashed = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [first]})
    assert trashed["items"][0]["trashed"]


def change(command: str, text: str, sequence: int) -> ChangeMade:
    return ChangeMade(library_id="lib", command=command, actor_label="Cursor via MCP",
                      source="mcp", change_sequence=sequence, text=text, undoable=True)


def test_an_agents_toast_names_each_kind_of_change() -> None:
    shown: list[tuple[str, dict[str, Any]]] = []
    later: list[Any] = []
    undone: list[int | None] = []
    activity = AgentActivity(lambda text, level, **options: shown.append((text, options)),
                             undone.append, lambda ms, fn: later.append(fn))
    activity.change_made(change("asset.update", "edited 1 asset", 10))
    assert shown[-1][0] == "Cursor via MCP edited 1 asset."
    activity.change_made(change("asset.tag", "tagged 2 assets with “sky”", 11))
    activity.change_made(change("asset.tag", "tagged 2 assets with “dusk”", 12))
    for flush in later:                          # the updates held back a moment
        flush()
    text, options = shown[-1]
    assert text == ("Cursor via MCP edited 1 asset and tagged 2 assets with “dusk” "
                    "(and 1 more like it).")
    assert "more change" not in text
    label, undo = options["action"]
    assert label == "Undo the last one"
    undo()
    assert undone == [12]
    assert options["key"] == "agent:Cursor via MCP"


def test_receipts_with_their_own_words_merge_by_kind_too() -> None:
    """Gateway receipts that carry their words ("tagged 3 assets with “sky”") merge the
    same way: one kind each, its latest words and how many more like it."""
    from types import SimpleNamespace

    shown: list[tuple[str, dict[str, Any]]] = []
    activity = AgentActivity(lambda text, level, **options: shown.append((text, options)),
                             lambda sequence: None, lambda ms, fn: fn())

    def receipt(command: str, text: str, sequence: int, undoable: bool = True,
                lifecycle: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(library_id="lib", command=command, actor_label="Claude via MCP",
                               source="mcp", change_sequence=sequence, text=text,
                               undoable=undoable, lifecycle=lifecycle)

    activity.change_made(receipt("folder.create", "created the folder “Skies”", 1))
    activity.change_made(receipt("asset.tag", "tagged 3 assets with “sky”", 2))
    activity.change_made(receipt("asset.tag", "tagged 1 asset with “dusk”", 3))
    activity.change_made(receipt("library.rename", "renamed the library", 4,
                                 lifecycle="renamed"))          # its own toast elsewhere
    text, options = shown[-1]
    assert text == ("Claude via MCP created the folder “Skies” and tagged 1 asset with "
                    "“dusk” (and 1 more like it).")
    assert options["action"][0] == "Undo the last one"
    activity.change_made(receipt("history.undo", "undid a change", 5, undoable=False))
    assert shown[-1][1]["action"] is None


def test_an_undo_takes_away_the_old_toasts_undo(app: App, tmp_path: Path) -> None:
    """Issue 27: after Ctrl+Z the old "Moved… Undo" toast stayed, its Undo now meaning
    something else."""
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    window = app.window
    key = window.pages.cell(0).key  # type: ignore[union-attr]
    window.toasts.clear()
    window.actions.trash([key])
    app.pump(lambda: any(t.startswith("Moved 1 asset") for t in window.toasts.texts()),
             "the trash toast")
    app.pump(lambda: window.pages.count() == 1, "the asset gone from the grid")
    window.actions.undo()
    app.pump(lambda: any(t.startswith("Undid") for t in window.toasts.texts()),
             "the undo's toast")
    assert not any(t.startswith("Moved 1 asset") for t in window.toasts.texts())
    assert all(action is None or action == "" for action in window.toasts.actions())


def test_an_agents_merged_toast_always_names_its_trashes_and_moves() -> None:
    """Issue 27: "…and 5 other kinds of change" hid a trash and a move among many kinds."""
    from types import SimpleNamespace

    shown: list[str] = []
    moving = {"asset.trash", "asset.move"}
    activity = AgentActivity(lambda text, level, **options: shown.append(text),
                             lambda sequence: None, lambda ms, fn: fn(),
                             lambda command: SimpleNamespace(recount=command in moving))
    words = [("asset.tag", "tagged 2 assets"), ("asset.rate", "rated 1 asset"),
             ("folder.create", "created the folder “A”"), ("asset.note", "noted 1 asset"),
             ("asset.trash", "moved 3 assets to the Trash"),
             ("collection.create", "created the collection “B”"),
             ("asset.move", "moved 4 assets to the folder “A”"),
             ("asset.rename", "renamed 1 asset")]
    for sequence, (command, text) in enumerate(words):
        activity.change_made(change(command, text, sequence))
    assert "moved 3 assets to the Trash" in shown[-1]
    assert "moved 4 assets to the folder “A”" in shown[-1]
    assert "other kinds of change" in shown[-1]
