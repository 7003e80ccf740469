"""A linked folder's subfolders, through a real worker and the real folder watcher: mirrored as
library folders, renamed and moved along with the disk while the library is open, files
moved between subfolders keep their assets, and a disk folder that vanishes shows as missing
by itself (refresh answers PATH_NOT_FOUND) and comes back connected. Waits have deadlines."""

from __future__ import annotations

import os
from pathlib import Path

from tests.library.factories import call, call_error
from tests.library.pictures import save_pictures
from tests.waiting import wait_until


def folders(host, library_id) -> dict[str, dict]:
    """Library folders by path of names ("Shoot/faces/old")."""
    items = call(host, library_id, "folder.list")["items"]
    by_id = {f["id"]: f for f in items}

    def path(folder: dict) -> str:
        parent = by_id.get(folder["parentId"] or "")
        return f"{path(parent)}/{folder['name']}" if parent else folder["name"]
    return {path(f): f for f in items}


def names_in(host, library_id, folder_id) -> set[str]:
    found = call(host, library_id, "asset.search", {"folderId": folder_id, "limit": 500})
    return {a["name"] for a in found["items"]}


def status_is(host, library_id, status: str) -> dict | None:
    [item] = call(host, library_id, "linked-folder.list")["items"]
    return item if item["status"] == status else None


def shoot(tmp_path: Path) -> Path:
    root = tmp_path / "Shoot"
    save_pictures(root, [1], prefix="cover")
    save_pictures(root / "faces", [2], prefix="face")
    save_pictures(root / "faces" / "old", [3], prefix="old")
    save_pictures(root / "skies", [4, 5], prefix="sky")
    return root


def test_subfolders_are_mirrored_and_follow_the_disk(host, library_id, tmp_path):
    root = shoot(tmp_path)
    linked = call(host, library_id, "linked-folder.create", {"path": str(root)})
    made = folders(host, library_id)
    assert set(made) == {"Shoot", "Shoot/faces", "Shoot/faces/old", "Shoot/skies"}
    assert made["Shoot"]["id"] == linked["folderId"]
    assert names_in(host, library_id, made["Shoot/faces/old"]["id"]) == {"old-003"}
    assert names_in(host, library_id, made["Shoot"]["id"]) == {"cover-001"}
    asset_count = call(host, library_id, "asset.search")["total"]

    os.rename(root / "faces", root / "people")  # renamed on disk, library open
    renamed = wait_until(lambda: (lambda now: now if "Shoot/people" in now else None)(
        folders(host, library_id)), "the folder to be renamed")
    assert renamed["Shoot/people"]["id"] == made["Shoot/faces"]["id"]  # the same folder
    assert renamed["Shoot/people/old"]["id"] == made["Shoot/faces/old"]["id"]
    assert names_in(host, library_id, made["Shoot/faces"]["id"]) == {"face-002"}

    os.rename(root / "skies", root / "people" / "skies")  # moved under another subfolder
    moved = wait_until(lambda: (lambda now: now if "Shoot/people/skies" in now else None)(
        folders(host, library_id)), "the folder to be moved")
    assert moved["Shoot/people/skies"]["id"] == made["Shoot/skies"]["id"]
    assert names_in(host, library_id, made["Shoot/skies"]["id"]) == {"sky-004", "sky-005"}

    os.rename(root / "people" / "old" / "old-003.png", root / "old-003.png")  # a file moved
    wait_until(lambda: "old-003" in names_in(host, library_id, made["Shoot"]["id"]),
               "the moved file's asset to follow")
    assert "Shoot/people/old" not in folders(host, library_id)  # emptied on disk: gone
    os.rename(root / "cover-001.png", root / "front.png")  # a file renamed
    wait_until(lambda: "front" in names_in(host, library_id, made["Shoot"]["id"]),
               "the renamed file's asset to follow")
    assert call(host, library_id, "asset.search")["total"] == asset_count  # none imported twice
    assert call(host, library_id, "trash.list")["total"] == 0


def test_a_refresh_without_the_watcher_sees_a_subfolder_moved(host, library_id, tmp_path):
    root = shoot(tmp_path)
    linked = call(host, library_id, "linked-folder.create", {
        "path": str(root), "rules": {"autoImport": False}})  # nobody watches: refresh only
    made = folders(host, library_id)
    os.rename(root / "skies", root / "faces" / "clouds")  # renamed and moved at once
    out = call(host, library_id, "linked-folder.refresh", {"linkedFolderId": linked["id"]})
    assert (out["added"], out["updated"]) == (2, 0)  # found again by content: no new assets
    now = folders(host, library_id)
    assert now["Shoot/faces/clouds"]["id"] == made["Shoot/skies"]["id"]  # the same folder
    assert "Shoot/skies" not in now
    assert names_in(host, library_id, made["Shoot/skies"]["id"]) == {"sky-004", "sky-005"}
    assert call(host, library_id, "asset.search")["total"] == 5


def test_a_vanished_folder_is_missing_at_once_and_comes_back(host, library_id, tmp_path):
    root = shoot(tmp_path)
    linked = call(host, library_id, "linked-folder.create", {"path": str(root)})
    away = tmp_path / "Elsewhere"
    os.rename(root, away)  # moved away (or a drive unplugged): no refresh asked for
    missing = wait_until(lambda: status_is(host, library_id, "missing"),
                         "the folder to show missing")
    assert missing["assetCount"] == 5  # its assets stay
    error = call_error(host, library_id, "linked-folder.refresh",
                       {"linkedFolderId": linked["id"]})
    assert error.code == "PATH_NOT_FOUND" and error.details["linkedFolderId"] == linked["id"]
    assert "reconnect" in error.message
    os.rename(away, root)  # back where it was
    back = wait_until(lambda: status_is(host, library_id, "connected"),
                      "the folder to come back")
    assert back["assetCount"] == 5
    out = call(host, library_id, "linked-folder.refresh", {"linkedFolderId": linked["id"]})
    assert (out["added"], out["missing"]) == (0, 0)
