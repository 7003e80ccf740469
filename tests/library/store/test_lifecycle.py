"""Creating, opening, closing and refusing libraries, through real worker subprocesses."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from library.client import LibraryHost
from library.errors import LibraryError
from library.events import LibraryChanged, LibraryClosed
from library.protocol import CallMeta
from library.schemas import Actor
from library.worker.store.schema import LATEST, MIGRATIONS
from tests.library.factories import TIMEOUT, call, call_error, make_images, read_only


def test_create_makes_the_portable_folder_and_opens_it(host, tmp_path):
    ref = host.create(tmp_path, "Mood boards").result(TIMEOUT)
    root = tmp_path / "Mood boards.serpent"
    assert ref == {"libraryId": ref["libraryId"], "name": "Mood boards", "path": str(root),
                   "open": True}
    assert ref["libraryId"].startswith("lib_")
    for name in ("library.sqlite", "files", "thumbs", ".staging", ".orphans", ".lock"):
        assert (root / name).exists(), name
    buckets = sorted((root / "files").iterdir())  # an import never makes a folder
    assert [b.name for b in buckets] == [f"{n:02x}" for n in range(256)]
    assert all(b.is_dir() and not list(b.iterdir()) for b in buckets)
    assert host.list_open() == [ref]
    assert not list(tmp_path.glob(".*creating*"))  # built aside, renamed into place


def test_database_is_wal_with_foreign_keys_and_recorded_migrations(host, library):
    call(host, library["libraryId"], "library.info")
    db = sqlite3.connect(Path(library["path"]) / "library.sqlite")
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        migrations = db.execute("SELECT number, major FROM schema_migrations "
                                "ORDER BY number").fetchall()
        assert migrations == [(m.number, m.major) for m in MIGRATIONS]
        assert migrations[0] == (1, 1)
        assert db.execute("SELECT library_id FROM library_state").fetchone()[0] == \
            library["libraryId"]
    finally:
        db.close()


def test_info_rename_and_change_sequence(host, library_id, events):
    info = call(host, library_id, "library.info")
    assert info["name"] == "Test Library" and info["assetCount"] == 0
    assert info["changeSequence"] == 0 and info["schemaVersion"] == LATEST
    renamed = call(host, library_id, "library.rename", {"name": "Refs 2026"},
                   CallMeta(source="mcp", label="Claude via MCP"))
    assert renamed["name"] == "Refs 2026"
    assert call(host, library_id, "library.change-sequence") == {"changeSequence": 1}
    assert host.change_sequence(library_id) == 1
    assert host.list_open()[0]["name"] == "Refs 2026"
    changed = events.wait_for(lambda e: isinstance(e, LibraryChanged))
    assert changed.command == "library.rename" and changed.change_sequence == 1
    assert changed.actor == Actor(source="mcp", credential=None, label="Claude via MCP")


def test_library_id_is_stable_across_reopen_and_open_twice_is_the_same(host, library, events):
    library_id = library["libraryId"]
    assert host.open(library["path"]).result(TIMEOUT)["libraryId"] == library_id
    host.close(library_id).result(TIMEOUT)
    events.wait_for(lambda e: isinstance(e, LibraryClosed) and e.reason == "closed")
    assert host.list_open() == []
    assert call_error(host, library_id, "library.info").code == "LIBRARY_NOT_OPEN"
    again = host.open(library["path"]).result(TIMEOUT)
    assert again["libraryId"] == library_id


def test_unknown_library_id(host):
    assert call_error(host, "lib_doesnotexist00", "library.info").code == "LIBRARY_NOT_FOUND"


def test_a_second_app_on_the_same_library_is_refused(library):
    other = LibraryHost()
    try:
        error = other.open(library["path"]).exception(TIMEOUT)
        assert isinstance(error, LibraryError)
        assert error.code == "BUSY" and error.details["reason"] == "locked"
        assert "already open" in error.message
    finally:
        other.shutdown()


@pytest.mark.parametrize("name,code", [
    ("", "PATH_INVALID"), ("a/b", "PATH_INVALID"), ("CON", "PATH_INVALID"),
    ("trailing.", "PATH_INVALID"), ("x" * 300, "PATH_INVALID")])
def test_create_refuses_bad_names(host, tmp_path, name, code):
    parent = tmp_path / "parent"
    parent.mkdir()
    error = host.create(parent, name).exception(TIMEOUT)
    assert isinstance(error, LibraryError) and error.code == code
    assert error.details.get("field") == "name"
    assert not list(parent.iterdir())


def test_create_with_unicode_and_spaces(host, tmp_path):
    ref = host.create(tmp_path, "  Références 参考 🎨 ").result(TIMEOUT)
    assert ref["name"] == "Références 参考 🎨"
    assert (tmp_path / "Références 参考 🎨.serpent" / "library.sqlite").is_file()


def test_create_refuses_existing_missing_parent_and_inside_a_library(host, tmp_path, library):
    error = host.create(tmp_path / "libraries", "Test Library").exception(TIMEOUT)
    assert error.code == "ALREADY_EXISTS"
    error = host.create(tmp_path / "nope", "X").exception(TIMEOUT)
    assert error.code == "PATH_NOT_FOUND"
    error = host.create(Path(library["path"]) / "files", "Inner").exception(TIMEOUT)
    assert error.code == "PATH_FORBIDDEN"


def test_open_refuses_missing_and_non_library_folders(host, tmp_path):
    error = host.open(tmp_path / "gone.serpent").exception(TIMEOUT)
    assert error.code == "PATH_NOT_FOUND" and error.details["reason"] == "missing"
    (tmp_path / "plain").mkdir()
    error = host.open(tmp_path / "plain").exception(TIMEOUT)
    assert error.code == "PATH_INVALID" and error.details["reason"] == "not-a-library"
    error = host.open("relative/path.serpent").exception(TIMEOUT)
    assert error.code == "PATH_INVALID"


def test_a_library_from_a_newer_major_version_is_refused(host, library):
    path = Path(library["path"])
    host.close(library["libraryId"]).result(TIMEOUT)
    db = sqlite3.connect(path / "library.sqlite")
    with db:
        db.execute("INSERT INTO schema_migrations VALUES (99, 2, 'from the future', 'now')")
    db.close()
    error = host.open(path).exception(TIMEOUT)
    assert error.code == "UNSUPPORTED_FORMAT" and error.details["reason"] == "newer-schema"
    assert "newer version of Serpent" in error.message


def test_a_read_only_library_folder_is_refused_clearly(host, library):
    path = Path(library["path"])
    host.close(library["libraryId"]).result(TIMEOUT)
    with read_only(path):
        error = host.open(path).exception(TIMEOUT)
    assert isinstance(error, LibraryError)
    assert error.code == "PERMISSION_DENIED" and error.details["reason"] == "read-only"
    assert host.open(path).result(TIMEOUT)["libraryId"] == library["libraryId"]


def test_a_vanished_library_folder_gives_a_clear_error_and_closes(host, library, events,
                                                                  tmp_path, sources):
    library_id = library["libraryId"]
    make_images(sources, 2)
    call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    shutil.move(library["path"], tmp_path / "unplugged")  # the drive went away
    error = call_error(host, library_id, "asset.search")
    assert error.code == "LIBRARY_NOT_FOUND" and error.details["reason"] == "vanished"
    closed = events.wait_for(lambda e: isinstance(e, LibraryClosed))
    assert closed.reason == "vanished"
    assert host.list_open() == []
    assert call_error(host, library_id, "asset.search").code == "LIBRARY_NOT_OPEN"


def test_unknown_command_malformed_ids_and_unknown_fields(host, library_id):
    error = call_error(host, library_id, "asset.explode")
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "command"
    error = call_error(host, library_id, "asset.get", {"assetIds": ["../../etc/passwd"]})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "assetIds.0"
    error = call_error(host, library_id, "asset.search", {"colour": "red"})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "colour"
    assert "unknown field" in error.message
    error = call_error(host, library_id, "asset.update", {"assetId": "ast_0000000000"})
    assert error.code == "INVALID_ARGUMENT"


def test_plan_of_a_command_without_plan_is_refused(host, library_id):
    error = call_error(host, library_id, "asset.search", plan=True)
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "plan"
