"""`file.import` keeps folder trees, through a real worker: three levels of subfolders become
library folders (existing ones reused, or flattened on request), every file of a folder gets
an item (hidden and system files skipped with a reason), a re-import of known content gets
the new folder and tags and says so, and undo takes the import's folders away again."""

from __future__ import annotations

from pathlib import Path

from tests.library.factories import call, make_file, make_image


def tree(root: Path) -> Path:
    """refs/ (2 files), refs/faces/ (1), refs/faces/old/ (1), refs/faces/old/scans/ (1),
    refs/skies/ (1 + a system file), hidden files and a hidden folder."""
    top = root / "refs"
    make_image(top / "a.png", seed=1)
    make_file(top / "readme.txt", b"my refs")
    make_image(top / "faces" / "b.png", seed=2)
    make_image(top / "faces" / "old" / "c.png", seed=3)
    make_image(top / "faces" / "old" / "scans" / "d.jpg", seed=4)
    make_image(top / "skies" / "e.png", seed=5)
    make_file(top / "skies" / "Thumbs.db", b"windows clutter")
    make_file(top / ".DS_Store", b"mac clutter")
    make_file(top / "faces" / ".secret.png", b"hidden")
    make_image(top / ".git" / "objects" / "x.png", seed=6)
    return top


def folders(host, library_id) -> dict[str, dict]:
    """Folders by path of names ("refs/faces/old")."""
    items = call(host, library_id, "folder.list")["items"]
    by_id = {f["id"]: f for f in items}

    def path(folder: dict) -> str:
        parent = by_id.get(folder["parentId"] or "")
        return f"{path(parent)}/{folder['name']}" if parent else folder["name"]
    return {path(f): f for f in items}


def by_name(result: dict) -> dict[str, dict]:
    return {Path(i["sourcePath"]).name: i for i in result["items"]}


def test_a_folder_tree_becomes_library_folders(host, library_id, tmp_path):
    top = tree(tmp_path)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(top)]})
    assert (result["imported"], result["skipped"], result["foldersCreated"]) == (6, 4, 5)
    made = folders(host, library_id)
    assert set(made) == {"refs", "refs/faces", "refs/faces/old", "refs/faces/old/scans",
                         "refs/skies"}
    items = by_name(result)
    expected = {"a.png": "refs", "readme.txt": "refs", "b.png": "refs/faces",
                "c.png": "refs/faces/old", "d.jpg": "refs/faces/old/scans",
                "e.png": "refs/skies"}
    for name, folder in expected.items():
        assert items[name]["folderId"] == made[folder]["id"], name
        found = call(host, library_id, "asset.search", {"folderId": made[folder]["id"]})
        assert items[name]["assetId"] in {a["id"] for a in found["items"]}
    reasons = {name: (i["status"], i["reason"]) for name, i in items.items()
               if i["status"] == "skipped"}
    assert reasons == {"Thumbs.db": ("skipped", "system-file"),
                       ".DS_Store": ("skipped", "system-file"),
                       ".secret.png": ("skipped", "hidden"), ".git": ("skipped", "hidden")}
    assert all(i["error"] for i in result["items"] if i["status"] == "skipped")
    inside = call(host, library_id, "asset.search", {"folderId": made["refs"]["id"],
                                                     "includeSubfolders": True})
    assert inside["total"] == 6

    # the same tree again, plus a new file: the folders are reused, nothing copied twice
    make_image(top / "faces" / "old" / "f.png", seed=7)
    again = call(host, library_id, "file.import", {"sourcePaths": [str(top)]})
    assert (again["imported"], again["duplicates"], again["foldersCreated"]) == (1, 6, 0)
    assert set(folders(host, library_id)) == set(made)
    assert by_name(again)["f.png"]["folderId"] == made["refs/faces/old"]["id"]


def test_flatten_and_import_into_a_folder(host, library_id, tmp_path):
    top = tree(tmp_path)
    inbox = call(host, library_id, "folder.create", {"name": "Inbox"})
    flat = call(host, library_id, "file.import", {"sourcePaths": [str(top)],
                                                 "folderId": inbox["id"],
                                                 "keepFolderTree": False})
    assert flat["foldersCreated"] == 0 and flat["imported"] == 6
    assert {i["folderId"] for i in flat["items"] if i["status"] == "imported"} == {inbox["id"]}
    assert set(folders(host, library_id)) == {"Inbox"}
    other = tmp_path / "more"
    make_image(other / "deep" / "g.png", seed=8)
    nested = call(host, library_id, "file.import", {"sourcePaths": [str(other)],
                                                   "folderId": inbox["id"]})
    assert {"Inbox/more", "Inbox/more/deep"} <= set(folders(host, library_id))
    assert nested["items"][0]["folderId"] == folders(host, library_id)["Inbox/more/deep"]["id"]


def test_known_content_gets_the_new_folder_and_tags(host, library_id, tmp_path):
    picture = make_image(tmp_path / "src" / "known.png", seed=9)
    [first] = call(host, library_id, "file.import", {"sourcePaths": [str(picture)],
                                                    "tags": ["Sky"]})["items"]
    assert first["tagsAdded"] == ["Sky"] and first["folderId"] is None
    target = call(host, library_id, "folder.create", {"name": "Picks"})
    [again] = call(host, library_id, "file.import", {
        "sourcePaths": [str(picture)], "folderId": target["id"],
        "tags": ["sky", "blue"]})["items"]
    assert again["status"] == "duplicate" and again["assetId"] == first["assetId"]
    assert again["folderId"] == target["id"] and again["tagsAdded"] == ["blue"]
    asset = call(host, library_id, "asset.get", {"assetIds": [first["assetId"]]})["items"][0]
    assert asset["folderIds"] == [target["id"]] and asset["tags"] == ["blue", "Sky"]
    assert asset["version"] == 2
    call(host, library_id, "history.undo")  # one step: the known asset is as it was
    asset = call(host, library_id, "asset.get", {"assetIds": [first["assetId"]]})["items"][0]
    assert asset["folderIds"] == [] and asset["tags"] == ["Sky"]

    call(host, library_id, "asset.trash", {"assetIds": [first["assetId"]]})
    [back] = call(host, library_id, "file.import", {"sourcePaths": [str(picture)]})["items"]
    assert back["status"] == "duplicate" and "trash" in back["warning"]
    assert call(host, library_id, "asset.get", {"assetIds": [first["assetId"]]})[
        "items"][0]["trashed"] is False


def test_undo_takes_the_folders_of_an_import_away_and_redo_brings_them_back(host, library_id,
                                                                           tmp_path):
    top = tree(tmp_path)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(top)]})
    ids = [i["assetId"] for i in result["items"] if i["status"] == "imported"]
    call(host, library_id, "history.undo")
    assert folders(host, library_id) == {}
    assert call(host, library_id, "asset.search")["total"] == 0
    assert call(host, library_id, "trash.list")["total"] == 6
    call(host, library_id, "history.redo")
    made = folders(host, library_id)
    assert set(made) == {"refs", "refs/faces", "refs/faces/old", "refs/faces/old/scans",
                         "refs/skies"}
    assets = call(host, library_id, "asset.get", {"assetIds": ids})["items"]
    assert all(not a["trashed"] and a["folderIds"] for a in assets)
    scans = [a for a in assets if a["name"] == "d"][0]
    assert scans["folderIds"] == [made["refs/faces/old/scans"]["id"]]
