"""Organizing commands through the gateway, as an agent and a read-only client see them:
thumbnails and preview status; a folder tree imported, colour search, the palette,
duplicates with the one to keep, "similar to this asset", trashing the others in one step.
Results are checked against the registry's output models (`strict_outputs`); the worker
side is tested in depth in tests/library."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import (
    CLAUDE,
    READER,
    analysis_tasks,
    call,
    code,
    import_images,
    ok,
)
from tests.waiting import wait_until


def test_thumbnail_and_preview_status(gateway: Gateway, library: str, tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    status = ok(gateway, "asset.preview-status", {"libraryId": library, "assetIds": [asset]},
                READER)
    # the analysis queued after every import makes the preview ahead (import_images waits
    # for it), so it is ready already; asset.thumbnail still answers for any size
    assert status["items"] == {asset: "ready"}
    shown = ok(gateway, "asset.thumbnail", {"libraryId": library, "assetId": asset,
                                            "size": 128}, READER)
    with Image.open(shown["path"]) as image:
        assert image.size == (shown["width"], shown["height"]) == (16, 12)
    status = ok(gateway, "asset.preview-status", {"libraryId": library, "assetIds": [asset]},
                CLAUDE)
    assert (status["items"], status["notFound"]) == ({asset: "ready"}, [])
    assert status["counts"]["ready"] == 1
    text = tmp_path / "readme.txt"
    text.write_text("words")
    [doc] = [i["assetId"] for i in ok(gateway, "file.import", {
        "libraryId": library, "sourcePaths": [str(text)]})["items"]]
    answer = call(gateway, "asset.thumbnail", {"libraryId": library, "assetId": doc}, READER)
    assert code(answer) == "UNSUPPORTED_FORMAT" and answer["error"]["libraryId"] == library


def test_tag_clean_up_by_an_agent_undone_by_the_person(gateway: Gateway, library: str,
                                                       tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[:2],
                              "tags": ["skyy", "blue"]}, CLAUDE)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[2:],
                              "tags": ["Sky", "temp", "todo"]}, CLAUDE)
    related = ok(gateway, "tag.cooccurrence", {"libraryId": library, "tag": "skyy"}, READER)
    assert related == {"tag": "skyy", "count": 2, "items": [{"name": "blue", "count": 2}]}
    answer = call(gateway, "tag.rename", {"libraryId": library, "tag": "skyy",
                                          "newName": "sky"}, CLAUDE)
    assert code(answer) == "ALREADY_EXISTS" and "tag.merge" in answer["error"]["message"]
    assert (answer["error"]["existing"], answer["error"]["hint"]) == ("Sky", "tag.merge")
    merged = ok(gateway, "tag.merge", {"libraryId": library, "sources": ["skyy"],
                                       "target": "sky"}, CLAUDE)
    assert (merged["affectedAssets"], merged["target"]) == (2, "Sky")
    renamed = ok(gateway, "tag.rename", {"libraryId": library, "tag": "blue",
                                         "newName": "Blue"}, CLAUDE)
    assert renamed["affectedAssets"] == 2
    deleted = ok(gateway, "tag.delete", {"libraryId": library, "tag": "temp"}, CLAUDE)
    assert deleted["tags"] == ["temp"]
    batch = ok(gateway, "tag.delete-batch", {"libraryId": library, "tags": ["todo", "x"]},
               CLAUDE)
    assert batch["notFound"] == ["x"]
    assert code(call(gateway, "tag.delete", {"libraryId": library, "tag": "Sky"},
                     READER)) == "PERMISSION_DENIED"
    for _ in range(4):
        ok(gateway, "history.undo", {"libraryId": library})  # the person, at the window
    tags = ok(gateway, "tag.list", {"libraryId": library}, READER)
    assert {t["name"] for t in tags["items"]} == {"blue", "Sky", "skyy", "temp", "todo"}


def test_folders_and_copies(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 2)
    refs = ok(gateway, "folder.create", {"libraryId": library, "name": "Refs"}, CLAUDE)
    skies = ok(gateway, "folder.create", {"libraryId": library, "name": "Skies"}, CLAUDE)
    empty = ok(gateway, "folder.create", {"libraryId": library, "name": "Empty"}, CLAUDE)
    again = call(gateway, "folder.create", {"libraryId": library, "name": "refs"}, CLAUDE)
    assert code(again) == "ALREADY_EXISTS"
    assert again["error"]["folderId"] == refs["id"]  # the agent can use the folder that is there
    renamed = ok(gateway, "folder.rename", {"libraryId": library, "folderId": skies["id"],
                                            "name": "Sky", "expectedVersion": 1}, CLAUDE)
    assert renamed["version"] == 2
    moved = ok(gateway, "folder.move", {"libraryId": library, "folderId": skies["id"],
                                        "parentId": refs["id"]}, CLAUDE)
    assert moved["parentId"] == refs["id"]
    answer = call(gateway, "folder.move", {"libraryId": library, "folderId": refs["id"],
                                           "parentId": skies["id"]}, CLAUDE)
    assert code(answer) == "INVALID_ARGUMENT" and answer["error"]["reason"] == "cycle"
    copied = ok(gateway, "asset.copy", {"libraryId": library, "assetIds": assets,
                                        "folderId": skies["id"]}, CLAUDE)
    ok(gateway, "asset.copy", {"libraryId": library, "assetIds": assets[:1],
                               "folderId": refs["id"]}, CLAUDE)
    assert copied["changed"] == 2
    answer = call(gateway, "folder.delete-empty", {"libraryId": library,
                                                   "folderIds": [empty["id"], skies["id"]]},
                  CLAUDE)
    assert code(answer) == "NOT_EMPTY"
    assert "'Sky'" in answer["error"]["message"]  # the offender is named
    assert [o["id"] for o in answer["error"]["offenders"]] == [skies["id"]]
    deleted = ok(gateway, "folder.delete-empty", {"libraryId": library,
                                                  "folderIds": [empty["id"]]}, CLAUDE)
    assert deleted == {"deleted": [empty["id"]]}


def test_collections(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[:1], "tags": ["sky"]},
       CLAUDE)
    rules = {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]}
    smart = ok(gateway, "collection.create", {"libraryId": library, "name": "Skies",
                                              "rules": rules}, CLAUDE)
    picks = ok(gateway, "collection.create", {"libraryId": library, "name": "Picks"}, CLAUDE)
    assert smart["assetCount"] == 1 and picks["assetCount"] == 0
    added = ok(gateway, "collection.members", {"libraryId": library,
                                               "collectionId": picks["id"],
                                               "add": assets[1:]}, CLAUDE)
    assert added["assetCount"] == 2
    found = ok(gateway, "asset.search", {"libraryId": library, "collectionId": picks["id"]},
               READER)
    assert found["total"] == 2
    ran = ok(gateway, "collection.run-rules", {"libraryId": library,
                                               "collectionId": smart["id"]}, READER)
    assert [i["id"] for i in ran["items"]] == assets[:1]
    updated = ok(gateway, "collection.update", {"libraryId": library,
                                                "collectionId": smart["id"],
                                                "name": "Blue skies"}, CLAUDE)
    assert updated["version"] == 2
    order = ok(gateway, "collection.reorder", {"libraryId": library,
                                               "collectionIds": [picks["id"]]}, CLAUDE)
    assert [c["name"] for c in order["items"]] == ["Picks", "Blue skies"]
    listed = ok(gateway, "collection.list", {"libraryId": library}, READER)
    assert [c["id"] for c in listed["items"]] == [picks["id"], smart["id"]]
    ok(gateway, "collection.delete", {"libraryId": library, "collectionId": picks["id"]},
       CLAUDE)
    answer = call(gateway, "collection.members", {"libraryId": library,
                                                  "collectionId": smart["id"],
                                                  "add": assets[:1]}, CLAUDE)
    assert code(answer) == "INVALID_ARGUMENT"
    ok(gateway, "history.undo", {"libraryId": library})
    listed = ok(gateway, "collection.list", {"libraryId": library}, READER)
    assert [c["assetCount"] for c in listed["items"]] == [2, 1]


def paint(folder: Path) -> None:
    (folder / "warm").mkdir(parents=True)
    (folder / "cold").mkdir()
    picture = Image.new("RGB", (320, 240), (230, 90, 20))
    draw = ImageDraw.Draw(picture)
    draw.ellipse([40, 40, 200, 200], fill=(250, 220, 40))
    draw.rectangle([210, 20, 300, 220], fill=(120, 20, 10))
    picture.save(folder / "warm" / "sunset.png")
    picture.resize((160, 120)).save(folder / "warm" / "sunset small.jpg", quality=85)
    Image.new("RGB", (300, 200), (20, 60, 220)).save(folder / "cold" / "sea.png")


def test_an_agent_imports_finds_colours_and_cleans_up_duplicates(gateway: Gateway,
                                                                 library: str,
                                                                 tmp_path: Path) -> None:
    source = tmp_path / "Refs"
    paint(source)
    before = analysis_tasks(gateway, library)
    imported = ok(gateway, "file.import", {"libraryId": library,
                                           "sourcePaths": [str(source)]}, CLAUDE)
    assert imported["imported"] == 3 and imported["foldersCreated"] == 3
    names = {Path(i["sourcePath"]).stem: i["assetId"] for i in imported["items"]}
    wait_until(lambda: analysis_tasks(gateway, library, finished=True) > before,
               "the analysis queued after the import")
    tree = {f["name"]: f for f in ok(gateway, "folder.list", {"libraryId": library},
                                     READER)["items"]}
    assert tree["warm"]["parentId"] == tree["Refs"]["id"] and tree["warm"]["assetCount"] == 2

    blue = ok(gateway, "asset.search", {"libraryId": library, "color": "#1438dc"}, READER)
    assert [a["id"] for a in blue["items"]] == [names["sea"]]
    got = ok(gateway, "asset.get", {"libraryId": library, "assetIds": [names["sunset"]]},
             READER)["items"][0]
    assert got["palette"] and abs(sum(c["ratio"] for c in got["palette"]) - 1) < 0.05
    ordered = ok(gateway, "asset.search", {"libraryId": library, "sort": "color-similarity",
                                           "color": "#e65a14", "colorTolerance": 100},
                 READER)
    assert ordered["items"][0]["id"] in (names["sunset"], names["sunset small"])

    similar = ok(gateway, "asset.find-similar", {"libraryId": library,
                                                 "assetId": names["sunset"]}, READER)
    assert [m["assetId"] for m in similar["items"]] == [names["sunset small"]]
    found = ok(gateway, "serpent_asset_find_duplicates", {"libraryId": library}, READER)
    [group] = found["items"]
    assert group["keep"] == names["sunset"] and group["members"][0]["width"] == 320
    others = [m["assetId"] for m in group["members"][1:]]
    ok(gateway, "asset.trash", {"libraryId": library, "assetIds": others}, CLAUDE)
    assert ok(gateway, "asset.find-duplicates", {"libraryId": library}, READER)["total"] == 0
    ok(gateway, "history.undo", {"libraryId": library})
    assert ok(gateway, "asset.find-duplicates", {"libraryId": library}, READER)["total"] == 1

    previews = ok(gateway, "asset.preview-status", {"libraryId": library}, READER)
    assert previews["counts"]["ready"] == 3 and previews["items"] == {}
    missing = call(gateway, "asset.find-similar", {"libraryId": library,
                                                   "assetId": "ast_0000000000zzzzzzzzzzzz"},
                   READER)
    assert code(missing) == "NOT_FOUND"
