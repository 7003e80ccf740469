"""Asset edits, folders, versions, idempotency keys and the change log, through a real worker."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from library.events import LibraryChanged
from library.protocol import CallMeta
from library.schemas import AssetBatchOut, AssetUpdateOut, Folder, FolderListOut
from tests.library.factories import call, call_error, make_images

CLAUDE = CallMeta(source="mcp", credential="claude", label="Claude via MCP")


@pytest.fixture
def assets(host, library_id, sources):
    make_images(sources, 3)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False})
    return [item["assetId"] for item in result["items"]]


@pytest.mark.both_kinds
def test_update_with_expected_version_and_conflict(host, library_id, assets, events):
    asset_id = assets[0]
    out = AssetUpdateOut.model_validate(call(
        host, library_id, "asset.update",
        {"assetId": asset_id, "expectedVersion": 1, "name": "Sky study", "rating": 5,
         "notes": "warm", "sourceUrl": "https://example.com/a"}, CLAUDE))
    item = out.item
    assert (item.name, item.rating, item.notes, item.version) == ("Sky study", 5, "warm", 2)
    assert str(item.source_url) == "https://example.com/a"
    assert item.modified_by.label == "Claude via MCP"
    assert item.added_by.label == "Serpent"
    error = call_error(host, library_id, "asset.update",
                       {"assetId": asset_id, "expectedVersion": 1, "rating": 1})
    assert error.code == "VERSION_CONFLICT" and error.details["currentVersion"] == 2
    assert call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0][
        "rating"] == 5  # nothing changed
    cleared = call(host, library_id, "asset.update", {"assetId": asset_id, "sourceUrl": ""})
    assert cleared["item"]["sourceUrl"] is None
    error = call_error(host, library_id, "asset.update",
                       {"assetId": "ast_00000000000000", "rating": 1})
    assert error.code == "NOT_FOUND"
    for bad in ({"assetId": asset_id, "rating": 6}, {"assetId": asset_id},
                {"assetId": asset_id, "sourceUrl": "javascript:alert(1)"},
                {"assetId": asset_id, "name": "   "}):
        assert call_error(host, library_id, "asset.update", bad).code == "INVALID_ARGUMENT"
    changed = [e for e in events.of(LibraryChanged) if e.command == "asset.update"]
    assert changed[0].entity_ids == [asset_id] and changed[0].kinds == ["asset"]


@pytest.mark.both_kinds
def test_one_update_changes_many_assets_in_one_undo_step(host, library_id, assets, events):
    a, b, c = assets
    missing = "ast_00000000000000"
    first = call(host, library_id, "asset.update", {"assetId": c, "rating": 3})  # c: version 2
    assert first["item"]["version"] == 2 and first["changed"] == 1
    history_before = call(host, library_id, "history.list")["items"]
    out = AssetUpdateOut.model_validate(call(
        host, library_id, "asset.update",
        {"assetIds": [a, b, c, missing, a], "rating": 4, "notes": "shortlist",
         "expectedVersions": {b: 1, c: 1}}, CLAUDE))
    assert out.item is None and out.changed == 2
    assert [(i.id, i.status, i.version, i.current_version) for i in out.items] == [
        (a, "changed", 2, None), (b, "changed", 2, None), (c, "version_conflict", None, 2),
        (missing, "not_found", None, None)]
    got = {i["id"]: i for i in call(host, library_id, "asset.get", {"assetIds": assets})["items"]}
    assert (got[a]["rating"], got[a]["notes"], got[b]["rating"]) == (4, "shortlist", 4)
    assert (got[c]["rating"], got[c]["notes"]) == (3, "")  # left alone: it had moved on
    again = call(host, library_id, "asset.update", {"assetIds": [a, b], "rating": 4})
    assert [i["status"] for i in again["items"]] == ["unchanged", "unchanged"]
    entries = call(host, library_id, "history.list")["items"]
    assert len(entries) == len(history_before) + 1  # one step; the no-op made none
    assert entries[0]["summary"] == "Changed the notes, rating of 2 assets"
    # one undo takes back the whole batch (its caller's: a studio library's undo is per caller)
    call(host, library_id, "history.undo", {}, CLAUDE)
    got = {i["id"]: i for i in call(host, library_id, "asset.get", {"assetIds": assets})["items"]}
    assert (got[a]["rating"], got[a]["notes"], got[b]["rating"], got[c]["rating"]) == (
        0, "", 0, 3)
    for bad in ({"assetIds": [a], "name": "x"}, {"assetIds": [a], "expectedVersion": 1,
                                                  "rating": 1},
                {"assetId": a, "assetIds": [b], "rating": 1},
                {"assetIds": [a], "expectedVersions": {b: 1}, "rating": 1},
                {"assetIds": [a] * 501, "rating": 1}):
        assert call_error(host, library_id, "asset.update", bad).code == "INVALID_ARGUMENT"
    changed = [set(e.entity_ids) for e in events.of(LibraryChanged)
               if e.command == "asset.update"]
    assert {a, b} in changed  # the batch's one event names what it changed


@pytest.mark.both_kinds
def test_tags_per_asset_in_one_call_and_one_undo_step(host, library_id, assets):
    a, b, c = assets
    out = AssetBatchOut.model_validate(call(host, library_id, "asset.tag", {"tagsByAsset": {
        a: ["sky", "sunset"], b: ["forest"], c: ["SKY"], "ast_00000000000000": ["x"]}}))
    assert [(i.status) for i in out.items] == ["changed", "changed", "changed", "not_found"]
    tags = {i["id"]: i["tags"] for i in call(host, library_id, "asset.get",
                                             {"assetIds": assets})["items"]}
    assert tags == {a: ["sky", "sunset"], b: ["forest"], c: ["sky"]}
    assert call(host, library_id, "history.list")["items"][0]["summary"].startswith(
        "Tagged 3 assets with sky, sunset, forest")
    call(host, library_id, "history.undo")
    tags = {i["id"]: i["tags"] for i in call(host, library_id, "asset.get",
                                             {"assetIds": assets})["items"]}
    assert tags == {a: [], b: [], c: []}
    for bad in ({"tagsByAsset": {a: ["x"]}, "assetIds": [a]}, {"tagsByAsset": {"not-an-id": ["x"]}},
                {"tagsByAsset": {a: []}}, {"assetIds": [a]}, {"tags": ["x"]}):
        assert call_error(host, library_id, "asset.tag", bad).code == "INVALID_ARGUMENT"


@pytest.mark.both_kinds
def test_tag_and_untag_answer_per_asset_and_bump_only_changed(host, library_id, assets):
    tagged = AssetBatchOut.model_validate(call(
        host, library_id, "asset.tag", {"assetIds": assets[:2] + ["ast_00000000000000"],
                                        "tags": ["sky", "Blue"]}))
    assert [(i.status, i.version) for i in tagged.items] == [
        ("changed", 2), ("changed", 2), ("not_found", None)]
    again = call(host, library_id, "asset.tag", {"assetIds": assets[:2], "tags": ["SKY"]})
    assert [i["status"] for i in again["items"]] == ["unchanged", "unchanged"]
    assert again["changed"] == 0
    untagged = call(host, library_id, "asset.untag", {"assetIds": assets[:1], "tags": ["blue"]})
    assert untagged["items"][0]["status"] == "changed"
    tags = {t["name"]: t["count"] for t in call(host, library_id, "tag.list")["items"]}
    assert tags == {"Blue": 1, "sky": 2}
    call(host, library_id, "asset.untag", {"assetIds": assets[1:2], "tags": ["blue"]})
    assert [t["name"] for t in call(host, library_id, "tag.list")["items"]] == ["sky"]


@pytest.mark.both_kinds
def test_folders_and_move(host, library_id, assets):
    top = Folder.model_validate(call(host, library_id, "folder.create", {"name": "Trips"}))
    sub = call(host, library_id, "folder.create", {"name": "Alps", "parentId": top.id})
    error = call_error(host, library_id, "folder.create", {"name": "TRIPS"})
    assert error.code == "ALREADY_EXISTS"
    error = call_error(host, library_id, "folder.create",
                       {"name": "x", "parentId": "fld_0000000000"})
    assert error.code == "NOT_FOUND"
    call(host, library_id, "folder.create", {"name": "Alps"})  # same name, other parent
    moved = call(host, library_id, "asset.move", {"assetIds": assets[:2], "folderId": sub["id"]})
    assert moved["changed"] == 2
    listing = FolderListOut.model_validate(call(host, library_id, "folder.list"))
    counts = {(f.name, f.parent_id): (f.asset_count, f.child_count) for f in listing.items}
    assert counts == {("Trips", None): (0, 1), ("Alps", top.id): (2, 0), ("Alps", None): (0, 0)}
    children = call(host, library_id, "folder.list", {"parentId": top.id})
    assert [f["name"] for f in children["items"]] == ["Alps"]
    out = call(host, library_id, "asset.move", {"assetIds": assets[:1], "folderId": None})
    assert out["changed"] == 1
    got = call(host, library_id, "asset.get", {"assetIds": assets[:2]})["items"]
    assert [a["folderIds"] for a in got] == [[], [sub["id"]]]
    error = call_error(host, library_id, "asset.move",
                       {"assetIds": assets[:1], "folderId": "fld_0000000000"})
    assert error.code == "NOT_FOUND"


@pytest.mark.both_kinds
def test_an_idempotency_key_returns_the_first_result_and_changes_nothing(host, library,
                                                                         assets):
    library_id = library["libraryId"]
    keyed = CallMeta(source="mcp", credential="claude", label="Claude",
                     idempotency_key="tag-once-1")
    first = call(host, library_id, "asset.tag", {"assetIds": assets, "tags": ["once"]}, keyed)
    sequence = host.change_sequence(library_id)
    call(host, library_id, "asset.untag", {"assetIds": assets, "tags": ["once"]})
    retried = call(host, library_id, "asset.tag", {"assetIds": assets, "tags": ["once"]}, keyed)
    assert retried == first
    assert call(host, library_id, "asset.search", {"tags": ["once"]})["total"] == 0
    assert host.change_sequence(library_id) == sequence + 1  # the untag only
    other = CallMeta(source="mcp", credential="cursor", label="Cursor",
                     idempotency_key="tag-once-1")
    assert call(host, library_id, "asset.tag", {"assetIds": assets, "tags": ["once"]},
                other)["changed"] == 3  # keys are per caller
    error = call_error(host, library_id, "asset.trash", {"assetIds": assets}, keyed)
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "idempotencyKey"


def test_every_write_bumps_the_sequence_and_is_in_the_change_log(host, library, assets):
    library_id = library["libraryId"]
    before = call(host, library_id, "library.change-sequence")["changeSequence"]
    call(host, library_id, "asset.update", {"assetId": assets[0], "rating": 2}, CLAUDE)
    call(host, library_id, "asset.tag", {"assetIds": assets, "tags": ["x"]})
    after = call(host, library_id, "library.change-sequence")["changeSequence"]
    assert after == before + 2
    db = sqlite3.connect(Path(library["path"]) / "library.sqlite")
    try:
        rows = db.execute("SELECT seq, command, source, credential, label, entity_ids FROM "
                          "change_log WHERE seq > ? ORDER BY seq", (before,)).fetchall()
    finally:
        db.close()
    assert [r[1] for r in rows] == ["asset.update", "asset.tag"]
    assert rows[0][2:5] == ("mcp", "claude", "Claude via MCP")
    assert assets[0] in rows[0][5]
