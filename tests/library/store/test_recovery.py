"""Recovery before serving: staging cleanup, orphans moved aside and reported, rows whose file is
gone flagged `missing` and reported, a damaged database refused. Nothing silently dropped."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
from pathlib import Path

from library.errors import LibraryError
from library.events import WorkerRestarted
from tests.library.factories import TIMEOUT, call, call_error, make_file, make_images


def crash(host, library_id, events, count=1) -> WorkerRestarted:
    """Kill the worker; returns the `count`-th WorkerRestarted event (its recovery report)."""
    os.kill(host.worker_pid(library_id), signal.SIGKILL)
    events.wait_for(lambda e: len(events.of(WorkerRestarted)) >= count)
    return events.of(WorkerRestarted)[count - 1]


def imported(host, library_id, sources, count=2):
    make_images(sources, count)
    return [i["assetId"] for i in call(host, library_id, "file.import",
                                       {"sourcePaths": [str(sources)]})["items"]]


def test_after_a_crash_orphans_go_aside_and_missing_files_are_flagged(host, library, events,
                                                                      sources):
    library_id, root = library["libraryId"], Path(library["path"])
    a, b = imported(host, library_id, sources)
    asset_b = call(host, library_id, "asset.get", {"assetIds": [b]})["items"][0]
    version_b = asset_b["version"]
    stray = make_file(root / "files" / "ab" / ("ab" + "0" * 62 + ".png"), b"stray")
    make_file(root / ".staging" / "leftover.part", b"half a copy")
    gone = root / "files" / asset_b["sha256"][:2] / f"{asset_b['sha256']}.png"
    gone.unlink()

    restarted = crash(host, library_id, events)
    report = restarted.recovery
    assert report["integrity"] == "ok" and report["fullScan"] is True
    assert report["stagingRemoved"] == 1
    assert report["orphansMoved"] == 1 and report["orphanFiles"] == [stray.name]
    moved = root / report["orphansFolder"] / "ab" / stray.name
    assert moved.read_bytes() == b"stray"  # never deleted
    assert report["missingFiles"] == 1 and report["missingAssetIds"] == [b]
    assert not stray.exists() and not list((root / ".staging").iterdir())

    flagged = call(host, library_id, "asset.get", {"assetIds": [a, b]})["items"]
    assert [x["missing"] for x in flagged] == [False, True]
    assert flagged[1]["version"] == version_b + 1
    assert call(host, library_id, "asset.search")["total"] == 2  # the record is kept

    # The file comes back (restored from a backup): the next recovery clears the flag.
    gone.write_bytes(Path(sources / "image 0001.png").read_bytes())
    again = crash(host, library_id, events, count=2)
    assert again.recovery["filesBack"] == 1
    assert call(host, library_id, "asset.get", {"assetIds": [b]})["items"][0]["missing"] is False


def test_undo_conflicts_when_recovery_changed_the_entity(host, library, events, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    (a,) = imported(host, library_id, sources, count=1)
    call(host, library_id, "asset.update", {"assetId": a, "rating": 3})
    sha = call(host, library_id, "asset.get", {"assetIds": [a]})["items"][0]["sha256"]
    (root / "files" / sha[:2] / f"{sha}.png").unlink()
    crash(host, library_id, events)
    error = call_error(host, library_id, "history.undo")
    assert error.code == "HISTORY_CONFLICT" and error.details["entityIds"] == [a]
    assert call(host, library_id, "asset.get", {"assetIds": [a]})["items"][0]["rating"] == 3


def test_a_clean_close_needs_no_file_scan(host, library, sources):
    library_id, path = library["libraryId"], library["path"]
    imported(host, library_id, sources)
    host.close(library_id).result(TIMEOUT)
    host.open(path).result(TIMEOUT)
    # reopened cleanly: a stray file is not looked for (library.refresh is the full re-scan)
    assert call(host, library_id, "asset.search")["total"] == 2


def test_a_damaged_database_is_refused_not_served(host, library, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    imported(host, library_id, sources, count=20)
    host.close(library_id).result(TIMEOUT)
    db_path = root / "library.sqlite"
    data = bytearray(db_path.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    noise = random.Random(5)
    for offset in range(2 * page, len(data), page):  # scribble over every page but the first
        data[offset + 100: offset + 400] = bytes(noise.randrange(256) for _ in range(300))
    db_path.write_bytes(bytes(data))
    error = host.open(root).exception(TIMEOUT)
    assert isinstance(error, LibraryError)
    assert error.code == "LIBRARY_DAMAGED" and error.details.get("reason") == "corrupt"
    assert error.details["hint"] == "library.repair" and "library.repair" in error.message
    assert "incidentId" not in error.details  # not a bug of Serpent's
    assert host.list_open() == []
    assert db_path.read_bytes() == bytes(data), "the damaged file is left as it was"


def test_recovery_leaves_committed_rows_alone(host, library, events, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    ids = imported(host, library_id, sources, count=5)
    crash(host, library_id, events)
    db = sqlite3.connect(root / "library.sqlite")
    try:
        count = db.execute("SELECT count(*) FROM assets WHERE missing = 0").fetchone()[0]
    finally:
        db.close()
    assert count == 5
    assert call(host, library_id, "asset.get", {"assetIds": ids})["notFound"] == []
