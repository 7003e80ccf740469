"""Trash round trips, permanent deletes with plan → state token → execute, and STALE_PLAN."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.schemas import AssetSearchOut, DeleteOut, RiskReport
from tests.library.factories import call, call_error, make_images, stored_files

pytestmark = pytest.mark.both_kinds  # a local and a studio library


@pytest.fixture
def assets(host, library_id, sources):
    make_images(sources, 4)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    return [item["assetId"] for item in result["items"]]


def test_trash_and_restore_round_trip(host, library_id, assets):
    out = call(host, library_id, "asset.trash", {"assetIds": assets[:2] + ["ast_00000000000000"]})
    assert [i["status"] for i in out["items"]] == ["changed", "changed", "not_found"]
    again = call(host, library_id, "asset.trash", {"assetIds": assets[:1]})
    assert again["items"][0]["status"] == "unchanged"
    trash = AssetSearchOut.model_validate(call(host, library_id, "trash.list"))
    assert trash.total == 2 and all(i.trashed for i in trash.items)
    assert call(host, library_id, "asset.search")["total"] == 2
    trashed = call(host, library_id, "asset.get", {"assetIds": assets[:1]})["items"][0]
    assert trashed["trashed"] and trashed["trashedAt"]
    page = call(host, library_id, "trash.list", {"limit": 1})
    assert call(host, library_id, "trash.list", {"limit": 1, "cursor": page["nextCursor"]})[
        "items"][0]["id"] != page["items"][0]["id"]
    restored = call(host, library_id, "asset.restore", {"assetIds": assets[:2]})
    assert restored["changed"] == 2
    assert call(host, library_id, "trash.list")["total"] == 0
    assert call(host, library_id, "asset.get", {"assetIds": assets[:1]})["items"][0][
        "trashedAt"] is None


def test_delete_permanently_plan_changes_nothing_then_execute_removes_rows_and_files(
        host, library, assets):
    library_id, root = library["libraryId"], Path(library["path"])
    sequence = host.change_sequence(library_id)
    report = RiskReport.model_validate(call(host, library_id, "asset.delete-permanently",
                                            {"assetIds": assets[:2]}, plan=True))
    assert report.count == 2 and report.irreversible
    assert {t.id for t in report.targets} == set(assets[:2])
    assert all(t.version == 1 and t.size > 0 and t.name for t in report.targets)
    assert report.total_bytes == sum(t.size for t in report.targets)
    assert "Permanently delete 2 assets" in report.summary
    assert report.state_token.startswith("st_")
    assert host.change_sequence(library_id) == sequence
    assert call(host, library_id, "asset.search")["total"] == 4  # the plan changed nothing

    out = DeleteOut.model_validate(call(host, library_id, "asset.delete-permanently",
                                        {"assetIds": assets[:2],
                                         "stateToken": report.state_token}))
    assert (out.deleted, out.freed_bytes) == (2, report.total_bytes)
    got = call(host, library_id, "asset.get", {"assetIds": assets})
    assert sorted(got["notFound"]) == sorted(assets[:2])
    assert len(stored_files(root)) == 2
    error = call_error(host, library_id, "asset.delete-permanently", {"assetIds": assets[:1]},
                       plan=True)
    assert error.code == "NOT_FOUND"


def test_a_changed_state_between_plan_and_execute_is_a_stale_plan(host, library_id, assets):
    report = call(host, library_id, "asset.delete-permanently", {"assetIds": assets[:2]},
                  plan=True)
    call(host, library_id, "asset.tag", {"assetIds": assets[:1], "tags": ["moved on"]})
    error = call_error(host, library_id, "asset.delete-permanently",
                       {"assetIds": assets[:2], "stateToken": report["stateToken"]})
    assert error.code == "STALE_PLAN" and error.retryable
    assert call(host, library_id, "asset.search")["total"] == 4  # nothing deleted


def test_empty_trash_with_plan_and_stale_plan(host, library, assets):
    library_id, root = library["libraryId"], Path(library["path"])
    call(host, library_id, "asset.trash", {"assetIds": assets[:2]})
    report = call(host, library_id, "trash.empty", {}, plan=True)
    assert report["count"] == 2 and {t["id"] for t in report["targets"]} == set(assets[:2])
    call(host, library_id, "asset.trash", {"assetIds": assets[2:3]})  # the trash changed
    error = call_error(host, library_id, "trash.empty", {"stateToken": report["stateToken"]})
    assert error.code == "STALE_PLAN"
    report = call(host, library_id, "trash.empty", {}, plan=True)
    assert report["count"] == 3
    out = call(host, library_id, "trash.empty", {"stateToken": report["stateToken"]})
    assert out["deleted"] == 3
    assert call(host, library_id, "trash.list")["total"] == 0
    assert len(stored_files(root)) == 1
    empty = call(host, library_id, "trash.empty", {}, plan=True)
    assert empty["count"] == 0 and empty["summary"] == "The trash is already empty."
    assert call(host, library_id, "trash.empty")["deleted"] == 0


def test_reimporting_a_permanently_deleted_file_imports_it_again(host, library_id, assets,
                                                                 sources):
    call(host, library_id, "asset.delete-permanently", {"assetIds": assets[:1]})
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    assert (result["imported"], result["duplicates"]) == (1, 3)


def thumbnail_owners(root: Path) -> set[str]:
    """Content hashes that have a thumbnail (or a failure marker) in `thumbs/`."""
    return {p.name.split("_", 1)[0].split(".", 1)[0]
            for p in (root / "thumbs").rglob("*") if p.is_file() and ".tmp" not in p.parts}


def test_permanent_deletes_remove_the_thumbnails_too(host, library, assets):
    library_id, root = library["libraryId"], Path(library["path"])
    hashes = {a["id"]: a["sha256"] for a in call(host, library_id, "asset.get",
                                                 {"assetIds": assets})["items"]}
    for asset_id in assets:
        for size in (64, 256):
            call(host, library_id, "asset.thumbnail", {"assetId": asset_id, "size": size})
    assert thumbnail_owners(root) == set(hashes.values())
    call(host, library_id, "asset.delete-permanently", {"assetIds": assets[:1]})
    assert thumbnail_owners(root) == {hashes[a] for a in assets[1:]}
    call(host, library_id, "asset.trash", {"assetIds": assets[1:3]})
    assert thumbnail_owners(root) == {hashes[a] for a in assets[1:]}  # the trash shows them
    call(host, library_id, "trash.empty")
    assert thumbnail_owners(root) == {hashes[assets[3]]}
