"""Collections through a real worker: create (hand-picked and smart), list, update, reorder,
delete, members, run-rules and asset.search by collection, with errors, undo/redo, events."""

from __future__ import annotations

import pytest

from library.events import LibraryChanged
from library.schemas import Collection, CollectionListOut
from tests.library.factories import call, call_error, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library

SKY = {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]}


@pytest.fixture
def assets(host, library_id, sources) -> list[str]:
    make_images(sources, 4)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    ids = sorted(item["assetId"] for item in result["items"])
    call(host, library_id, "asset.tag", {"assetIds": ids[:2], "tags": ["sky"]})
    return ids


def names(host, library_id) -> list[str]:
    out = CollectionListOut.model_validate(call(host, library_id, "collection.list"))
    return [c.name for c in out.items]


def members_of(host, library_id, collection_id, **extra) -> list[str]:
    out = call(host, library_id, "asset.search", {"collectionId": collection_id, "limit": 500,
                                                  **extra})
    assert out["total"] == len(out["items"])
    return [item["id"] for item in out["items"]]


def test_create_list_and_undo(host, library_id, assets, events):
    picks = Collection.model_validate(call(host, library_id, "collection.create",
                                           {"name": "Picks"}))
    assert (picks.smart, picks.rules, picks.asset_count, picks.position, picks.version) == (
        False, None, 0, 0, 1)
    smart = Collection.model_validate(call(host, library_id, "collection.create", {
        "name": "Skies", "rules": {"rules": [{"field": "ext", "op": "is", "value": ".PNG"},
                                             *SKY["rules"]]}}))
    assert smart.smart and smart.asset_count == 2 and smart.position == 1
    assert smart.rules is not None and smart.rules.rules[0].value == "png"  # stored canonical
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                            and e.command == "collection.create")
    assert event.kinds == ["collection"] and event.entity_ids == [picks.id]
    assert names(host, library_id) == ["Picks", "Skies"]
    for clash in ("picks", "SKIES", "Picks."):
        assert call_error(host, library_id, "collection.create",
                          {"name": clash}).code == "ALREADY_EXISTS"
    error = call_error(host, library_id, "collection.create", {
        "name": "Bad", "rules": {"rules": [{"field": "rating", "op": "is", "value": 9}]}})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "rules.rules.0.value"
    for bad in ({"name": ""}, {"name": "x", "rules": {"rules": []}}, {}):
        assert call_error(host, library_id, "collection.create", bad).code == "INVALID_ARGUMENT"
    assert names(host, library_id) == ["Picks", "Skies"]
    call(host, library_id, "history.undo")
    assert names(host, library_id) == ["Picks"]
    call(host, library_id, "history.redo")
    assert names(host, library_id) == ["Picks", "Skies"]


def test_members_of_a_hand_picked_collection(host, library_id, assets, events):
    picks = call(host, library_id, "collection.create", {"name": "Picks"})["id"]
    out = call(host, library_id, "collection.members", {"collectionId": picks,
                                                        "add": [assets[2], assets[0]]})
    assert out["assetCount"] == 2 and out["version"] == 2
    assert set(members_of(host, library_id, picks)) == {assets[0], assets[2]}
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                            and e.command == "collection.members")
    assert event.kinds == ["collection"] and event.entity_ids == [picks]
    again = call(host, library_id, "collection.members", {"collectionId": picks,
                                                          "add": [assets[0]]})
    assert again["version"] == 2  # already a member: nothing changed
    out = call(host, library_id, "collection.members", {
        "collectionId": picks, "add": [assets[3]], "remove": [assets[2], assets[1]]})
    assert out["assetCount"] == 2
    assert set(members_of(host, library_id, picks)) == {assets[0], assets[3]}
    call(host, library_id, "asset.trash", {"assetIds": [assets[3]]})
    assert members_of(host, library_id, picks) == [assets[0]]  # the trash is left out
    assert call(host, library_id, "collection.list")["items"][0]["assetCount"] == 1
    call(host, library_id, "history.undo")  # the trash
    call(host, library_id, "history.undo")  # add 3 / remove 2
    assert set(members_of(host, library_id, picks)) == {assets[0], assets[2]}
    call(host, library_id, "history.redo")
    assert set(members_of(host, library_id, picks)) == {assets[0], assets[3]}

    unknown = "ast_00000000000000"
    error = call_error(host, library_id, "collection.members",
                       {"collectionId": picks, "add": [assets[1], unknown]})
    assert error.code == "NOT_FOUND" and error.details["notFound"] == [unknown]
    assert set(members_of(host, library_id, picks)) == {assets[0], assets[3]}
    for bad in ({"collectionId": picks}, {"collectionId": picks, "add": [assets[0]],
                                          "remove": [assets[0]]}):
        assert call_error(host, library_id, "collection.members",
                          bad).code == "INVALID_ARGUMENT"
    smart = call(host, library_id, "collection.create", {"name": "Skies", "rules": SKY})["id"]
    error = call_error(host, library_id, "collection.members",
                       {"collectionId": smart, "add": [assets[3]]})
    assert error.code == "INVALID_ARGUMENT" and error.details["reason"] == "smart"
    assert call_error(host, library_id, "collection.members", {
        "collectionId": "col_0000000000", "add": [assets[0]]}).code == "NOT_FOUND"


def test_smart_collections_follow_their_rules(host, library_id, assets):
    smart = call(host, library_id, "collection.create", {"name": "Skies", "rules": SKY})["id"]
    assert set(members_of(host, library_id, smart)) == set(assets[:2])
    call(host, library_id, "asset.tag", {"assetIds": [assets[3]], "tags": ["Sky"]})
    assert set(members_of(host, library_id, smart)) == {*assets[:2], assets[3]}
    assert members_of(host, library_id, smart, text="nothing like this") == []
    ran = call(host, library_id, "collection.run-rules", {"collectionId": smart, "limit": 2})
    assert ran["total"] == 3 and len(ran["items"]) == 2 and ran["nextCursor"]
    rest = call(host, library_id, "collection.run-rules", {"collectionId": smart, "limit": 2,
                                                           "cursor": ran["nextCursor"]})
    assert {i["id"] for i in ran["items"] + rest["items"]} == {*assets[:2], assets[3]}
    adhoc = call(host, library_id, "collection.run-rules",
                 {"rules": {"match": "any", "rules": [
                     {"field": "untagged", "op": "is", "value": True}]}})
    assert {i["id"] for i in adhoc["items"]} == {assets[2]}

    picks = call(host, library_id, "collection.create", {"name": "Picks"})["id"]
    error = call_error(host, library_id, "collection.run-rules", {"collectionId": picks})
    assert error.code == "INVALID_ARGUMENT" and error.details["reason"] == "not-smart"
    for bad in ({}, {"collectionId": smart, "rules": SKY}):
        assert call_error(host, library_id, "collection.run-rules",
                          bad).code == "INVALID_ARGUMENT"
    assert call_error(host, library_id, "collection.run-rules",
                      {"collectionId": "col_0000000000"}).code == "NOT_FOUND"
    assert call_error(host, library_id, "asset.search",
                      {"collectionId": "col_0000000000"}).code == "NOT_FOUND"


def test_update_with_versions_and_undo(host, library_id, assets):
    smart = call(host, library_id, "collection.create", {"name": "Skies", "rules": SKY})["id"]
    picks = call(host, library_id, "collection.create", {"name": "Picks"})["id"]
    out = call(host, library_id, "collection.update", {
        "collectionId": smart, "name": "Blue skies", "expectedVersion": 1,
        "rules": {"match": "any", "rules": [{"field": "rating", "op": "gte", "value": 5}]}})
    assert (out["name"], out["version"], out["assetCount"]) == ("Blue skies", 2, 0)
    error = call_error(host, library_id, "collection.update",
                       {"collectionId": smart, "name": "X", "expectedVersion": 1})
    assert error.code == "VERSION_CONFLICT" and error.details["currentVersion"] == 2
    same = call(host, library_id, "collection.update", {"collectionId": smart,
                                                        "name": "Blue skies"})
    assert same["version"] == 2
    assert call_error(host, library_id, "collection.update",
                      {"collectionId": smart, "name": "PICKS"}).code == "ALREADY_EXISTS"
    error = call_error(host, library_id, "collection.update",
                       {"collectionId": picks, "rules": SKY})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "rules"
    assert call_error(host, library_id, "collection.update",
                      {"collectionId": smart}).code == "INVALID_ARGUMENT"
    assert call_error(host, library_id, "collection.update",
                      {"collectionId": "col_0000000000", "name": "x"}).code == "NOT_FOUND"
    call(host, library_id, "history.undo")
    back = call(host, library_id, "collection.list")["items"][0]
    assert (back["name"], back["assetCount"], back["rules"]["rules"][0]["field"]) == (
        "Skies", 2, "tag")


def test_reorder_and_delete_with_undo(host, library_id, assets, events):
    ids = [call(host, library_id, "collection.create", {"name": n})["id"]
           for n in ("A", "B", "C")]
    call(host, library_id, "collection.members", {"collectionId": ids[1],
                                                  "add": [assets[2], assets[0]]})
    out = CollectionListOut.model_validate(call(host, library_id, "collection.reorder",
                                                {"collectionIds": [ids[2], ids[0]]}))
    assert [c.name for c in out.items] == ["C", "A", "B"]
    assert [c.position for c in out.items] == [0, 1, 2]
    for bad, expected in (({"collectionIds": [ids[0], ids[0]]}, "INVALID_ARGUMENT"),
                          ({"collectionIds": []}, "INVALID_ARGUMENT"),
                          ({"collectionIds": ["col_0000000000"]}, "NOT_FOUND")):
        assert call_error(host, library_id, "collection.reorder", bad).code == expected
    call(host, library_id, "history.undo")
    assert names(host, library_id) == ["A", "B", "C"]

    assert call(host, library_id, "collection.delete", {"collectionId": ids[1]}) == {
        "deleted": ids[1]}
    assert names(host, library_id) == ["A", "C"]
    assert call(host, library_id, "asset.search", {})["total"] == 4  # the assets stay
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                            and e.command == "collection.delete")
    assert event.kinds == ["collection"]
    call(host, library_id, "history.undo")
    assert names(host, library_id) == ["A", "B", "C"]
    assert set(members_of(host, library_id, ids[1])) == {assets[0], assets[2]}
    call(host, library_id, "history.redo")
    assert names(host, library_id) == ["A", "C"]
    assert call_error(host, library_id, "collection.delete",
                      {"collectionId": ids[1]}).code == "NOT_FOUND"
