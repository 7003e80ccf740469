"""Undo and redo through the gateway: across sources, conflicts, and the read-only denial."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, FULL, READER, UI, call, code, import_images, ok


def tags_of(gateway: Gateway, library: str, asset: str) -> list[str]:
    found = ok(gateway, "asset.get", {"libraryId": library, "assetIds": [asset]})
    tags: list[str] = found["items"][0]["tags"]
    return tags


def history(gateway: Gateway, library: str) -> dict[str, Any]:
    return ok(gateway, "history.list", {"libraryId": library, "limit": 50}, READER)


def test_a_person_undoes_what_an_agent_did_and_the_agent_redoes_it(
        gateway: Gateway, library: str, tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": [asset], "tags": ["sky"]},
       CLAUDE)
    top = history(gateway, library)["items"][0]
    assert top["command"] == "asset.tag"
    assert top["actor"] == {"source": "mcp", "credential": "claude",
                            "label": "Claude Desktop via MCP"}
    undone = call(gateway, "history.undo", {"libraryId": library}, UI)
    assert undone["status"] == "ok" and undone["result"]["entry"]["id"] == top["id"]
    assert undone["libraryChangeSequence"] >= top["changeSequence"] + 1
    assert tags_of(gateway, library, asset) == []
    listed = history(gateway, library)
    assert listed["items"][0]["undone"] is True and listed["canRedo"] is True
    ok(gateway, "history.redo", {"libraryId": library}, CLAUDE)
    assert tags_of(gateway, library, asset) == ["sky"]
    assert history(gateway, library)["canRedo"] is False


def test_undoing_an_import_moves_the_new_assets_to_the_trash(gateway: Gateway, library: str,
                                                            tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 2, caller=CLAUDE)
    ok(gateway, "history.undo", {"libraryId": library}, UI)
    assert ok(gateway, "asset.search", {"libraryId": library})["items"] == []
    trashed = ok(gateway, "trash.list", {"libraryId": library})
    assert sorted(a["id"] for a in trashed["items"]) == sorted(assets)
    ok(gateway, "history.redo", {"libraryId": library}, FULL)
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 2


def test_read_only_may_look_at_history_but_not_change_it(gateway: Gateway, library: str,
                                                         tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": [asset], "tags": ["sky"]})
    ok(gateway, "history.undo", {"libraryId": library})
    before = history(gateway, library)
    sequence = ok(gateway, "library.change-sequence", {"libraryId": library})
    for name in ("history.undo", "history.redo"):
        answer = call(gateway, name, {"libraryId": library}, READER)
        assert answer["status"] == "error"
        assert answer["error"]["code"] == "PERMISSION_DENIED"
        assert answer["error"]["missing"] == ["history.write"]
        assert answer["error"]["libraryId"] == library
    assert history(gateway, library) == before
    assert ok(gateway, "library.change-sequence", {"libraryId": library}) == sequence


def test_nothing_to_undo_and_a_conflict(gateway: Gateway, library: str,
                                        tmp_path: Path) -> None:
    assert code(call(gateway, "history.undo", {"libraryId": library}, CLAUDE)) == \
        "HISTORY_EMPTY"
    assert code(call(gateway, "history.redo", {"libraryId": library}, CLAUDE)) == \
        "HISTORY_EMPTY"
    assets = import_images(gateway, library, tmp_path / "src", 2)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets, "tags": ["sky"]},
       CLAUDE)
    first = call(gateway, "asset.delete-permanently", {"libraryId": library,
                                                       "assetIds": assets[:1]}, UI)
    ok(gateway, "asset.delete-permanently", {"libraryId": library, "assetIds": assets[:1],
                                             "confirmChallenge": first["challenge"]["id"]})
    before = history(gateway, library)
    barrier = before["items"][0]
    assert barrier["command"] == "asset.delete-permanently" and not barrier["undoable"]
    answer = call(gateway, "history.undo", {"libraryId": library}, CLAUDE)
    assert code(answer) == "HISTORY_IRREVERSIBLE"  # not the older tag of the other asset
    assert answer["error"] == {"code": "HISTORY_IRREVERSIBLE", "historyId": barrier["id"],
                               "libraryId": library, "message": answer["error"]["message"]}
    assert "“Permanently deleted 1 asset”, cannot be undone" in answer["error"]["message"]
    assert history(gateway, library) == before
    assert tags_of(gateway, library, assets[1]) == ["sky"]
    # an undo naming a step that is not the latest: refused, both named
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[1:], "tags": ["sea"]})
    latest = history(gateway, library)["items"][0]
    answer = call(gateway, "history.undo", {"libraryId": library,
                                            "historyId": barrier["id"] - 1}, CLAUDE)
    assert code(answer) == "HISTORY_CONFLICT"
    assert answer["error"]["historyId"] == latest["id"]
    assert answer["error"]["expectedHistoryId"] == barrier["id"] - 1
    assert tags_of(gateway, library, assets[1]) == ["sea", "sky"]


def names_of(gateway: Gateway, library: str, assets: list[str]) -> list[str]:
    found = ok(gateway, "asset.get", {"libraryId": library, "assetIds": assets})["items"]
    by_id = {item["id"]: item["name"] for item in found}
    return [by_id[a] for a in assets]


def test_a_batch_of_renames_is_one_step_of_the_history(gateway: Gateway, library: str,
                                                       tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    before = names_of(gateway, library, assets)
    versions = {item["id"]: item["version"] for item in ok(
        gateway, "asset.get", {"libraryId": library, "assetIds": assets})["items"]}
    renamed = ok(gateway, "asset.rename-batch", {"libraryId": library, "items": [
        {"assetId": a, "name": f"Skies-{n:03}", "expectedVersion": versions[a]}
        for n, a in enumerate(assets, start=1)]}, CLAUDE)
    assert renamed["changed"] == 3
    assert names_of(gateway, library, assets) == ["Skies-001", "Skies-002", "Skies-003"]
    top = history(gateway, library)["items"][0]
    assert top["command"] == "asset.rename-batch" and top["summary"] == "Renamed 3 assets"
    ok(gateway, "history.undo", {"libraryId": library}, UI)
    assert names_of(gateway, library, assets) == before  # all three, in one undo
    # a stale version or a missing asset refuses the whole batch: nothing is renamed
    stale = call(gateway, "asset.rename-batch", {"libraryId": library, "items": [
        {"assetId": assets[0], "name": "New"},
        {"assetId": assets[1], "name": "Newer", "expectedVersion": 1}]}, CLAUDE)
    assert code(stale) == "VERSION_CONFLICT"
    missing = call(gateway, "asset.rename-batch", {"libraryId": library, "items": [
        {"assetId": assets[0], "name": "New"}, {"assetId": "ast_0000000000", "name": "X"}]})
    assert code(missing) == "NOT_FOUND"
    twice = call(gateway, "asset.rename-batch", {"libraryId": library, "items": [
        {"assetId": assets[0], "name": "A"}, {"assetId": assets[0], "name": "B"}]})
    assert code(twice) == "INVALID_ARGUMENT"
    assert names_of(gateway, library, assets) == before
