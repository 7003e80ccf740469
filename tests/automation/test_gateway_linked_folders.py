"""Linked folders through the gateway and a real worker: create, refresh, update-rules,
reconnect and unlink, with modes, stable errors and change events."""

from __future__ import annotations

from pathlib import Path

from serpent_tk.automation.events import ChangeMade, LibraryChanged
from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, READER, Recorder, call, code, ok
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
    assert [e.undoable for e in recorder.of(ChangeMade)] == [False]  # not an undo step
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
