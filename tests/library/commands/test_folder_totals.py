"""A folder's `totalCount`: the assets in it and in every folder under it, each once (an
asset filed in two folders of one subtree counts once there), the Trash left out; what the
window's sidebar shows beside a parent folder, whose view shows its subfolders' assets."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.library.factories import call, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library


def test_a_parent_counts_what_its_subfolders_hold(host, library_id, tmp_path: Path) -> None:
    made = call(host, library_id, "file.import",
                {"sourcePaths": [str(p) for p in make_images(tmp_path / "in", 6)]})
    ids = [item["assetId"] for item in made["items"]]
    top = call(host, library_id, "folder.create", {"name": "Trips"})["id"]
    alps = call(host, library_id, "folder.create", {"name": "Alps", "parentId": top})["id"]
    peaks = call(host, library_id, "folder.create", {"name": "Peaks", "parentId": alps})["id"]
    empty = call(host, library_id, "folder.create", {"name": "Empty", "parentId": top})["id"]
    call(host, library_id, "asset.move", {"assetIds": ids[:2], "folderId": alps})
    call(host, library_id, "asset.move", {"assetIds": ids[2:5], "folderId": peaks})
    call(host, library_id, "asset.copy", {"assetIds": ids[:1], "folderId": peaks})  # twice
    call(host, library_id, "asset.trash", {"assetIds": ids[4:5]})

    folders = {f["name"]: f for f in call(host, library_id, "folder.list")["items"]}
    assert {name: (f["assetCount"], f["totalCount"]) for name, f in folders.items()} == {
        "Trips": (0, 4), "Alps": (2, 4), "Peaks": (3, 3), "Empty": (0, 0)}
    found = call(host, library_id, "asset.search", {"folderId": top,
                                                    "includeSubfolders": True})
    assert found["total"] == folders["Trips"]["totalCount"]
    children = call(host, library_id, "folder.list", {"parentId": top})["items"]
    assert {f["name"]: f["totalCount"] for f in children} == {"Alps": 4, "Empty": 0}
    assert empty and call(host, library_id, "folder.create", {"name": "New"})["totalCount"] == 0
