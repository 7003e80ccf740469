"""`file.import` through a real worker: per-item results, de-dup, bad input, progress, cancel."""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from library.events import LibraryChanged, TaskProgress
from library.protocol import CallMeta
from library.schemas import AssetGetOut, AssetSearchOut, FileImportOut
from tests.library.factories import (
    TIMEOUT,
    call,
    call_error,
    make_file,
    make_image,
    make_images,
    stored_files,
)

CLAUDE = CallMeta(source="mcp", credential="claude-desktop", label="Claude Desktop via MCP")


def by_source(result: dict) -> dict[str, dict]:
    return {Path(item["sourcePath"]).name: item for item in result["items"]}


def test_imports_files_and_folders_recursively_into_the_content_store(host, library, sources):
    make_images(sources / "a", 3)
    make_image(sources / "a" / "deeper" / "photo.jpg", (120, 80), seed=99)
    make_file(sources / "a" / "notes.pdf", b"%PDF-1.4 not really")
    make_file(sources / "a" / ".hidden.png", b"skip me")
    single = make_image(sources / "single.PNG", seed=7)
    result = call(host, library["libraryId"], "file.import",
                  {"sourcePaths": [str(sources / "a"), str(single)], "tags": ["refs"]}, CLAUDE)
    FileImportOut.model_validate(result)
    assert (result["imported"], result["duplicates"], result["failed"]) == (6, 0, 0)
    items = by_source(result)
    hidden = items.pop(".hidden.png")  # every file of a folder gets an answer
    assert (hidden["status"], hidden["reason"], hidden["assetId"]) == ("skipped", "hidden", None)
    assert result["skipped"] == 1
    assert all(item["status"] == "imported" and item["assetId"] for item in items.values())
    folders = {f["name"]: f for f in call(host, library["libraryId"], "folder.list")["items"]}
    assert set(folders) == {"a", "deeper"} and folders["deeper"]["parentId"] == folders["a"]["id"]
    assert items["photo.jpg"]["folderId"] == folders["deeper"]["id"]
    assert items["notes.pdf"]["folderId"] == folders["a"]["id"]
    assert items["single.PNG"]["folderId"] is None  # a file given by itself: no folder

    got = AssetGetOut.model_validate(call(host, library["libraryId"], "asset.get", {
        "assetIds": [items["photo.jpg"]["assetId"], items["notes.pdf"]["assetId"],
                     items["single.PNG"]["assetId"]]}))
    photo, pdf, png = got.items
    assert (photo.kind, photo.ext, photo.width, photo.height, photo.format) == \
        ("image", "jpg", 120, 80, "JPEG")
    assert photo.mime == "image/jpeg" and photo.name == "photo" and photo.tags == ["refs"]
    assert (pdf.kind, pdf.width, pdf.format) == ("document", None, None)
    assert (png.ext, png.original_name) == ("png", "single.PNG")
    assert photo.added_by.label == "Claude Desktop via MCP"
    assert photo.added_by.credential == "claude-desktop" and photo.added_by.source == "mcp"

    data = (sources / "a" / "deeper" / "photo.jpg").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    stored = Path(library["path"]) / "files" / digest[:2] / f"{digest}.jpg"
    assert stored.read_bytes() == data and photo.sha256 == digest
    assert len(stored_files(Path(library["path"]))) == 6
    assert not list((Path(library["path"]) / ".staging").iterdir())


def test_duplicates_are_reported_with_the_existing_asset(host, library_id, sources):
    first, second = make_images(sources, 2)
    copy = make_file(sources / "copy of first.png", first.read_bytes())
    one = call(host, library_id, "file.import", {"sourcePaths": [str(first)]})
    original = one["items"][0]["assetId"]
    again = call(host, library_id, "file.import",
                 {"sourcePaths": [str(first), str(copy), str(second)]})
    items = by_source(again)
    assert items[first.name] == {**items[first.name], "status": "duplicate",
                                 "assetId": original}
    assert items[copy.name]["status"] == "duplicate"
    assert items[copy.name]["assetId"] == original
    assert items[second.name]["status"] == "imported"
    assert (again["imported"], again["duplicates"]) == (1, 2)
    twins = make_file(sources / "twin.png", second.read_bytes())
    same_run = call(host, library_id, "file.import",
                    {"sourcePaths": [str(make_image(sources / "new.png", seed=50)),
                                     str(make_file(sources / "new twin.png",
                                                   (sources / "new.png").read_bytes())),
                                     str(twins)]})
    items = by_source(same_run)
    assert items["new twin.png"]["status"] == "duplicate"
    assert items["new twin.png"]["assetId"] == items["new.png"]["assetId"]
    assert call(host, library_id, "asset.search")["total"] == 3


def test_bad_inputs_fail_per_item_and_never_the_whole_import(host, library, sources):
    good = make_image(sources / "good.png", seed=1)
    empty = make_file(sources / "empty.png", b"")
    truncated_body = make_image(sources / "cut body.jpg", (200, 150), seed=2)
    truncated_body.write_bytes(truncated_body.read_bytes()[:700])  # header intact
    truncated_header = make_file(sources / "cut header.jpg",
                                 make_image(sources / "tmp.jpg", seed=3).read_bytes()[:20])
    (sources / "tmp.jpg").unlink()
    fifo = sources / "a pipe.png"
    os.mkfifo(fifo)
    sock_path = sources / "sock.png"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    try:
        result = call(host, library["libraryId"], "file.import", {"sourcePaths": [
            str(good), str(empty), str(truncated_body), str(truncated_header), str(fifo),
            str(sock_path), str(sources / "missing.png"), "relative/path.png",
            str(Path(library["path"]) / "library.sqlite")]})
    finally:
        server.close()
    items = by_source(result)
    assert items["good.png"]["status"] == "imported"
    assert items["empty.png"]["errorCode"] == "UNSUPPORTED_FORMAT"
    assert "empty" in items["empty.png"]["error"]
    # A truncated JPEG is still the user's file: imported, with dimensions when the header
    # survived and without them when it did not.
    body = call(host, library["libraryId"], "asset.get",
                {"assetIds": [items["cut body.jpg"]["assetId"],
                              items["cut header.jpg"]["assetId"]]})["items"]
    assert (body[0]["width"], body[0]["height"]) == (200, 150)
    assert (body[1]["width"], body[1]["height"], body[1]["kind"]) == (None, None, "image")
    assert body[1]["problem"]["code"] == "damaged"  # and it says so, per item and on the asset
    assert body[1]["problem"]["message"].startswith("Damaged file")
    assert items["cut header.jpg"]["warning"].startswith("Damaged file")
    assert items["good.png"]["warning"] is None
    assert items["a pipe.png"]["errorCode"] == "UNSUPPORTED_FORMAT"
    assert items["sock.png"]["errorCode"] == "UNSUPPORTED_FORMAT"
    assert items["missing.png"]["errorCode"] == "PATH_NOT_FOUND"
    assert items["path.png"]["errorCode"] == "PATH_INVALID"
    assert items["library.sqlite"]["errorCode"] == "PATH_FORBIDDEN"
    assert (result["imported"], result["failed"]) == (3, 6)
    assert all(i["status"] == "failed" for i in result["items"] if i["errorCode"])
    assert not list((Path(library["path"]) / ".staging").iterdir())


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_fails_alone(host, library_id, sources):
    locked = make_image(sources / "locked.png", seed=4)
    locked.chmod(0)
    ok = make_image(sources / "ok.png", seed=5)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(locked), str(ok)]})
    items = by_source(result)
    assert items["locked.png"]["errorCode"] == "UNSUPPORTED_FORMAT"
    assert "permission" in items["locked.png"]["error"]
    assert items["ok.png"]["status"] == "imported"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")
def test_a_system_file_behind_a_link_fails_alone(host, library_id, sources):
    """/proc/self/mem (reads fail) and /proc/self/environ (the worker's environment, with
    whatever secrets it holds) are regular files to stat, but never a person's file."""
    broken = sources / "broken.png"
    broken.symlink_to("/proc/self/mem")
    environ = sources / "environ.txt"
    environ.symlink_to("/proc/self/environ")
    ok = make_image(sources / "ok.png", seed=5)
    result = call(host, library_id, "file.import",
                  {"sourcePaths": [str(broken), str(environ), str(ok)]})
    items = by_source(result)
    for name in ("broken.png", "environ.txt"):
        assert items[name]["errorCode"] == "PATH_FORBIDDEN"
        assert "System files" in items[name]["error"]
    assert items["ok.png"]["status"] == "imported"


def test_unicode_space_and_very_long_names(host, library_id, sources):
    long_stem = "長い名前 " * 18  # 90 characters, 234 UTF-8 bytes: near the 255 limit
    names = ["café au lait.png", "  spaced   out .png", "🎨 palette.png", f"{long_stem}.png"]
    paths = [make_image(sources / n, seed=i) for i, n in enumerate(names)]
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    assert result["imported"] == 4
    found = call(host, library_id, "asset.search", {"sort": "name-asc"})
    assert sorted(i["name"] for i in found["items"]) == sorted(
        ["café au lait", "spaced   out", "🎨 palette", long_stem.strip()])
    assert call(host, library_id, "asset.search", {"text": "CAFÉ"})["total"] == 1


def test_a_source_inside_a_library_is_forbidden_and_walks_skip_libraries(host, library,
                                                                          sources, tmp_path):
    library_id = library["libraryId"]
    make_images(sources, 2)
    error_result = call(host, library_id, "file.import",
                        {"sourcePaths": [str(Path(library["path"]) / "files")]})
    assert error_result["items"][0]["errorCode"] == "PATH_FORBIDDEN"
    assert error_result["imported"] == 0
    # Importing the folder that holds the library imports the images, never the library.
    outer = call(host, library_id, "file.import", {"sourcePaths": [str(tmp_path)]})
    [inside] = [i for i in outer["items"] if "Test Library.serpent" in i["sourcePath"]]
    assert (inside["status"], inside["reason"]) == ("skipped", "library")  # one item, not read
    assert inside["sourcePath"].endswith("Test Library.serpent")
    assert outer["imported"] == 2


def test_import_into_a_folder_and_unknown_folder(host, library_id, sources):
    folder = call(host, library_id, "folder.create", {"name": "Inbox"})
    make_images(sources, 2)
    call(host, library_id, "file.import",
         {"sourcePaths": [str(sources)], "folderId": folder["id"], "keepFolderTree": False})
    assert call(host, library_id, "asset.search", {"folderId": folder["id"]})["total"] == 2
    assert len(call(host, library_id, "folder.list")["items"]) == 1  # flattened: no new one
    error = call_error(host, library_id, "file.import",
                       {"sourcePaths": [str(sources)], "folderId": "fld_0000000000"})
    assert error.code == "NOT_FOUND" and error.details["field"] == "folderId"


def test_progress_events_and_change_notifications(host, library_id, sources, events):
    make_images(sources, 70)  # more than one batch
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False})
    assert result["imported"] == 70
    progress = [p for p in events.of(TaskProgress) if p.command == "file.import"]
    assert progress and progress[-1].done == progress[-1].total == 70
    assert all(p.request_id for p in progress)  # the call's own progress
    changes = [e for e in events.of(LibraryChanged) if e.command == "file.import"]
    assert len(changes) >= 2  # committed in batches
    assert sum(len(c.entity_ids) for c in changes) == 70
    assert [c.change_sequence for c in changes] == sorted(c.change_sequence for c in changes)
    assert host.change_sequence(library_id) == changes[-1].change_sequence
    search = AssetSearchOut.model_validate(call(host, library_id, "asset.search",
                                                {"limit": 500}))
    assert search.total == 70


def test_cancel_stops_an_import_and_keeps_what_was_committed(host, library, sources, events):
    library_id = library["libraryId"]
    make_images(sources, 400, size=(32, 32))
    future = host.call(library_id, "file.import", {"sourcePaths": [str(sources)]})
    events.wait_for(lambda e: isinstance(e, TaskProgress) and e.done >= 5)
    future.cancel_remote()
    result = future.result(TIMEOUT)
    assert result["cancelled"] is True
    assert 0 < result["imported"] < 400
    skipped = [i for i in result["items"] if i["status"] == "skipped"]
    assert skipped and all(i["errorCode"] == "CANCELLED" for i in skipped)
    # Everything reported imported is whole and searchable; nothing is half-written.
    total = call(host, library_id, "asset.search", {"limit": 1})["total"]
    assert total == result["imported"]
    assert len(stored_files(Path(library["path"]))) == total
    assert not list((Path(library["path"]) / ".staging").iterdir())


def test_a_long_import_is_a_task_that_task_cancel_stops(host, library, sources, events):
    """An import of many files shows as a task while it runs (task.get, the window's status
    bar), whoever started it; its events carry the caller's ticket (an MCP task follows it
    that way); task.cancel stops it like cancelling the call, and what it did stays."""
    library_id = library["libraryId"]
    make_images(sources, 400, size=(32, 32))
    meta = CLAUDE.model_copy(update={"ticket": "mcp-task-1"})
    future = host.call(library_id, "file.import", {"sourcePaths": [str(sources)]}, meta)
    first = events.wait_for(lambda e: isinstance(e, TaskProgress) and e.task_id is not None)
    assert first.ticket == "mcp-task-1" and first.total == 400
    task = call(host, library_id, "task.get", {"taskId": first.task_id})
    assert (task["kind"], task["status"], task["total"]) == ("import", "running", 400)
    events.wait_for(lambda e: isinstance(e, TaskProgress) and e.task_id == first.task_id
                    and e.done >= 5)
    call(host, library_id, "task.cancel", {"taskId": first.task_id})
    result = future.result(TIMEOUT)
    assert result["cancelled"] is True and 0 < result["imported"] < 400
    ended = call(host, library_id, "task.get", {"taskId": first.task_id})
    assert ended["status"] == "cancelled"
    assert ended["result"]["imported"] == result["imported"] == \
        call(host, library_id, "asset.search", {"limit": 1})["total"]


def test_a_short_import_is_no_task(host, library, sources):
    library_id = library["libraryId"]
    make_images(sources, 3, size=(32, 32))
    assert call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})["imported"] == 3
    assert not [t for t in call(host, library_id, "task.list")["items"] if t["kind"] == "import"]


def test_reads_answer_while_a_long_import_runs(host, library, sources, events):
    """The import is held by a condition the test controls, not by its size: another
    connection holds the database's write lock, so the import counts its files and then
    waits to record its task and them (SQLite's busy timeout is 30 s) until the test lets
    go."""
    library_id = library["libraryId"]
    make_images(sources, 100, size=(32, 32))
    blocker = sqlite3.connect(Path(library["path"]) / "library.sqlite", isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")  # what the import's first batch will wait for
        future = host.call(library_id, "file.import", {"sourcePaths": [str(sources)]})
        events.wait_for(lambda e: isinstance(e, TaskProgress) and e.total == 100)  # counted
        info = call(host, library_id, "library.info")  # answered by a reader thread meanwhile
        assert info["name"] == "Test Library" and info["assetCount"] == 0
        assert not future.done()  # provably: it cannot record anything while we hold the lock
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    result = future.result(TIMEOUT)
    assert result["imported"] == 100 and not result["cancelled"]
    assert call(host, library_id, "library.info")["assetCount"] == 100


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MB filesystem (tmpfs), for a library that runs out of space."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("mounting a small tmpfs needs root on Linux")
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount_point)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def test_a_full_disk_fails_clearly_and_keeps_what_was_committed(host, small_disk, sources):
    ref = host.create(small_disk, "Tiny").result(TIMEOUT)
    library_id = ref["libraryId"]
    small = make_image(sources / "small" / "small.png", seed=1)
    assert call(host, library_id, "file.import", {"sourcePaths": [str(small)]})["imported"] == 1
    big = make_file(sources / "big" / "big.bin", os.urandom(4 * 1024 * 1024))
    error = call_error(host, library_id, "file.import", {"sourcePaths": [str(big)]})
    assert error.code == "DISK_FULL"
    assert error.details["neededBytes"] > error.details["freeBytes"]
    assert call(host, library_id, "asset.search")["total"] == 1
    assert not list((Path(ref["path"]) / ".staging").iterdir())
    host.close(library_id).result(TIMEOUT)


def test_a_file_given_the_number_of_a_replaced_private_file_is_not_refused(
        tmp_path: Path) -> None:
    """Serpent's files are known by identity (device, inode), so a hard link of one is refused;
    once Serpent replaced that file, its old number is free and the system may give it to the
    next new file: a picture saved then is the person's, not Serpent's (the OCR test's poster,
    made just after the plugin settings were saved, was refused as PATH_FORBIDDEN)."""
    from library.private_paths import PrivateFolders

    private, pictures = tmp_path / "serpent data", tmp_path / "pictures"
    private.mkdir()
    pictures.mkdir()
    settings = private / "settings.json"
    settings.write_text("{}")
    seen = PrivateFolders([private])
    os.link(settings, pictures / "linked.png")
    assert seen.refusal(pictures / "linked.png") is not None  # Serpent's own file, linked
    os.unlink(pictures / "linked.png")
    # the old settings file leaves its place (here: its inode moves on to a picture, as a
    # freed number would), and a new settings file takes the place
    os.rename(settings, pictures / "poster.png")
    settings.write_text('{"new": true}')
    assert seen.refusal(pictures / "poster.png") is None
    assert seen.refusal(settings) is not None  # still inside Serpent's folder
    with open(pictures / "poster.png", "rb") as opened:
        assert seen.refusal(pictures / "poster.png", os.fstat(opened.fileno())) is None


def test_the_first_import_of_a_fresh_worker_finds_its_decoders_loaded() -> None:
    """A worker's warm-up (`@warm_up`, run before a library's first requests or by the spare
    worker) loads what the first import and its first preview would wait for: Pillow's
    common decoders and every format plugin a preview may be decoded from (~25 ms that the
    first preview of every library waited for). In a process of its own: the suite's may
    have loaded them already."""
    check = (
        "from PIL import Image\n"
        "from library.worker import commands\n"
        "commands.load()\n"
        "assert Image._initialized == 0, Image._initialized\n"
        "for prepare in commands.WARM_UPS:\n"
        "    prepare()\n"
        "assert Image._initialized == 2, Image._initialized\n")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[3])
    assert done.returncode == 0, done.stderr
