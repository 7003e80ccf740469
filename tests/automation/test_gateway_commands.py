"""Library commands through the gateway, from an agent's point of view: folders, tags,
moves, trash and restore. Results are checked against the registry's output models
(`strict_outputs`) and list results share one page shape."""

from __future__ import annotations

from pathlib import Path

from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, READER, call, code, import_images, ok


def test_folders_and_moves(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 2)
    refs = ok(gateway, "folder.create", {"libraryId": library, "name": "Skies"}, CLAUDE)
    child = ok(gateway, "folder.create", {"libraryId": library, "name": "Night",
                                          "parentId": refs["id"]}, CLAUDE)
    assert child["parentId"] == refs["id"]
    moved = ok(gateway, "asset.move", {"libraryId": library, "assetIds": assets,
                                       "folderId": child["id"]}, CLAUDE)
    assert moved["changed"] == 2
    assert {i["status"] for i in moved["items"]} == {"changed"}
    folders = ok(gateway, "folder.list", {"libraryId": library}, READER)
    assert folders["nextCursor"] is None and folders["truncated"] is False
    counts = {f["name"]: f["assetCount"] for f in folders["items"]}
    assert counts == {"Skies": 0, "Night": 2}
    found = ok(gateway, "asset.search", {"libraryId": library, "folderId": child["id"]},
               READER)
    assert found["total"] == 2
    answer = call(gateway, "asset.move", {"libraryId": library, "assetIds": assets,
                                          "folderId": "fld_0000000000"}, CLAUDE)
    assert code(answer) == "NOT_FOUND"


def test_tags_and_untags(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets, "tags": ["sky"]},
       CLAUDE)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[:1],
                              "tags": ["night"]}, CLAUDE)
    untagged = ok(gateway, "asset.untag", {"libraryId": library, "assetIds": assets[1:],
                                           "tags": ["sky"]}, CLAUDE)
    assert untagged["changed"] == 2
    tags = ok(gateway, "tag.list", {"libraryId": library, "sort": "count"}, READER)
    assert {(t["name"], t["count"]) for t in tags["items"]} == {("night", 1), ("sky", 1)}
    assert tags["total"] == 2 and tags["truncated"] is False


def test_trash_and_restore(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 2)
    ok(gateway, "asset.trash", {"libraryId": library, "assetIds": assets}, CLAUDE)
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 0
    trash = ok(gateway, "trash.list", {"libraryId": library}, READER)
    assert trash["total"] == 2 and all(a["trashed"] for a in trash["items"])
    restored = ok(gateway, "asset.restore", {"libraryId": library, "assetIds": assets[:1]},
                  CLAUDE)
    assert restored["changed"] == 1
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 1
    again = ok(gateway, "asset.restore", {"libraryId": library, "assetIds": assets[:1]},
               CLAUDE)
    assert again["changed"] == 0 and again["items"][0]["status"] == "unchanged"


def test_pages_follow_the_cursor(gateway: Gateway, library: str, tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 5)
    seen: list[str] = []
    cursor = None
    while True:
        args = {"libraryId": library, "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = ok(gateway, "asset.search", args, READER)
        seen += [a["id"] for a in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 5
