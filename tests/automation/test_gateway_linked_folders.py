"""Linked folders through the gateway and a real worker: create, refresh, update-rules,
reconnect and unlink, with modes, stable errors and change events."""

from __future__ import annotations

from pathlib import Path

from serpent_tk.automation.events import ChangeMade, LibraryChanged
from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, READER, UI, Recorder, call, code, ok
from tests.library.pictures import save_pictures


def test_linked_folder_commands_through_the_gateway(gateway: Gateway, library: str,
                                                    recorder: Recorder,
                                                    tmp_path: Path) -> None:
    folder = tmp_path / "Concept Art"
    save_pictures(folder, [1, 2])
    args = {"libraryId": library, "path": str(folder), "rules": {"autoImport": False}}
    assert code(call(gateway, "linked-folder.create", args, READER)) == "PERMISSION_DENIED"
    linked = ok(gateway, "linked-folder.create", args, CLAUDE)
    assert linked["assetCount"] == 2 and linked["status"] == "connected"
    changed = recorder.wait_for(LibraryChanged, lambda e: e.command == "linked-folder.create"
                                and "asset" in e.kinds)
    assert changed.actor_label == CLAUDE.label and "linked-folder" in changed.kinds
    assert [e.undoable for e in recorder.of(ChangeMade)] == [True]  # an undo step
    assert code(call(gateway, "linked-folder.create", args, CLAUDE)) == "ALREADY_EXISTS"

    save_pictures(folder, [3])
    refreshed = ok(gateway, "linked-folder.refresh", {"libraryId": library,
                                                      "linkedFolderId": linked["id"]}, CLAUDE)
    assert refreshed["added"] == 1 and refreshed["linkedFolder"]["assetCount"] == 3

    narrower = ok(gateway, "linked-folder.update-rules", {
        "libraryId": library, "linkedFolderId": linked["id"], "expectedVersion": 1,
        "rules": {"exclude": ["pic-003.png"], "autoImport": False}}, CLAUDE)
    assert narrower["version"] == 2 and narrower["assetCount"] == 2
    stale = call(gateway, "linked-folder.update-rules", {
        "libraryId": library, "linkedFolderId": linked["id"], "expectedVersion": 1,
        "rules": {}}, CLAUDE)
    assert code(stale) == "VERSION_CONFLICT" and stale["error"]["currentVersion"] == 2

    moved = folder.rename(tmp_path / "Concept Art 2")
    back = ok(gateway, "linked-folder.reconnect", {"libraryId": library,
                                                   "linkedFolderId": linked["id"],
                                                   "path": str(moved)}, CLAUDE)
    assert back["path"] == str(moved) and back["status"] == "connected"

    gone = ok(gateway, "linked-folder.unlink", {"libraryId": library,
                                                "linkedFolderId": linked["id"],
                                                "keepAssets": True}, CLAUDE)
    assert gone["id"] == linked["id"]
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 3  # assets stay
    missing = call(gateway, "linked-folder.refresh", {"libraryId": library,
                                                      "linkedFolderId": linked["id"]})
    assert code(missing) == "NOT_FOUND"
    assert sorted(p.name for p in moved.iterdir()) == ["pic-001.png", "pic-002.png",
                                                       "pic-003.png"]  # never touched


def test_linked_folder_list_gives_agents_the_ids(gateway: Gateway, library: str,
                                                 tmp_path: Path) -> None:
    empty = ok(gateway, "linked-folder.list", {"libraryId": library}, READER)
    assert empty["items"] == []
    linked = []
    for name in ("B refs", "A refs"):
        folder = tmp_path / name
        save_pictures(folder, [1])
        linked.append(ok(gateway, "linked-folder.create", {
            "libraryId": library, "path": str(folder), "rules": {"autoImport": False}},
            CLAUDE))
    listed = ok(gateway, "linked-folder.list", {"libraryId": library}, READER)["items"]
    assert [item["id"] for item in listed] == [linked[1]["id"], linked[0]["id"]]  # by path
    assert listed[1] == linked[0]  # the same record create returned
    assert code(call(gateway, "linked-folder.list", {}, READER)) == "LIBRARY_REQUIRED"
    ok(gateway, "linked-folder.unlink", {"libraryId": library,
                                         "linkedFolderId": linked[0]["id"]}, CLAUDE)
    listed = ok(gateway, "linked-folder.list", {"libraryId": library}, READER)["items"]
    assert [item["id"] for item in listed] == [linked[1]["id"]]


def linked_ids(gateway: Gateway, library: str) -> list[str]:
    return [i["id"] for i in ok(gateway, "linked-folder.list", {"libraryId": library})["items"]]


def undo(gateway: Gateway, library: str) -> str:
    answer = ok(gateway, "history.undo", {"libraryId": library}, UI)
    summary: str = answer["entry"]["summary"]
    return summary


def test_undo_after_a_linked_folder_command_takes_back_that_command(
        gateway: Gateway, library: str, tmp_path: Path) -> None:
    """Issue 25: tag, link a folder, undo answered "Tagged 1 asset" and left the link."""
    first = tmp_path / "First"
    save_pictures(first, [1])
    other = ok(gateway, "linked-folder.create", {"libraryId": library, "path": str(first),
                                                 "rules": {"autoImport": False}})
    [asset] = [a["id"] for a in ok(gateway, "asset.search", {"libraryId": library})["items"]]
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": [asset], "tags": ["before"]})
    folder = tmp_path / "Concept Art"
    save_pictures(folder, [2, 3])
    linked = ok(gateway, "linked-folder.create", {"libraryId": library, "path": str(folder),
                                                  "rules": {"autoImport": False}}, CLAUDE)
    assert undo(gateway, library) == "Linked the folder Concept Art on disk"
    assert linked_ids(gateway, library) == [other["id"]]
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 1  # its 2: trash
    tags = ok(gateway, "asset.get", {"libraryId": library, "assetIds": [asset]})["items"]
    assert tags[0]["tags"] == ["before"]  # the older change stays
    ok(gateway, "history.redo", {"libraryId": library}, UI)
    again = ok(gateway, "linked-folder.list", {"libraryId": library})["items"]
    assert [i for i in again if i["id"] == linked["id"]] == [linked]

    ok(gateway, "linked-folder.update-rules", {"libraryId": library,
                                               "linkedFolderId": linked["id"],
                                               "rules": {"exclude": ["pic-003.png"],
                                                         "autoImport": False}})
    assert undo(gateway, library) == "Changed the rules of the linked folder Concept Art"
    back = [i for i in ok(gateway, "linked-folder.list", {"libraryId": library})["items"]
            if i["id"] == linked["id"]][0]
    assert back["rules"] == linked["rules"] and back["assetCount"] == 2

    moved = folder.rename(tmp_path / "Moved Art")
    ok(gateway, "linked-folder.reconnect", {"libraryId": library,
                                            "linkedFolderId": linked["id"], "path": str(moved)})
    assert undo(gateway, library) == "Reconnected a linked folder to Moved Art"
    back = [i for i in ok(gateway, "linked-folder.list", {"libraryId": library})["items"]
            if i["id"] == linked["id"]][0]
    assert back["path"] == str(folder) and back["status"] == "missing"  # as it was: moved
    ok(gateway, "history.redo", {"libraryId": library})

    ok(gateway, "linked-folder.unlink", {"libraryId": library, "linkedFolderId": linked["id"],
                                         "keepAssets": False})
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 1
    assert undo(gateway, library).startswith("Unlinked a folder; 2 of its assets")
    back = [i for i in ok(gateway, "linked-folder.list", {"libraryId": library})["items"]
            if i["id"] == linked["id"]][0]
    assert back["path"] == str(moved) and back["assetCount"] == 2
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 3
