"""Linked folders through a real worker: the rules, refresh of new / changed / deleted files,
the watcher importing what appears, rules changes, reconnecting a moved folder, unlinking,
bad input, and a crash in the middle of a sync."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

from library.events import LibraryChanged, TaskProgress, WorkerRestarted
from tests.library.factories import TIMEOUT, call, call_error, make_file
from tests.library.pictures import picture, save_pictures
from tests.waiting import wait_until


def in_folder(host, library_id, folder_id, *, subfolders: bool = True) -> dict[str, dict]:
    found = call(host, library_id, "asset.search", {"folderId": folder_id, "limit": 500,
                                                    "includeSubfolders": subfolders})
    return {a["name"]: a for a in found["items"]}


def disk_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "Game Art"
    save_pictures(folder, [1, 2], prefix="hero")
    save_pictures(folder / "props", [3])
    save_pictures(folder / "old", [4])
    make_file(folder / "notes.txt", b"todo")
    picture(5).save(folder / ".hidden.png")
    return folder


def test_link_refresh_and_what_changed_on_disk(host, library_id, tmp_path):
    folder = disk_folder(tmp_path)
    linked = call(host, library_id, "linked-folder.create", {
        "path": str(folder), "rules": {"include": ["*.png"], "exclude": ["*/old/*"],
                                       "autoImport": False}})
    assert linked["status"] == "connected" and linked["assetCount"] == 3
    assert linked["id"].startswith("lnk_") and linked["version"] == 1
    assert linked["rules"]["include"] == ["*.png"] and linked["lastRefreshedAt"]
    folders = {f["name"]: f for f in call(host, library_id, "folder.list")["items"]}
    assert set(folders) == {"Game Art", "props"}  # "old" holds nothing the rules take
    assert folders["Game Art"]["id"] == linked["folderId"]
    assert folders["props"]["parentId"] == linked["folderId"]  # the disk subfolder, mirrored
    assets = in_folder(host, library_id, linked["folderId"])
    assert sorted(assets) == ["hero-001", "hero-002", "pic-003"]
    assert sorted(in_folder(host, library_id, folders["props"]["id"])) == ["pic-003"]
    assert sorted(in_folder(host, library_id, linked["folderId"], subfolders=False)) == [
        "hero-001", "hero-002"]
    assert all(not (folder / name).is_symlink() for name in os.listdir(folder))  # untouched

    nothing = call(host, library_id, "linked-folder.refresh", {"linkedFolderId": linked["id"]})
    assert (nothing["added"], nothing["updated"], nothing["missing"]) == (0, 0, 0)

    call(host, library_id, "asset.tag", {"assetIds": [assets["hero-001"]["id"]],
                                         "tags": ["keeper"]})
    call(host, library_id, "asset.update", {"assetId": assets["hero-001"]["id"], "rating": 4})
    picture(11).save(folder / "hero-001.png")  # changed content
    os.utime(folder / "hero-001.png", ns=(1, 1))
    (folder / "hero-002.png").unlink()  # deleted on disk
    save_pictures(folder, [6], prefix="new")  # added
    out = call(host, library_id, "linked-folder.refresh", {"linkedFolderId": linked["id"]})
    assert (out["added"], out["updated"], out["missing"], out["failed"]) == (1, 1, 1, 0)
    assert out["linkedFolder"]["assetCount"] == 3
    now = in_folder(host, library_id, linked["folderId"])
    assert sorted(now) == ["hero-001", "hero-002", "new-006", "pic-003"]
    renewed = now["hero-001"]
    assert renewed["id"] != assets["hero-001"]["id"]
    assert renewed["tags"] == ["keeper"] and renewed["rating"] == 4  # carried over
    old = call(host, library_id, "asset.get", {"assetIds": [assets["hero-001"]["id"]]})
    assert old["items"][0]["trashed"] is True  # restorable, not gone
    assert now["hero-002"]["trashed"] is False  # deleted on disk: the copy stays


def test_content_already_in_the_library_is_linked_not_copied_again(host, library_id,
                                                                   tmp_path, sources):
    [existing] = save_pictures(sources, [7])
    before = call(host, library_id, "file.import", {"sourcePaths": [str(existing)]})
    asset_id = before["items"][0]["assetId"]
    folder = tmp_path / "Linked"
    save_pictures(folder, [7, 8])
    linked = call(host, library_id, "linked-folder.create", {"path": str(folder)})
    assets = in_folder(host, library_id, linked["folderId"])
    assert asset_id in {a["id"] for a in assets.values()} and len(assets) == 2
    assert call(host, library_id, "asset.search")["total"] == 2 + 0  # one new asset only


def test_the_watcher_imports_new_files(host, library_id, events, tmp_path):
    folder = tmp_path / "Inbox"
    save_pictures(folder, [9])
    linked = call(host, library_id, "linked-folder.create", {"path": str(folder)})
    save_pictures(folder, [10, 12], prefix="dropped")
    names = wait_until(lambda: (lambda found: found if len(found) == 3 else None)(
        in_folder(host, library_id, linked["folderId"])), "the watcher's import")
    assert sorted(names) == ["dropped-010", "dropped-012", "pic-009"]
    kinds = wait_until(lambda: (lambda tasks: tasks if tasks[:2] == ["analysis",
                                                                   "linked-folder-sync"]
                                 else None)(
        [t["kind"] for t in call(host, library_id, "task.list", {"status": ["done"]})[
            "items"]]), "the new files' analysis")  # the watcher's sync, then the analysis
    assert len(kinds) <= 4  # our own reading of the files never sets the watcher off again
    # the watcher's changes are recorded as its sync's, never as a command's call
    synced = [e for e in events.of(LibraryChanged) if e.task_kind == "linked-folder-sync"]
    assert any("asset" in e.kinds for e in synced)
    assert {e.command for e in events.of(LibraryChanged) if e.task_kind} == {""}
    unlinked = call(host, library_id, "linked-folder.unlink", {"linkedFolderId": linked["id"],
                                                               "keepAssets": False})
    assert unlinked["id"] == linked["id"]
    assert call(host, library_id, "asset.search", {"folderId": linked["folderId"]})[
        "total"] == 0  # all three in the trash now
    assert call(host, library_id, "trash.list")["total"] == 3
    assert call_error(host, library_id, "linked-folder.refresh",
                      {"linkedFolderId": linked["id"]}).code == "NOT_FOUND"
    save_pictures(folder, [13], prefix="late")
    again = call(host, library_id, "linked-folder.create", {"path": str(folder)})
    assert again["assetCount"] == 1  # the new file; the others' assets stay in the trash
    assert call(host, library_id, "trash.list")["total"] == 3


def test_rules_change_and_a_moved_folder_is_reconnected(host, library_id, tmp_path):
    folder = tmp_path / "Refs"
    save_pictures(folder, [14])
    picture(15).save(folder / "photo.jpg")
    linked = call(host, library_id, "linked-folder.create", {
        "path": str(folder), "rules": {"kinds": ["image"], "include": ["*.png"],
                                       "autoImport": False}})
    assert linked["assetCount"] == 1
    conflict = call_error(host, library_id, "linked-folder.update-rules", {
        "linkedFolderId": linked["id"], "rules": {}, "expectedVersion": 7})
    assert conflict.code == "VERSION_CONFLICT" and conflict.details["currentVersion"] == 1
    wider = call(host, library_id, "linked-folder.update-rules", {
        "linkedFolderId": linked["id"], "rules": {"include": ["*.png", "*.JPG"],
                                                  "autoImport": False},
        "expectedVersion": 1})
    assert wider["assetCount"] == 2 and wider["version"] == 2

    moved = tmp_path / "Moved Refs"
    folder.rename(moved)
    gone = call_error(host, library_id, "linked-folder.refresh",
                      {"linkedFolderId": linked["id"]})
    assert gone.code == "PATH_NOT_FOUND" and gone.details["linkedFolderId"] == linked["id"]
    [missing] = call(host, library_id, "linked-folder.list")["items"]
    assert missing["status"] == "missing" and missing["version"] == 3
    assert missing["assetCount"] == 2  # the copies stay
    back = call(host, library_id, "linked-folder.reconnect", {"linkedFolderId": linked["id"],
                                                              "path": str(moved)})
    assert back["status"] == "connected" and back["path"] == str(moved)
    assert back["assetCount"] == 2 and back["version"] == 4
    assert call(host, library_id, "asset.search")["total"] == 2  # nothing imported again
    kept = call(host, library_id, "linked-folder.unlink", {"linkedFolderId": linked["id"]})
    assert kept["assetCount"] == 2 and call(host, library_id, "asset.search")["total"] == 2


def test_bad_input_gets_stable_codes(host, library, library_id, tmp_path):
    folder = tmp_path / "Once"
    folder.mkdir()
    call(host, library_id, "linked-folder.create", {"path": str(folder)})
    file = make_file(tmp_path / "file.png", b"x")
    cases = {
        str(tmp_path / "nowhere"): "PATH_NOT_FOUND",
        str(file): "PATH_INVALID",
        "relative/folder": "PATH_INVALID",
        str(Path(library["path"]) / "files"): "PATH_FORBIDDEN",
        str(folder): "ALREADY_EXISTS",
        str(tmp_path): "ALREADY_EXISTS",  # around a linked folder
    }
    for path, code in cases.items():
        assert call_error(host, library_id, "linked-folder.create",
                          {"path": path}).code == code, path
    assert call_error(host, library_id, "linked-folder.create", {
        "path": str(tmp_path / "nowhere"), "parentId": "fld_0000000000zzzz"}).code in (
        "PATH_NOT_FOUND", "NOT_FOUND")
    other = tmp_path / "Other"
    other.mkdir()
    assert call_error(host, library_id, "linked-folder.create", {
        "path": str(other), "parentId": "fld_0000000000zzzz"}).code == "NOT_FOUND"
    unknown = "lnk_0000000000zzzzzzzzzzzzzzzz"
    for command, extra in (("linked-folder.refresh", {}), ("linked-folder.unlink", {}),
                           ("linked-folder.reconnect", {"path": str(other)}),
                           ("linked-folder.update-rules", {"rules": {}})):
        assert call_error(host, library_id, command,
                          {"linkedFolderId": unknown, **extra}).code == "NOT_FOUND"
    assert call_error(host, library_id, "linked-folder.create", {
        "path": str(other), "rules": {"include": [""]}}).code == "INVALID_ARGUMENT"
    assert len(call(host, library_id, "folder.list")["items"]) == 1  # nothing half-made


def test_a_crash_mid_sync_loses_nothing_and_copies_nothing_twice(host, library, events,
                                                                 tmp_path):
    library_id, root = library["libraryId"], Path(library["path"])
    folder = tmp_path / "Big"
    save_pictures(folder, list(range(100, 160)), size=(400, 300))
    for index in range(60):
        make_file(folder / f"blob-{index}.bin", os.urandom(200_000))
    running = host.call(library_id, "linked-folder.create", {
        "path": str(folder), "rules": {"autoImport": False}})
    wait_until(lambda: any(e.command == "linked-folder.create" and e.done >= 32
                           for e in events.of(TaskProgress)), "a first batch")
    os.kill(host.worker_pid(library_id), signal.SIGKILL)
    linked = running.result(TIMEOUT)  # sent again with its request id: the link goes on
    assert linked["assetCount"] == 120
    wait_until(lambda: events.of(WorkerRestarted), "the restart")
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        assert db.execute("SELECT id FROM linked_folders").fetchall() == [(linked["id"],)]
    finally:
        db.close()
    out = call(host, library_id, "linked-folder.refresh", {"linkedFolderId": linked["id"]})
    assert out["linkedFolder"]["assetCount"] == 120 and out["failed"] == 0
    assert out["added"] == 0  # nothing left to copy
    steps = [e for e in call(host, library_id, "history.list")["items"]
             if e["command"] == "linked-folder.create"]
    assert len(steps) == 1  # one link, one undo step
    assert call(host, library_id, "asset.search")["total"] == 120  # each file once
    stored = {p.name for p in (root / "files").rglob("*") if p.is_file()}
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        rows = {f"{sha}.{ext}" for sha, ext in db.execute("SELECT sha256, ext FROM assets")}
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    assert stored == rows  # no orphan left in the store, no record without its file
