"""Reshaping folders and copying assets into folders through a real worker: folder.rename,
folder.move, folder.delete-empty and asset.copy, with their errors, undo/redo and events."""

from __future__ import annotations

import pytest

from library.events import LibraryChanged
from library.schemas import AssetBatchOut, Folder
from tests.library.factories import call, call_error, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library


def folder(host, library_id, name, parent=None) -> dict:
    return call(host, library_id, "folder.create", {"name": name, "parentId": parent})


def folders_by_name(host, library_id) -> dict[str, dict]:
    return {f["name"]: f for f in call(host, library_id, "folder.list")["items"]}


@pytest.fixture
def tree(host, library_id) -> dict[str, str]:
    """Refs/{Skies/Night, Faces}, Old (empty), Archive (empty)."""
    refs = folder(host, library_id, "Refs")["id"]
    skies = folder(host, library_id, "Skies", refs)["id"]
    night = folder(host, library_id, "Night", skies)["id"]
    faces = folder(host, library_id, "Faces", refs)["id"]
    old = folder(host, library_id, "Old")["id"]
    archive = folder(host, library_id, "Archive")["id"]
    return {"refs": refs, "skies": skies, "night": night, "faces": faces, "old": old,
            "archive": archive}


def test_rename_with_versions_collisions_and_undo(host, library_id, tree, events):
    renamed = Folder.model_validate(call(host, library_id, "folder.rename",
                                         {"folderId": tree["skies"], "name": "Sky studies",
                                          "expectedVersion": 1}))
    assert (renamed.name, renamed.version, renamed.parent_id) == ("Sky studies", 2, tree["refs"])
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                            and e.command == "folder.rename")
    assert event.kinds == ["folder"] and event.entity_ids == [tree["skies"]]
    error = call_error(host, library_id, "folder.rename",
                       {"folderId": tree["skies"], "name": "X", "expectedVersion": 1})
    assert error.code == "VERSION_CONFLICT" and error.details["currentVersion"] == 2
    for clash in ("faces", "FACES", "Faces.", "Faces "):  # as Windows and macOS see names
        error = call_error(host, library_id, "folder.rename",
                           {"folderId": tree["skies"], "name": clash})
        assert error.code == "ALREADY_EXISTS", clash
    # the same name elsewhere in the tree is fine; a case-only rename of itself too
    call(host, library_id, "folder.rename", {"folderId": tree["skies"], "name": "Old"})
    case = call(host, library_id, "folder.rename", {"folderId": tree["skies"], "name": "OLD"})
    assert case["name"] == "OLD"
    same = call(host, library_id, "folder.rename", {"folderId": tree["skies"], "name": "OLD"})
    assert same["version"] == case["version"]  # nothing to change: no new version
    for _ in range(3):
        call(host, library_id, "history.undo")
    assert folders_by_name(host, library_id)["Skies"]["id"] == tree["skies"]
    call(host, library_id, "history.redo")
    assert folders_by_name(host, library_id)["Sky studies"]["id"] == tree["skies"]
    assert call_error(host, library_id, "folder.rename",
                      {"folderId": "fld_0000000000", "name": "x"}).code == "NOT_FOUND"
    for bad in ({"folderId": tree["old"], "name": ""}, {"folderId": tree["old"], "name": "a\tb"},
                {"folderId": tree["old"], "name": "x", "expectedVersion": 0}):
        assert call_error(host, library_id, "folder.rename", bad).code == "INVALID_ARGUMENT"


def test_move_refuses_cycles_and_collisions_and_undoes(host, library_id, tree):
    moved = call(host, library_id, "folder.move", {"folderId": tree["skies"],
                                                    "parentId": tree["old"]})
    assert moved["parentId"] == tree["old"] and moved["version"] == 2
    assert call(host, library_id, "folder.list", {"parentId": tree["old"]})["items"][0][
        "id"] == tree["skies"]
    for target in ("skies", "night"):  # itself, or below itself
        error = call_error(host, library_id, "folder.move",
                           {"folderId": tree["skies"], "parentId": tree[target]})
        assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "parentId"
        assert error.details["reason"] == "cycle"
    top = call(host, library_id, "folder.move", {"folderId": tree["night"], "parentId": None})
    assert top["parentId"] is None
    folder(host, library_id, "Night", tree["refs"])
    error = call_error(host, library_id, "folder.move",
                       {"folderId": tree["night"], "parentId": tree["refs"]})
    assert error.code == "ALREADY_EXISTS"
    call(host, library_id, "history.undo")  # the new "Night" folder
    call(host, library_id, "history.undo")  # night back under skies
    call(host, library_id, "history.undo")  # skies back under refs
    by_name = folders_by_name(host, library_id)
    assert by_name["Night"]["parentId"] == tree["skies"]
    assert by_name["Skies"]["parentId"] == tree["refs"]
    assert call_error(host, library_id, "folder.move",
                      {"folderId": tree["skies"], "parentId": "fld_0000000000"}
                      ).code == "NOT_FOUND"
    assert call_error(host, library_id, "folder.move",
                      {"folderId": tree["skies"]}).code == "INVALID_ARGUMENT"


def test_delete_empty_is_all_or_nothing(host, library_id, tree, sources, events):
    make_images(sources, 2)
    ids = [i["assetId"] for i in call(host, library_id, "file.import", {
        "sourcePaths": [str(sources)], "folderId": tree["faces"], "keepFolderTree": False})[
        "items"]]
    call(host, library_id, "asset.trash", {"assetIds": ids})  # trashed still counts
    error = call_error(host, library_id, "folder.delete-empty",
                       {"folderIds": [tree["old"], tree["faces"], tree["skies"]]})
    assert error.code == "NOT_EMPTY"
    offenders = {o["name"]: o for o in error.details["offenders"]}
    assert set(offenders) == {"Faces", "Skies"}
    assert offenders["Faces"]["trashedAssets"] == 2 and offenders["Skies"]["subfolders"] == 1
    assert "Old" in folders_by_name(host, library_id)  # nothing deleted
    error = call_error(host, library_id, "folder.delete-empty",
                       {"folderIds": [tree["old"], "fld_0000000000"]})
    assert error.code == "NOT_FOUND" and "Old" in folders_by_name(host, library_id)

    out = call(host, library_id, "folder.delete-empty",
               {"folderIds": [tree["old"], tree["archive"], tree["night"], tree["old"]]})
    assert out == {"deleted": [tree["old"], tree["archive"], tree["night"]]}
    assert {"Old", "Archive", "Night"}.isdisjoint(folders_by_name(host, library_id))
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                            and e.command == "folder.delete-empty")
    assert event.kinds == ["folder"] and len(event.entity_ids) == 3
    call(host, library_id, "history.undo")
    restored = folders_by_name(host, library_id)
    assert restored["Night"]["id"] == tree["night"] and restored["Night"]["parentId"] == tree[
        "skies"]
    assert {"Old", "Archive"} <= set(restored)
    call(host, library_id, "history.redo")
    assert "Night" not in folders_by_name(host, library_id)
    assert call_error(host, library_id, "folder.delete-empty",
                      {"folderIds": []}).code == "INVALID_ARGUMENT"


def test_asset_copy_adds_a_folder_and_keeps_the_others(host, library_id, tree, sources,
                                                       events):
    make_images(sources, 3)
    ids = sorted(i["assetId"] for i in call(host, library_id, "file.import", {
        "sourcePaths": [str(sources)], "folderId": tree["skies"], "keepFolderTree": False})[
        "items"])
    call(host, library_id, "asset.copy", {"assetIds": ids[:1], "folderId": tree["faces"]})
    out = AssetBatchOut.model_validate(call(host, library_id, "asset.copy", {
        "assetIds": [*ids, "ast_00000000000000"], "folderId": tree["faces"]}))
    assert [i.status for i in out.items] == ["unchanged", "changed", "changed", "not_found"]
    assert out.changed == 2
    got = call(host, library_id, "asset.get", {"assetIds": ids})["items"]
    assert all(set(a["folderIds"]) == {tree["skies"], tree["faces"]} for a in got)
    assert [a["version"] for a in got] == [2, 2, 2]
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged) and e.command == "asset.copy"
                            and len(e.entity_ids) > 2)
    assert set(event.kinds) == {"asset", "folder"}
    assert call(host, library_id, "asset.search", {"folderId": tree["faces"]})["total"] == 3
    call(host, library_id, "history.undo")
    got = call(host, library_id, "asset.get", {"assetIds": ids[1:]})["items"]
    assert all(a["folderIds"] == [tree["skies"]] for a in got)
    call(host, library_id, "history.redo")
    assert call(host, library_id, "asset.search", {"folderId": tree["faces"]})["total"] == 3
    assert call_error(host, library_id, "asset.copy", {
        "assetIds": ids, "folderId": "fld_0000000000"}).code == "NOT_FOUND"
    assert call_error(host, library_id, "asset.copy", {
        "assetIds": [], "folderId": tree["faces"]}).code == "INVALID_ARGUMENT"
