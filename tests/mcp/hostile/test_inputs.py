"""Hostile arguments through real MCP and a real worker: Serpent's own files are never
imported, a reused idempotency key never drops a write, caller text never forges a log line,
and odd archives, targets and paths get their stable codes at once."""

from __future__ import annotations

import logging
import os
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any

from mcp import Client

from serpent_tk.logs import setup_logging
from serpent_tk.mcp.endpoint import endpoint_file
from serpent_tk.paths import app_dirs
from tests.mcp.conftest import (
    Server,
    call,
    connect,
    create_library,
    error_code,
    make_images,
    ok,
    run,
)

RECORD_START = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")


async def import_paths(client: Client, library: str, paths: list[str]) -> dict[str, Any]:
    return await ok(client, "serpent_file_import", {"libraryId": library, "sourcePaths": paths})


def test_serpent_own_files_are_never_imported_whatever_leads_there(server: Server,
                                                                  tmp_path: Path) -> None:
    token = server.token()
    dirs = app_dirs()
    setup_logging(dirs.log)
    logging.getLogger("serpent.test").warning("a line, so the log file exists")
    for handler in logging.getLogger().handlers:
        handler.flush()
    picture = make_images(tmp_path / "pictures", 1)[0]
    tricks = tmp_path / "tricks"
    tricks.mkdir()
    (tricks / "creds.png").symlink_to(dirs.credentials_file)
    os.link(dirs.credentials_file, tricks / "hard-link.png")
    (tricks / "config").symlink_to(dirs.config, target_is_directory=True)
    server.credentials.create("Other")  # the store is rewritten: the hard link keeps the old
    (tricks / "copy.json").write_bytes(dirs.credentials_file.read_bytes())
    private = [str(dirs.credentials_file), str(dirs.settings_file), str(endpoint_file(dirs)),
               str(dirs.log / "serpent.log"), str(dirs.config), str(dirs.data),
               str(tricks / "creds.png"), str(tricks / "hard-link.png"),
               str(tricks / "copy.json"), str(tricks / "config" / "credentials.json"),
               str(tricks / "config"),
               f"{tricks}/../{dirs.config.parent.name}/config/./credentials.json"]

    async def scenario() -> None:
        async with connect(server.url, token) as client:
            library = await create_library(client, tmp_path / "libraries")
            result = await import_paths(client, library, [*private, str(picture)])
            by_path = {item["sourcePath"]: item for item in result["items"]}
            for path in private:
                assert by_path[path]["status"] == "failed", by_path[path]
                assert by_path[path]["errorCode"] == "PATH_FORBIDDEN", by_path[path]
            assert by_path[str(picture)]["status"] == "imported"
            assert result["imported"] == 1
            # a folder holding Serpent's folders: the walk never enters them
            around = await import_paths(client, library, [str(dirs.config.parent),
                                                          str(tricks)])
            assert around["imported"] == 0, around["items"]
            for item in around["items"]:  # refused, or skipped unread: a private folder
                # (PATH_FORBIDDEN too), a link to a folder, a hidden file
                assert item["status"] in ("failed", "skipped"), item
                assert item["errorCode"] == "PATH_FORBIDDEN" or (
                    item["status"] == "skipped" and item["reason"] in ("link", "hidden")), item
            assert await error_code(client, "serpent_linked_folder_create", {
                "libraryId": library, "path": str(tricks / "config")}) == "PATH_FORBIDDEN"
            assert await error_code(client, "serpent_library_import_exported", {
                "archivePath": str(dirs.credentials_file),
                "selectedParentPath": str(tmp_path)}) == "PATH_FORBIDDEN"
            info = await ok(client, "serpent_library_info", {"libraryId": library})
            assert info["assetCount"] == 1
            refreshed = await ok(client, "serpent_library_refresh", {"libraryId": library})
            assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0

    run(scenario())


def test_a_reused_idempotency_key_with_other_arguments_is_refused(server: Server,
                                                                 tmp_path: Path) -> None:
    token = server.token()
    picture = make_images(tmp_path / "pictures", 1)[0]

    async def scenario() -> None:
        async with connect(server.url, token) as client:
            library = await create_library(client, tmp_path / "libraries")
            asset = (await import_paths(client, library, [str(picture)]))["items"][0]["assetId"]
            update = {"libraryId": library, "assetId": asset, "idempotencyKey": "rename-1"}
            first = await ok(client, "serpent_asset_update", {**update, "name": "First"})
            envelope = await call(client, "serpent_asset_update", {**update, "name": "Second"})
            assert envelope["error"]["code"] == "INVALID_ARGUMENT"
            assert envelope["error"]["field"] == "idempotencyKey"
            assert '"rename-1"' in envelope["error"]["message"]
            again = await ok(client, "serpent_asset_update", {**update, "name": "First"})
            assert again == first  # the very same call: the first result, nothing twice
            other = await call(client, "serpent_folder_create", {
                "libraryId": library, "name": "Elsewhere", "idempotencyKey": "rename-1"})
            assert other["error"]["code"] == "INVALID_ARGUMENT"
            assert "asset.update" in other["error"]["message"]
            got = await ok(client, "serpent_asset_get", {"libraryId": library,
                                                         "assetIds": [asset]})
            assert got["items"][0]["name"] == "First"
            folders = await ok(client, "serpent_folder_list", {"libraryId": library})
            assert folders["items"] == []

    run(scenario())


def test_library_import_exported_with_a_key_never_makes_copies(server: Server,
                                                              tmp_path: Path) -> None:
    token = server.token()
    parent = tmp_path / "unpacked"
    parent.mkdir()

    def folders() -> list[str]:
        return sorted(p.name for p in parent.iterdir())

    async def scenario() -> None:
        async with connect(server.url, token) as client:
            library = await create_library(client, tmp_path / "libraries", "Moodboard")
            await ok(client, "serpent_library_export", {
                "libraryId": library, "targetPath": str(tmp_path / "board.zip")})
            args = {"archivePath": str(tmp_path / "board.zip"),
                    "selectedParentPath": str(parent), "idempotencyKey": "unpack-1"}
            first = await ok(client, "serpent_library_import_exported", args)
            again = await ok(client, "serpent_library_import_exported", args)
            assert again["libraryId"] == first["libraryId"] and folders() == ["Moodboard.serpent"]
            elsewhere = tmp_path / "elsewhere"
            elsewhere.mkdir()
            moved = await call(client, "serpent_library_import_exported", {
                **args, "selectedParentPath": str(elsewhere)})
            assert moved["error"]["code"] == "INVALID_ARGUMENT"
            assert '"unpack-1"' in moved["error"]["message"]
            assert list(elsewhere.iterdir()) == []
            # after a crash between the unpacking and the key map: the library itself knows
            app_dirs().import_keys_file.unlink()
            await ok(client, "serpent_library_close", {"libraryId": first["libraryId"]})
            reopened = await ok(client, "serpent_library_import_exported", args)
            assert reopened["libraryId"] == first["libraryId"]
            assert folders() == ["Moodboard.serpent"]
            fresh = await ok(client, "serpent_library_import_exported", {
                **args, "idempotencyKey": "unpack-2"})
            assert fresh["libraryId"] != first["libraryId"]
            assert folders() == ["Moodboard (copy).serpent", "Moodboard.serpent"]

    run(scenario())


def test_caller_text_never_forges_or_garbles_a_log_line(server: Server, tmp_path: Path) -> None:
    log_file = setup_logging(app_dirs().log)
    token = server.token()
    forged = ('lib_x\n2026-01-01 00:00:00,000 INFO    1 MainThread serpent.audit: call '
              'label="Evil via MCP" command=trash.empty outcome=ok')
    hostile_ids = [forged[:64], "lib_\x00\x1b[31mred\x1b[0m", "lib_\r\x85\u2028\u202e", forged]

    async def scenario() -> int:
        async with connect(server.url, token) as client:
            for library_id in hostile_ids:
                await call(client, "serpent_library_info", {"libraryId": library_id})
            await call(client, "serpent_folder_create", {"libraryId": "lib_\n", "name": "\x1b"})
        return len(hostile_ids) + 1

    calls = run(scenario())
    for handler in logging.getLogger().handlers:
        handler.flush()
    raw = log_file.read_bytes()
    assert b"\x00" not in raw and b"\x1b" not in raw and b"\r" not in raw
    text = raw.decode("utf-8")
    lines = text.splitlines()
    assert all(RECORD_START.match(line) or line.startswith("    | ") for line in lines), [
        line for line in lines if not RECORD_START.match(line)]
    audit = [line for line in lines if " serpent.audit: " in line]
    assert len(audit) == calls
    assert not any('label="Evil via MCP"' in line.split("library=")[0] for line in audit)
    assert "\\n2026-01-01" in text and "\\u001b[31m" in text and "\\u2028" in text


def _zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names we want
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members:
                archive.writestr(zipfile.ZipInfo(name), data)
    return path


def _patched(path: Path, field: str, value: int) -> Path:
    """Rewrite every entry's general-purpose flags or compression method (local and
    central headers), as a hand-made or hostile archive has them."""
    offsets = {"flags": (6, 8), "method": (8, 10)}[field]
    data = bytearray(path.read_bytes())
    for signature, offset in zip((b"PK\x03\x04", b"PK\x01\x02"), offsets, strict=True):
        start = data.find(signature)
        while start != -1:
            data[start + offset:start + offset + 2] = value.to_bytes(2, "little")
            start = data.find(signature, start + 4)
    path.write_bytes(bytes(data))
    return path


def test_odd_archives_targets_and_paths_get_their_stable_codes(server: Server,
                                                              tmp_path: Path) -> None:
    token = server.token()
    parent = tmp_path / "unpacked"
    parent.mkdir()
    database = ("Lib.serpent/library.sqlite", b"SQLite format 3\x00")
    archives = {
        "encrypted": _patched(_zip(tmp_path / "encrypted.zip", [database]), "flags", 0x1),
        "compression": _patched(_zip(tmp_path / "method.zip", [database]), "method", 99),
        "duplicate-entry": _zip(tmp_path / "twice.zip", [database, database]),
        "file-folder-clash": _zip(tmp_path / "clash.zip", [
            database, ("Lib.serpent/files/ab", b"x"), ("Lib.serpent/files/ab/c.png", b"y")]),
    }
    fifo = tmp_path / "pipe.zip"
    os.mkfifo(fifo)
    loop = tmp_path / "loop-a"  # a loop of links (found by the fuzz: library.open was INTERNAL)
    loop.symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(loop)

    async def scenario() -> None:
        async with connect(server.url, token) as client:
            for reason, archive in archives.items():
                envelope = await call(client, "serpent_library_import_exported", {
                    "archivePath": str(archive), "selectedParentPath": str(parent)})
                assert envelope["error"]["code"] == "UNSUPPORTED_FORMAT", envelope
                assert envelope["error"]["reason"] == reason, envelope
            assert list(parent.iterdir()) == []  # refused before anything was written
            library = await create_library(client, tmp_path / "libraries")
            for target, code in (("/proc/self/x.zip", "PATH_FORBIDDEN"),
                                 ("/dev/null", "PATH_FORBIDDEN"), ("/sys", "PATH_FORBIDDEN"),
                                 (str(fifo), "ALREADY_EXISTS"),
                                 (str(tmp_path / "bad\nname.zip"), "PATH_INVALID")):
                assert await error_code(client, "serpent_library_export", {
                    "libraryId": library, "targetPath": target}) == code, target
            assert await error_code(client, "serpent_library_import_exported", {
                "archivePath": str(fifo), "selectedParentPath": str(parent)}) == \
                "UNSUPPORTED_FORMAT"
            for tool, args in (
                    ("serpent_library_open", {"path": str(loop)}),
                    ("serpent_library_create", {"selectedParentPath": str(loop),
                                                "name": "X"}),
                    ("serpent_library_import_exported", {"archivePath": str(loop),
                                                         "selectedParentPath": str(parent)}),
                    ("serpent_linked_folder_create", {"libraryId": library,
                                                      "path": str(loop)})):
                envelope = await call(client, tool, args)
                assert envelope.get("error", {}).get("code") in (
                    "PATH_NOT_FOUND", "PATH_INVALID"), (tool, envelope)
            for tool, args in (
                    ("serpent_library_open", {"path": "/tmp/a\x00b.serpent"}),
                    ("serpent_library_create", {"selectedParentPath": "/tmp/\x00",
                                                "name": "X"}),
                    ("serpent_library_import_exported", {"archivePath": "/tmp/a\x00.zip",
                                                         "selectedParentPath": str(parent)})):
                assert await error_code(client, tool, args) == "PATH_INVALID", tool

    run(scenario())


def test_a_parent_folder_spelled_through_a_link_and_dotdot_is_taken_where_it_really_is(
        server: Server, tmp_path: Path) -> None:
    """`link/..` is the link target's parent for the kernel but not for SQLite, which reads
    paths itself (found by the fuzz: `special/../../..` above / was INTERNAL)."""
    (tmp_path / "deep" / "inside").mkdir(parents=True)
    (tmp_path / "deep" / "shelf").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "deep" / "inside")
    tricky = f"{tmp_path}/link/../shelf"  # the kernel: deep/shelf; read as text: tmp/shelf
    token = server.token()

    async def scenario() -> None:
        async with connect(server.url, token) as client:
            made = await ok(client, "serpent_library_create",
                            {"selectedParentPath": tricky, "name": "Through"})
            assert made["path"] == str(tmp_path / "deep" / "shelf" / "Through.serpent")
            await ok(client, "serpent_library_export", {
                "libraryId": made["libraryId"], "targetPath": str(tmp_path / "t.zip")})
            unpacked = await ok(client, "serpent_library_import_exported", {
                "archivePath": str(tmp_path / "t.zip"), "selectedParentPath": tricky})
            assert unpacked["path"] == str(tmp_path / "deep" / "shelf" /
                                           "Through (copy).serpent")

    run(scenario())
