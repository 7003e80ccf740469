"""Undo/redo across sources, conflicts, and what permanent deletes leave alone."""

from __future__ import annotations

import pytest

from library.events import LibraryChanged
from library.protocol import CallMeta
from library.schemas import HistoryListOut, HistoryStepOut
from tests.library.factories import call, call_error, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library

AGENT = CallMeta(source="mcp", credential="claude", label="Claude via MCP")
PERSON = CallMeta(source="ui", label="You")


@pytest.fixture
def assets(host, library_id, sources):
    make_images(sources, 3)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False}, AGENT)
    return [item["assetId"] for item in result["items"]]


def get(host, library_id, asset_id):
    return call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0]


def test_undo_and_redo_each_kind_of_write(host, library_id, library_kind, assets, events):
    a, b, _ = assets
    call(host, library_id, "asset.update", {"assetId": a, "name": "New", "rating": 3}, AGENT)
    call(host, library_id, "asset.tag", {"assetIds": [a, b], "tags": ["sky"]}, AGENT)
    folder = call(host, library_id, "folder.create", {"name": "Box"}, AGENT)
    call(host, library_id, "asset.move", {"assetIds": [a], "folderId": folder["id"]}, AGENT)
    call(host, library_id, "library.rename", {"name": "Renamed"}, AGENT)

    history = HistoryListOut.model_validate(call(host, library_id, "history.list", {}, AGENT))
    assert [e.command for e in history.items] == ["library.rename", "asset.move",
                                                  "folder.create", "asset.tag",
                                                  "asset.update", "file.import"]
    assert history.can_undo and not history.can_redo
    assert history.items[-1].summary == "Imported 3 files"
    assert history.items[-1].actor.label == "Claude via MCP"

    # The person undoes what the agent did, one step at a time from the top (a local
    # library's undo is the library's); on a studio library undo is per caller: the agent's.
    undoer = PERSON if library_kind == "local" else AGENT
    step = HistoryStepOut.model_validate(call(host, library_id, "history.undo", {}, undoer))
    assert step.entry.command == "library.rename" and step.entry.undone
    assert call(host, library_id, "library.info")["name"] == "Test Library"
    call(host, library_id, "history.undo", {}, undoer)
    assert get(host, library_id, a)["folderIds"] == []
    call(host, library_id, "history.undo", {}, undoer)
    assert call(host, library_id, "folder.list")["items"] == []
    call(host, library_id, "history.undo", {}, undoer)
    assert get(host, library_id, a)["tags"] == [] and get(host, library_id, b)["tags"] == []
    assert call(host, library_id, "tag.list")["items"] == []
    call(host, library_id, "history.undo", {}, undoer)
    assert (get(host, library_id, a)["name"], get(host, library_id, a)["rating"]) == \
        ("image 0000", 0)

    listed = call(host, library_id, "history.list", {}, undoer)
    assert listed["canRedo"] and [e["undone"] for e in listed["items"]][:5] == [True] * 5

    # Redo brings them back in order, with the same ids.
    for _ in range(5):
        call(host, library_id, "history.redo", {}, undoer)
    after = get(host, library_id, a)
    assert (after["name"], after["rating"], after["tags"], after["folderIds"]) == \
        ("New", 3, ["sky"], [folder["id"]])
    assert call(host, library_id, "library.info")["name"] == "Renamed"
    assert call_error(host, library_id, "history.redo").code == "HISTORY_EMPTY"
    undo_events = [e for e in events.of(LibraryChanged) if e.command == "history.undo"]
    assert len(undo_events) == 5 and all("history" in e.kinds for e in undo_events)
    assert undo_events[0].actor.label == undoer.label


def test_undo_of_an_import_moves_the_assets_to_the_trash_and_redo_restores(host, library_id,
                                                                         assets):
    step = call(host, library_id, "history.undo", {}, AGENT)  # the import's own caller
    assert step["entry"]["command"] == "file.import"
    assert call(host, library_id, "asset.search")["total"] == 0
    assert call(host, library_id, "trash.list")["total"] == 3
    call(host, library_id, "history.redo", {}, AGENT)
    assert call(host, library_id, "asset.search")["total"] == 3
    assert call(host, library_id, "trash.list")["total"] == 0


def test_trash_undo_restores(host, library_id, assets):
    call(host, library_id, "asset.trash", {"assetIds": assets[:2]})
    assert call(host, library_id, "trash.list")["total"] == 2
    call(host, library_id, "history.undo")
    assert call(host, library_id, "trash.list")["total"] == 0
    assert all(not a["trashed"] for a in call(host, library_id, "asset.get",
                                               {"assetIds": assets})["items"])


def test_older_steps_stay_undoable_after_newer_ones_were_undone_and_redone(host, library_id,
                                                                           assets):
    a = assets[0]
    call(host, library_id, "asset.update", {"assetId": a, "rating": 4})
    call(host, library_id, "asset.tag", {"assetIds": [a], "tags": ["later"]})
    call(host, library_id, "history.undo")
    call(host, library_id, "history.redo")
    call(host, library_id, "history.undo")
    call(host, library_id, "history.undo")
    assert (get(host, library_id, a)["rating"], get(host, library_id, a)["tags"]) == (0, [])
    call(host, library_id, "history.redo")
    call(host, library_id, "history.redo")
    assert (get(host, library_id, a)["rating"], get(host, library_id, a)["tags"]) == \
        (4, ["later"])


def test_a_permanent_delete_is_a_barrier_undo_never_reaches_past(host, library_id, assets):
    """Issue 25: undo after an irreversible change must not take back an older, unrelated
    one (the tag of `a`): it refuses, naming the change that cannot be undone."""
    a, b, c = assets
    call(host, library_id, "asset.tag", {"assetIds": [a], "tags": ["keep"]})
    call(host, library_id, "asset.tag", {"assetIds": [b], "tags": ["doomed"]})
    plan = call(host, library_id, "asset.delete-permanently", {"assetIds": [b]}, plan=True)
    call(host, library_id, "asset.delete-permanently",
         {"assetIds": [b], "stateToken": plan["stateToken"]})
    listed = call(host, library_id, "history.list")
    history = listed["items"]
    assert [e["command"] for e in history] == ["asset.delete-permanently", "asset.tag",
                                               "asset.tag", "file.import"]
    assert [e["undoable"] for e in history] == [False, True, True, True]
    assert history[0]["summary"] == "Permanently deleted 1 asset"
    assert listed["canUndo"] is False
    sequence = call(host, library_id, "library.change-sequence")
    for _ in range(2):
        error = call_error(host, library_id, "history.undo")
        assert error.code == "HISTORY_IRREVERSIBLE"
        assert error.details["historyId"] == history[0]["id"]
        assert "Permanently deleted 1 asset" in error.message
    assert get(host, library_id, a)["tags"] == ["keep"]
    assert call(host, library_id, "library.change-sequence") == sequence
    # later changes are undone back to the barrier, and no further
    call(host, library_id, "asset.update", {"assetId": c, "rating": 3})
    assert call(host, library_id, "history.undo")["entry"]["command"] == "asset.update"
    assert call_error(host, library_id, "history.undo").code == "HISTORY_IRREVERSIBLE"
    assert get(host, library_id, c)["rating"] == 0


def test_deleting_nothing_leaves_no_barrier(host, library_id, assets):
    call(host, library_id, "asset.tag", {"assetIds": assets[:1], "tags": ["keep"]})
    plan = call(host, library_id, "trash.empty", {}, plan=True)
    assert plan["count"] == 0
    assert call(host, library_id, "trash.empty", {"stateToken": plan["stateToken"]}) == \
        {"deleted": 0, "freedBytes": 0}
    assert call(host, library_id, "history.undo")["entry"]["command"] == "asset.tag"


def test_undo_names_the_step_it_means_and_refuses_another(host, library_id, assets):
    a = assets[0]
    call(host, library_id, "asset.tag", {"assetIds": [a], "tags": ["mine"]})
    mine = call(host, library_id, "history.list")["items"][0]
    call(host, library_id, "asset.update", {"assetId": a, "rating": 5})  # someone else's
    theirs = call(host, library_id, "history.list")["items"][0]
    error = call_error(host, library_id, "history.undo", {"historyId": mine["id"]})
    assert error.code == "HISTORY_CONFLICT"
    assert error.details == {"expectedHistoryId": mine["id"], "historyId": theirs["id"]}
    assert "is not the next change to undo" in error.message
    assert "Changed the rating" in error.message
    assert get(host, library_id, a)["rating"] == 5 and get(host, library_id, a)["tags"] == \
        ["mine"]
    undone = call(host, library_id, "history.undo", {"historyId": theirs["id"]})
    assert undone["entry"]["id"] == theirs["id"] and undone["entry"]["undone"] is True
    # the same undo sent again (a retry) does not take back the next change
    again = call_error(host, library_id, "history.undo", {"historyId": theirs["id"]})
    assert again.code == "HISTORY_CONFLICT" and "was undone already" in again.message
    assert get(host, library_id, a)["tags"] == ["mine"]
    redone = call(host, library_id, "history.redo", {"historyId": theirs["id"]})
    assert redone["entry"]["id"] == theirs["id"] and get(host, library_id, a)["rating"] == 5
    assert call_error(host, library_id, "history.redo",
                      {"historyId": theirs["id"]}).code == "HISTORY_CONFLICT"


def test_a_stale_step_is_refused_and_leaves_everything_as_is(host, library_id, assets):
    a = assets[0]
    call(host, library_id, "asset.tag", {"assetIds": [a], "tags": ["one"]})
    call(host, library_id, "history.undo")
    # A new step clears the redo side.
    call(host, library_id, "asset.update", {"assetId": a, "rating": 1})
    assert call_error(host, library_id, "history.redo").code == "HISTORY_EMPTY"
    listed = call(host, library_id, "history.list")
    assert not listed["canRedo"]
    assert [e["command"] for e in listed["items"]] == ["asset.update", "file.import"]


def test_undo_of_a_created_folder_that_got_used_conflicts(host, library_id, assets):
    folder = call(host, library_id, "folder.create", {"name": "Used"})
    call(host, library_id, "asset.move", {"assetIds": assets[:1], "folderId": folder["id"]})
    call(host, library_id, "history.undo")  # the move
    call(host, library_id, "asset.move", {"assetIds": assets[1:2], "folderId": folder["id"]})
    call(host, library_id, "history.undo")  # the second move
    call(host, library_id, "history.undo")  # now the folder is empty again: it goes
    assert call(host, library_id, "folder.list")["items"] == []


def test_history_list_pages_newest_first(host, library_id, assets):
    for n in range(5):
        call(host, library_id, "asset.update", {"assetId": assets[0], "rating": n % 5 + 1})
    first = call(host, library_id, "history.list", {"limit": 4})
    second = call(host, library_id, "history.list", {"limit": 4, "cursor": first["nextCursor"]})
    ids = [e["id"] for e in first["items"] + second["items"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 6
    assert second["nextCursor"] is None
    error = call_error(host, library_id, "history.list", {"cursor": "nope"})
    assert error.code == "INVALID_ARGUMENT"


def test_nothing_to_undo(host, library_id):
    error = call_error(host, library_id, "history.undo")
    assert error.code == "HISTORY_EMPTY"
    assert call(host, library_id, "history.list") == {
        "items": [], "canUndo": False, "canRedo": False, "nextCursor": None,
        "truncated": False}


def test_a_retried_undo_with_the_same_key_undoes_once(host, library_id, assets):
    call(host, library_id, "asset.tag", {"assetIds": assets[:1], "tags": ["t1"]})
    call(host, library_id, "asset.tag", {"assetIds": assets[:1], "tags": ["t2"]})
    keyed = CallMeta(idempotency_key="undo-42")  # the same caller as the tags' (Serpent)
    first = call(host, library_id, "history.undo", {}, keyed)
    second = call(host, library_id, "history.undo", {}, keyed)
    assert first == second
    assert get(host, library_id, assets[0])["tags"] == ["t1"]
