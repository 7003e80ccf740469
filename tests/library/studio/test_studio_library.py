"""A studio library through real workers on two "machines" (two library hosts with their
own machine names, as two computers have) and a real PostgreSQL: made once, opened on the
other machine as the same library, each change seen live by the other, versions that
conflict across machines, and the URIs and databases it refuses."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import psycopg
import pytest

from library.client import LibraryHost
from library.errors import (
    ALREADY_EXISTS,
    BUSY,
    INVALID_ARGUMENT,
    VERSION_CONFLICT,
    LibraryError,
)
from library.events import LibraryChanged
from library.protocol import CallMeta
from tests.library.factories import TIMEOUT, call, call_error, make_images
from tests.waiting import wait_until

MCP = CallMeta(source="mcp", credential="Claude", label="Claude via MCP")


def test_made_once_opened_on_another_machine_as_the_same_library(studio, machines,
                                                                 sources):
    alpha, beta = machines
    made, opened = studio["made"], studio["opened"]
    assert opened["libraryId"] == made["libraryId"]
    root = Path(made["path"])
    assert not (root / "library.sqlite").exists()
    info = json.loads((root / "studio.json").read_text())
    assert info["libraryId"] == made["libraryId"] and "password" not in info["database"]
    assert sorted(p.name for p in (root / ".machines").iterdir()) == ["alpha.lock",
                                                                        "beta.lock"]
    library_id = made["libraryId"]
    make_images(sources, 3)
    call(alpha, library_id, "file.import", {"sourcePaths": [str(sources)], "tags": ["sky"]})
    seen = call(beta, library_id, "asset.search", {"tags": ["sky"]})
    assert seen["total"] == 3
    asset = call(beta, library_id, "asset.get", {"assetIds": [seen["items"][0]["id"]]})
    assert Path(asset["items"][0]["filePath"]).is_file()  # the file on the shared drive
    assert call(beta, library_id, "library.info")["assetCount"] == 3


def test_each_change_is_seen_live_on_the_other_machine(studio, machines, other_events,
                                                       sources):
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 2)
    imported = call(alpha, library_id, "file.import", {"sourcePaths": [str(sources)]}, MCP)
    ids = [item["assetId"] for item in imported["items"]]
    event = other_events.wait_for(lambda e: isinstance(e, LibraryChanged)
                                  and e.command == "file.import")
    assert event.library_id == library_id and "asset" in event.kinds
    assert set(ids) <= set(event.entity_ids)
    assert event.actor.label == "Claude via MCP" and event.actor.source == "mcp"
    call(alpha, library_id, "asset.tag", {"assetIds": ids[:1], "tags": ["night"]}, MCP)
    tagged = other_events.wait_for(lambda e: isinstance(e, LibraryChanged)
                                   and e.command == "asset.tag")
    assert tagged.entity_ids == ids[:1] and tagged.change_sequence > event.change_sequence
    call(alpha, library_id, "library.rename", {"name": "Team refs"})
    renamed = other_events.wait_for(lambda e: isinstance(e, LibraryChanged)
                                    and e.command == "library.rename")
    assert renamed.library_name == "Team refs"
    assert beta.change_sequence(library_id) == renamed.change_sequence
    assert call(beta, library_id, "library.change-sequence")["changeSequence"] == \
        renamed.change_sequence


def test_versions_conflict_across_machines(studio, machines, sources):
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 1)
    asset_id = call(alpha, library_id, "file.import",
                    {"sourcePaths": [str(sources)]})["items"][0]["assetId"]
    version = call(beta, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0][
        "version"]
    call(alpha, library_id, "asset.update", {"assetId": asset_id, "rating": 4,
                                             "expectedVersion": version})
    error = call_error(beta, library_id, "asset.update", {"assetId": asset_id, "rating": 1,
                                                          "expectedVersion": version})
    assert error.code == VERSION_CONFLICT and error.details["currentVersion"] == version + 1
    assert call(beta, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0][
        "rating"] == 4


def test_one_worker_per_machine(studio, tmp_path):
    twin = LibraryHost(machine="alpha")
    try:
        with pytest.raises(LibraryError) as refused:
            twin.open(studio["made"]["path"]).result(TIMEOUT)
        assert refused.value.code == BUSY
    finally:
        twin.shutdown()


def test_a_worker_killed_inside_a_write_blocks_nobody_and_its_write_is_kept_once(studio,
                                                                                machines):
    """Machine alpha's worker is killed (kill -9) in the middle of a write, holding the
    studio's write lock: nothing of it was committed, the database lets go of the lock with
    its connection, Serpent sends the write to alpha's restarted worker (its request id is
    not in the ledger: it is applied, once), and machine beta writes as before."""
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    uri = json.loads((Path(studio["made"]["path"]) / "studio.json").read_text())["database"]
    with psycopg.connect(uri) as spy:  # holds alpha at its commit, inside its transaction
        spy.execute("SELECT * FROM library_state FOR UPDATE")
        pending = alpha.call(library_id, "folder.create", {"name": "Sent again"})
        wait_until(lambda: spy.execute(
            "SELECT 1 FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid WHERE "
            "l.locktype = 'advisory' AND l.granted AND s.application_name = "
            "'Serpent alpha' AND s.wait_event_type = 'Lock'").fetchone(),
            "alpha inside its write", TIMEOUT, interval=0.05)
        killed = alpha.worker_pid(library_id)
        os.kill(killed or 0, signal.SIGKILL)
        assert spy.execute("SELECT count(*) FROM folders").fetchone()[0] == 0
        spy.rollback()
    assert pending.result(TIMEOUT)["name"] == "Sent again"  # by the restarted worker
    assert alpha.worker_pid(library_id) != killed
    folder = call(beta, library_id, "folder.create", {"name": "After the crash"})
    assert folder["name"] == "After the crash"
    names = sorted(f["name"] for f in call(beta, library_id, "folder.list")["items"])
    assert names == ["After the crash", "Sent again"]
    assert sorted(f["name"] for f in call(alpha, library_id, "folder.list")["items"]) == names


@pytest.mark.parametrize(("uri", "reason"), [
    ("postgresql://serpent:secret@127.0.0.1/x", "password-in-uri"),
    ("postgresql://serpent@127.0.0.1/x?password=secret", "password-in-uri"),
    ("mysql://serpent@127.0.0.1/x", None),
    ("postgresql://serpent@127.0.0.1", None),
])
def test_a_uri_with_a_password_or_without_a_database_is_refused(host, tmp_path, uri, reason):
    with pytest.raises(LibraryError) as refused:
        host.create(tmp_path, "Refs", database=uri).result(TIMEOUT)
    assert refused.value.code == INVALID_ARGUMENT
    assert refused.value.details.get("field") == "database"
    assert refused.value.details.get("reason") == reason
    assert "secret" not in refused.value.message
    assert not (tmp_path / "Refs.serpent").exists()


def test_a_database_that_is_not_empty_or_holds_a_library_is_refused(studio, host, tmp_path,
                                                                   postgres_server):
    uri = json.loads((Path(studio["made"]["path"]) / "studio.json").read_text())["database"]
    with pytest.raises(LibraryError) as refused:
        host.create(tmp_path, "Again", database=uri).result(TIMEOUT)
    assert refused.value.code == ALREADY_EXISTS
    other = postgres_server.new_database()
    with psycopg.connect(other, autocommit=True) as conn:
        conn.execute("CREATE TABLE someone_elses (x int)")
    with pytest.raises(LibraryError) as refused:
        host.create(tmp_path, "Elsewhere", database=other).result(TIMEOUT)
    assert refused.value.code == INVALID_ARGUMENT and refused.value.details["reason"] == \
        "not-empty"
    assert not (tmp_path / "Again.serpent").exists()
    assert not (tmp_path / "Elsewhere.serpent").exists()


def test_export_brings_a_studio_library_back_to_one_file(studio, machines, sources, tmp_path):
    alpha, _beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 4)
    imported = call(alpha, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                       "tags": ["Sky", "été"]})
    ids = [item["assetId"] for item in imported["items"]]
    call(alpha, library_id, "asset.update", {"assetId": ids[0], "rating": 5, "notes": "hero"})
    call(alpha, library_id, "asset.trash", {"assetIds": [ids[1]]})
    best_id = call(alpha, library_id, "collection.create", {"name": "Best"})["id"]
    call(alpha, library_id, "collection.members", {"collectionId": best_id, "add": ids[2:]})
    before = call(alpha, library_id, "asset.search", {"limit": 500, "sort": "name-asc"})
    archive = tmp_path / "Refs.zip"
    call(alpha, library_id, "library.export", {"targetPath": str(archive)})
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    ref = alpha.import_exported(archive, unpacked).result(TIMEOUT)
    local = Path(ref["path"])
    assert (local / "library.sqlite").is_file() and not (local / "studio.json").exists()
    after = call(alpha, ref["libraryId"], "asset.search", {"limit": 500, "sort": "name-asc"})
    assert [(a["id"], a["tags"], a["rating"]) for a in after["items"]] == \
        [(a["id"], a["tags"], a["rating"]) for a in before["items"]]
    assert call(alpha, ref["libraryId"], "asset.search", {"trashed": True})["total"] == 1
    tags = call(alpha, ref["libraryId"], "tag.list")["items"]
    assert {t["name"]: t["count"] for t in tags} == {"Sky": 3, "été": 3}
    best = call(alpha, ref["libraryId"], "collection.list")["items"]
    assert [(c["name"], c["assetCount"]) for c in best] == [("Best", 2)]
    hero = call(alpha, ref["libraryId"], "asset.get", {"assetIds": [ids[0]]})["items"][0]
    assert hero["notes"] == "hero" and Path(hero["filePath"]).is_file()
    assert call(alpha, ref["libraryId"], "history.list")["items"]  # the history came too
