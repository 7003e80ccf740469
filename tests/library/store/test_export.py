"""`library.export` and unpacking an exported archive (`LibraryHost.import_exported`) through
real workers: the round trip opens beside the original with the same assets and a new id;
bad targets and unsafe archives are refused and leave nothing behind; a crash mid-export
leaves no archive under the real name and no partial file."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import stat
import zipfile
from pathlib import Path

import pytest

from library.errors import LibraryError
from library.events import WorkerRestarted
from tests.library.factories import TIMEOUT, call, call_error, make_file, make_images
from tests.library.pictures import FINISHED, save_pictures
from tests.waiting import wait_until


def test_export_then_import_opens_a_copy_beside_the_original(host, library, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    paths = save_pictures(sources, [1, 2, 3]) + [make_file(sources / "brief.pdf", b"%PDF-1")]
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths],
                                                     "tags": ["refs"]})
    ids = [i["assetId"] for i in result["items"]]
    folder = call(host, library_id, "folder.create", {"name": "Moodboard"})
    call(host, library_id, "asset.move", {"assetIds": ids[:2], "folderId": folder["id"]})
    call(host, library_id, "asset.update", {"assetId": ids[0], "notes": "the good one",
                                            "rating": 5})
    call(host, library_id, "asset.thumbnail", {"assetId": ids[0]})
    outside = root.parent / "exports"
    outside.mkdir()

    out = call(host, library_id, "library.export", {"targetPath": str(outside)})
    archive = outside / "Test Library.zip"
    assert out["path"] == str(archive) and out["assetCount"] == 4
    assert out["bytes"] == archive.stat().st_size and out["files"] >= 6
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        assert opened.testzip() is None
        manifest = json.loads(opened.read("serpent-export.json"))
    assert manifest["libraryId"] == library_id and manifest["name"] == "Test Library"
    assert "Test Library.serpent/library.sqlite" in names
    assert not [n for n in names if n.endswith(("-wal", "-shm", ".lock")) or "/.staging" in n
                or "/thumbs/.tmp" in n]
    assert sum(n.startswith("Test Library.serpent/files/") for n in names) == 4
    assert [p.name for p in outside.iterdir()] == ["Test Library.zip"]  # no partial file
    assert call(host, library_id, "task.get", {"taskId": out["taskId"]})["status"] == "done"

    copy = host.import_exported(str(archive), str(root.parent)).result(TIMEOUT)
    assert copy["libraryId"] != library_id and copy["name"] == "Test Library"
    assert Path(copy["path"]).name == "Test Library (copy).serpent"
    assert {r["libraryId"] for r in host.list_open()} == {library_id, copy["libraryId"]}
    original = call(host, library_id, "asset.search", {"sort": "name-asc"})
    copied = call(host, copy["libraryId"], "asset.search", {"sort": "name-asc"})
    keys = ("id", "name", "tags", "folderIds", "rating", "size", "version")
    assert [{k: a[k] for k in keys} for a in copied["items"]] == \
        [{k: a[k] for k in keys} for a in original["items"]]
    assert call(host, copy["libraryId"], "asset.get", {"assetIds": [ids[0]]})["items"][0][
        "notes"] == "the good one"
    assert call(host, copy["libraryId"], "folder.list")["items"][0]["name"] == "Moodboard"
    # the copy is a library of its own: changing it leaves the original alone
    call(host, copy["libraryId"], "asset.trash", {"assetIds": [ids[1]]})
    assert call(host, library_id, "asset.search")["total"] == 4

    again = host.import_exported(str(archive), str(root.parent)).result(TIMEOUT)
    assert Path(again["path"]).name == "Test Library (copy 2).serpent"
    assert not [p for p in root.parent.iterdir() if p.name.startswith(".")]


def test_export_refuses_bad_targets_and_writes_nothing(host, library, tmp_path):
    library_id, root = library["libraryId"], Path(library["path"])
    taken = make_file(tmp_path / "taken.zip", b"mine")
    cases = {
        str(root / "inside.zip"): "PATH_FORBIDDEN",
        str(root / "files"): "PATH_FORBIDDEN",
        str(taken): "ALREADY_EXISTS",
        str(tmp_path / "nowhere" / "x.zip"): "PATH_NOT_FOUND",
        "relative/x.zip": "PATH_INVALID",
    }
    for target, code in cases.items():
        error = call_error(host, library_id, "library.export", {"targetPath": target})
        assert error.code == code, (target, error)
    assert taken.read_bytes() == b"mine"
    assert not (root / "inside.zip").exists()
    assert call(host, library_id, "task.list")["items"] == []
    # no extension: .zip is added
    out = call(host, library_id, "library.export", {"targetPath": str(tmp_path / "backup")})
    assert out["path"] == str(tmp_path / "backup.zip")


def zip_with(path: Path, members: dict[str, bytes], *, link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return path


def test_unsafe_or_foreign_archives_are_refused_and_leave_nothing(host, library, tmp_path):
    parent = tmp_path / "unpack"
    parent.mkdir()
    db = b"SQLite format 3\x00" + bytes(100)
    cases = {
        "slip": (zip_with(tmp_path / "slip.zip", {"Evil.serpent/library.sqlite": db,
                                                  "Evil.serpent/../../escaped.txt": b"x"}),
                 "PATH_FORBIDDEN"),
        "absolute": (zip_with(tmp_path / "abs.zip", {"Evil.serpent/library.sqlite": db,
                                                     "/tmp/absolute.txt": b"x"}),
                     "PATH_FORBIDDEN"),
        "backslash": (zip_with(tmp_path / "win.zip", {"Evil.serpent/library.sqlite": db,
                                                      "Evil.serpent\\..\\x.txt": b"x"}),
                      "PATH_FORBIDDEN"),
        "link": (zip_with(tmp_path / "link.zip", {"Evil.serpent/library.sqlite": db},
                          link="Evil.serpent/files/passwd"), "PATH_FORBIDDEN"),
        "foreign": (zip_with(tmp_path / "photos.zip", {"holiday/a.jpg": b"x"}),
                    "UNSUPPORTED_FORMAT"),
        "fake database": (zip_with(tmp_path / "fake.zip", {"Fake.serpent/library.sqlite":
                                                           b"not a database at all" * 50}),
                          "UNSUPPORTED_FORMAT"),
        "not a zip": (make_file(tmp_path / "notes.zip", b"just text"), "UNSUPPORTED_FORMAT"),
        "missing": (tmp_path / "gone.zip", "PATH_NOT_FOUND"),
    }
    for label, (archive, code) in cases.items():
        error = host.import_exported(str(archive), str(parent)).exception(TIMEOUT)
        assert isinstance(error, LibraryError) and error.code == code, (label, error)
        assert list(parent.iterdir()) == [], label  # nothing unpacked, no hidden leftovers
    assert not (tmp_path / "escaped.txt").exists() and not Path("/tmp/absolute.txt").exists()
    inside = Path(library["path"]) / "files"
    error = host.import_exported(str(cases["foreign"][0]), str(inside)).exception(TIMEOUT)
    assert error.code == "PATH_FORBIDDEN"
    assert host.list_open() == [library]  # only the original is open


def test_a_crash_mid_export_leaves_no_archive_and_no_partial_file(host, library, events,
                                                                  sources, tmp_path):
    library_id = library["libraryId"]
    make_images(sources, 40, size=(600, 400))
    for index in range(40):  # bulky, incompressible files: the export takes a moment
        make_file(sources / f"noise-{index}.bin", os.urandom(400_000))
    call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    target = tmp_path / "out" / "backup.zip"
    target.parent.mkdir()
    running = host.call(library_id, "library.export", {"targetPath": str(target)})
    task = wait_until(lambda: call(host, library_id, "task.list", {"status": ["running"]})[
        "items"], "the export task")[0]
    os.kill(host.worker_pid(library_id), signal.SIGKILL)
    wait_until(lambda: events.of(WorkerRestarted), "the restart")
    # the call is sent to the restarted worker with its request id: it writes the archive
    # (again, if the killed one had not finished it), or answers the one it wrote
    assert running.result(TIMEOUT)["path"] == str(target)
    after = call(host, library_id, "task.get", {"taskId": task["id"]})
    assert after["status"] in FINISHED  # the killed run's task: interrupted (or done)
    with zipfile.ZipFile(target) as archive:
        assert archive.testzip() is None
    assert [p.name for p in target.parent.iterdir()] == ["backup.zip"]  # no partial file


def test_an_archive_from_a_newer_serpent_is_refused_before_it_lands(host, library, tmp_path):
    library_id = library["libraryId"]
    archive = Path(call(host, library_id, "library.export",
                        {"targetPath": str(tmp_path / "a.zip")})["path"])
    database = tmp_path / "library.sqlite"
    with zipfile.ZipFile(archive) as opened:
        database.write_bytes(opened.read("Test Library.serpent/library.sqlite"))
    db = sqlite3.connect(database)
    db.execute("INSERT INTO schema_migrations VALUES (99, 9, 'from the future', 'later')")
    db.commit()
    db.close()
    newer = tmp_path / "newer.zip"
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(newer, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("/library.sqlite"):
                data = database.read_bytes()
            target.writestr(info, data)
    parent = tmp_path / "unpack"
    parent.mkdir()
    error = host.import_exported(str(newer), str(parent)).exception(TIMEOUT)
    assert error.code == "UNSUPPORTED_FORMAT" and error.details["reason"] == "newer-schema"
    assert list(parent.iterdir()) == []


@pytest.mark.parametrize("name", ["x.serpent/../library.sqlite", "C:/Windows/x", "./x"])
def test_member_names_are_checked_before_anything_is_written(name: str) -> None:
    from library.worker.store import unpacking as archive_module

    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as writer:
        writer.writestr("Lib.serpent/library.sqlite", b"")
        writer.writestr(name, b"")
    with zipfile.ZipFile(data) as reader, pytest.raises(LibraryError) as caught:
        archive_module._checked_members(reader)
    assert caught.value.code == "PATH_FORBIDDEN"
