"""Tag clean-up through a real worker: rename, delete, delete-batch, merge, co-occurrence,
each with its errors, undo/redo and change events."""

from __future__ import annotations

import pytest

from library.events import LibraryChanged
from library.protocol import CallMeta
from library.schemas import TagChangeOut, TagCooccurrenceOut
from tests.library.factories import call, call_error, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library

AGENT = CallMeta(source="mcp", credential="claude", label="Claude via MCP")


@pytest.fixture
def assets(host, library_id, sources) -> list[str]:
    make_images(sources, 5)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    ids = sorted(item["assetId"] for item in result["items"])
    tag = {0: ["skyy", "blue"], 1: ["skyy", "Sky"], 2: ["Skies", "blue"], 3: ["sky"],
           4: ["temp", "todo", "blue"]}
    for index, names in tag.items():
        call(host, library_id, "asset.tag", {"assetIds": [ids[index]], "tags": names})
    return ids


def tags_of(host, library_id, asset_ids) -> list[list[str]]:
    items = call(host, library_id, "asset.get", {"assetIds": asset_ids})["items"]
    return [sorted(i["tags"], key=str.casefold) for i in items]


def tag_names(host, library_id) -> list[str]:
    return [t["name"] for t in call(host, library_id, "tag.list", {"limit": 500})["items"]]


def search_total(host, library_id, **filters) -> int:
    return call(host, library_id, "asset.search", filters)["total"]


def test_rename_everywhere_with_undo_redo_and_events(host, library_id, assets, events):
    out = TagChangeOut.model_validate(call(host, library_id, "tag.rename",
                                           {"tag": "SKYY", "newName": "cloudy"}, AGENT))
    assert (out.affected_assets, out.tags, out.target) == (2, ["skyy"], "cloudy")
    assert "skyy" not in tag_names(host, library_id)
    assert tags_of(host, library_id, assets[:2]) == [["blue", "cloudy"], ["cloudy", "Sky"]]
    assert search_total(host, library_id, tags=["cloudy"]) == 2
    assert search_total(host, library_id, text="cloudy") == 2  # search text follows
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged) and e.command == "tag.rename")
    assert set(event.kinds) >= {"tag", "asset"} and event.actor.label == "Claude via MCP"

    step = call(host, library_id, "history.undo", {}, AGENT)["entry"]  # its own undo
    assert step["summary"] == "Renamed the tag skyy to cloudy" and step["undone"]
    assert tags_of(host, library_id, assets[:2]) == [["blue", "skyy"], ["Sky", "skyy"]]
    assert search_total(host, library_id, text="cloudy") == 0
    call(host, library_id, "history.redo", {}, AGENT)
    assert search_total(host, library_id, tags=["cloudy"]) == 2


def test_case_only_rename_and_its_undo(host, library_id, assets):
    out = call(host, library_id, "tag.rename", {"tag": "sky", "newName": "SKY"})
    assert out["affectedAssets"] == 2 and out["target"] == "SKY"
    assert "SKY" in tag_names(host, library_id) and "Sky" not in tag_names(host, library_id)
    call(host, library_id, "history.undo")
    assert "Sky" in tag_names(host, library_id)
    same = call(host, library_id, "tag.rename", {"tag": "Sky", "newName": "Sky"})
    assert same["affectedAssets"] == 0  # nothing to do, and it says so


def test_rename_refusals(host, library_id, assets):
    error = call_error(host, library_id, "tag.rename", {"tag": "skyy", "newName": "SKY"})
    assert error.code == "ALREADY_EXISTS" and error.details["hint"] == "tag.merge"
    assert "tag.merge" in error.message and error.details["existing"] == "Sky"
    assert call_error(host, library_id, "tag.rename",
                      {"tag": "nope", "newName": "x"}).code == "NOT_FOUND"
    for bad in ({"tag": "skyy", "newName": "  "}, {"tag": "skyy", "newName": "a\nb"},
                {"tag": "skyy", "newName": "x" * 101}, {"tag": "skyy"}):
        assert call_error(host, library_id, "tag.rename", bad).code == "INVALID_ARGUMENT"
    assert "skyy" in tag_names(host, library_id)  # nothing changed


def test_delete_and_delete_batch_with_undo(host, library_id, assets):
    call(host, library_id, "asset.trash", {"assetIds": [assets[0]]})
    before = call(host, library_id, "asset.get", {"assetIds": assets[:2]})["items"]
    out = call(host, library_id, "tag.delete", {"tag": "SKYY"})
    assert out == {"affectedAssets": 2, "tags": ["skyy"], "target": None,
                   "targetCreated": False, "notFound": []}
    after = call(host, library_id, "asset.get", {"assetIds": assets[:2]})["items"]
    assert [a["version"] for a in after] == [b["version"] + 1 for b in before]
    assert tags_of(host, library_id, assets[:2]) == [["blue"], ["Sky"]]  # trash included
    assert "skyy" not in tag_names(host, library_id)
    call(host, library_id, "history.undo")
    assert tags_of(host, library_id, assets[:2]) == [["blue", "skyy"], ["Sky", "skyy"]]
    call(host, library_id, "history.redo")
    assert "skyy" not in tag_names(host, library_id)

    batch = call(host, library_id, "tag.delete-batch", {"tags": ["temp", "todo", "ghost"]})
    assert (batch["affectedAssets"], batch["tags"], batch["notFound"]) == (
        1, ["temp", "todo"], ["ghost"])
    assert tags_of(host, library_id, [assets[4]]) == [["blue"]]
    call(host, library_id, "history.undo")
    assert tags_of(host, library_id, [assets[4]]) == [["blue", "temp", "todo"]]

    error = call_error(host, library_id, "tag.delete-batch", {"tags": ["ghost", "phantom"]})
    assert error.code == "NOT_FOUND" and error.details["notFound"] == ["ghost", "phantom"]
    assert call_error(host, library_id, "tag.delete", {"tag": "ghost"}).code == "NOT_FOUND"
    assert call_error(host, library_id, "tag.delete-batch",
                      {"tags": []}).code == "INVALID_ARGUMENT"


def test_merge_onto_existing_and_new_targets(host, library_id, assets, events):
    out = TagChangeOut.model_validate(call(host, library_id, "tag.merge",
                                           {"sources": ["skyy", "Skies", "ghost", "SKY"],
                                            "target": "sky"}))
    assert out.affected_assets == 3 and out.target == "Sky" and not out.target_created
    assert out.tags == ["skyy", "Skies"] and out.not_found == ["ghost"]
    assert tags_of(host, library_id, assets[:4]) == [["blue", "Sky"], ["Sky"],
                                                     ["blue", "Sky"], ["Sky"]]
    assert search_total(host, library_id, tags=["sky"]) == 4
    assert {"skyy", "Skies"}.isdisjoint(tag_names(host, library_id))
    event = events.wait_for(lambda e: isinstance(e, LibraryChanged) and e.command == "tag.merge")
    assert {"asset", "tag"} <= set(event.kinds) and set(assets[:3]) <= set(event.entity_ids)
    call(host, library_id, "history.undo")
    assert tags_of(host, library_id, assets[:4]) == [["blue", "skyy"], ["Sky", "skyy"],
                                                     ["blue", "Skies"], ["Sky"]]

    created = call(host, library_id, "tag.merge", {"sources": ["temp", "todo"],
                                                   "target": "later"})
    assert created["targetCreated"] and created["affectedAssets"] == 1
    assert tags_of(host, library_id, [assets[4]]) == [["blue", "later"]]
    call(host, library_id, "history.undo")
    assert "later" not in tag_names(host, library_id)
    call(host, library_id, "history.redo")
    assert tags_of(host, library_id, [assets[4]]) == [["blue", "later"]]


def test_merge_refusals_are_never_silent(host, library_id, assets):
    error = call_error(host, library_id, "tag.merge", {"sources": ["ghost"], "target": "sky"})
    assert error.code == "NOT_FOUND" and error.details["notFound"] == ["ghost"]
    error = call_error(host, library_id, "tag.merge", {"sources": ["SKY"], "target": "sky"})
    assert error.code == "INVALID_ARGUMENT" and "tag.rename" in error.message
    assert call_error(host, library_id, "tag.merge",
                      {"sources": [], "target": "sky"}).code == "INVALID_ARGUMENT"


def test_cooccurrence(host, library_id, assets):
    out = TagCooccurrenceOut.model_validate(call(host, library_id, "tag.cooccurrence",
                                                 {"tag": "BLUE"}))
    assert out.tag == "blue" and out.count == 3
    assert [(i.name, i.count) for i in out.items] == [
        ("Skies", 1), ("skyy", 1), ("temp", 1), ("todo", 1)]
    call(host, library_id, "asset.trash", {"assetIds": [assets[4]]})
    out = TagCooccurrenceOut.model_validate(call(host, library_id, "tag.cooccurrence",
                                                 {"tag": "blue", "limit": 1}))
    assert out.count == 2 and [(i.name, i.count) for i in out.items] == [("Skies", 1)]
    assert call_error(host, library_id, "tag.cooccurrence", {"tag": "nope"}).code == "NOT_FOUND"
    assert call_error(host, library_id, "tag.cooccurrence",
                      {"tag": "blue", "limit": 0}).code == "INVALID_ARGUMENT"
