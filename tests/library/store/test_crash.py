"""`kill -9` of the worker at random moments: nothing acknowledged is lost, nothing is corrupt,
orphans are reported, and a retry with the same idempotency key applies exactly once.

`SERPENT_CRASH_TRIALS` sets the number of trials per scenario (default 12).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from library.errors import LibraryError
from library.events import LibraryClosed, TaskProgress, WorkerRestarted
from library.protocol import CallMeta
from tests.library.factories import TIMEOUT, EventLog, call, make_images
from tests.waiting import wait_until

TRIALS = int(os.environ.get("SERPENT_CRASH_TRIALS", "12"))
TRIAL_TIMEOUT = 120 + 8 * TRIALS  # pytest-timeout for the trial loops, scaled with TRIALS


def kill_worker(host, library_id: str) -> int:
    pid = host.worker_pid(library_id)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    return pid


def wait_restarted(events: EventLog, count: int) -> WorkerRestarted:
    restarts = wait_until(lambda: (lambda seen: seen if len(seen) >= count else None)(
        events.of(WorkerRestarted)), f"restart {count} of the worker", TIMEOUT)
    return restarts[count - 1]


def check_library(root: Path) -> dict:
    """Integrity, and every row has its file and every stored file its row."""
    db = sqlite3.connect(root / "library.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        rows = db.execute("SELECT id, sha256, ext, missing FROM assets").fetchall()
    finally:
        db.close()
    names = {f"{sha}.{ext}" if ext else sha for _id, sha, ext, _missing in rows}
    files = {p.name for p in (root / "files").rglob("*") if p.is_file()}
    assert files == names, "rows and stored files disagree"
    assert all(missing == 0 for *_rest, missing in rows)
    assert not list((root / ".staging").iterdir())
    return {"assets": len(rows)}


def all_tags(host, library_id: str) -> set[str]:
    names, cursor = set(), None
    while True:
        page = call(host, library_id, "tag.list",
                    {"limit": 500, **({"cursor": cursor} if cursor else {})})
        names |= {t["name"] for t in page["items"]}
        cursor = page["nextCursor"]
        if cursor is None:
            return names


def orphan_count(root: Path) -> int:
    return sum(1 for p in (root / ".orphans").rglob("*") if p.is_file())


def test_a_killed_worker_comes_back_and_finishes_the_write_it_was_doing(host, library, events,
                                                                        sources):
    """The import in flight is sent to the restarted worker with its request id: it goes on
    where the killed one stopped (issue 25: it used to answer WORKER_UNAVAILABLE, and a
    retry as told imported the saved part twice)."""
    library_id = library["libraryId"]
    make_images(sources, 300, size=(32, 32))
    future = host.call(library_id, "file.import", {"sourcePaths": [str(sources)]})
    events.wait_for(lambda e: isinstance(e, TaskProgress) and e.done >= 3)  # surely running
    old_pid = kill_worker(host, library_id)
    result = future.result(TIMEOUT)
    assert result["imported"] == 300 and result["duplicates"] == 0
    imports = [e for e in call(host, library_id, "history.list")["items"]
               if e["command"] == "file.import"]
    assert len(imports) == 1 and imports[0]["summary"] == "Imported 300 files"
    restarted = wait_restarted(events, 1)
    assert restarted.library_id == library_id and "exit code -9" in restarted.reason
    assert restarted.recovery["fullScan"] is True and restarted.recovery["integrity"] == "ok"
    assert host.worker_pid(library_id) != old_pid
    assert call(host, library_id, "library.info")["libraryId"] == library_id
    assert host.list_open()[0]["libraryId"] == library_id
    check_library(Path(library["path"]))


def test_calls_made_while_the_worker_restarts_wait_for_it(host, library_id, events):
    kill_worker(host, library_id)
    futures = [host.call(library_id, "library.change-sequence", {}) for _ in range(5)]
    results = []
    for future in futures:
        try:
            results.append(future.result(TIMEOUT))
        except LibraryError as error:  # sent to the dying worker just before it was noticed
            assert error.code == "WORKER_UNAVAILABLE"
    wait_restarted(events, 1)
    assert call(host, library_id, "library.change-sequence") == {"changeSequence": 0}
    assert all(r == {"changeSequence": 0} for r in results)


def test_a_worker_ignores_ctrl_c_and_keeps_serving(host, library, events):
    """Ctrl-C in a terminal reaches the whole process group: the workers must not die of it
    (the main process closes them in order)."""
    library_id = library["libraryId"]
    pid = host.worker_pid(library_id)
    os.kill(pid, signal.SIGINT)
    # a write runs on the worker's main thread, the one a SIGINT would interrupt
    assert call(host, library_id, "library.rename", {"name": "After Ctrl-C"})["name"] \
        == "After Ctrl-C"
    assert call(host, library_id, "library.info")["name"] == "After Ctrl-C"
    assert host.worker_pid(library_id) == pid
    assert not events.of(WorkerRestarted) and not events.of(LibraryClosed)


@pytest.mark.timeout(TRIAL_TIMEOUT)
def test_random_kills_during_imports(host, library, events, tmp_path):
    library_id, root = library["libraryId"], Path(library["path"])
    rng = random.Random(1234)
    expected_assets = 0
    for trial in range(TRIALS):
        folder = tmp_path / f"batch{trial}"
        make_images(folder, 40, start=trial * 1000, size=(24, 24))
        meta = CallMeta(source="mcp", label="agent", idempotency_key=f"import-{trial}")
        future = host.call(library_id, "file.import", {"sourcePaths": [str(folder)]}, meta)
        time.sleep(rng.uniform(0.0, 0.25))
        kill_worker(host, library_id)
        try:
            acknowledged = future.result(TIMEOUT)
        except LibraryError as error:
            assert error.code == "WORKER_UNAVAILABLE"
            acknowledged = None
        restarted = wait_restarted(events, trial + 1)
        # recovery reported every orphan it moved (uncommitted copies of the killed batch)
        assert restarted.recovery["orphansMoved"] == len(restarted.recovery["orphanFiles"])
        check_library(root)
        retried = call(host, library_id, "file.import", {"sourcePaths": [str(folder)]}, meta)
        if acknowledged is not None:
            assert retried == acknowledged  # the stored first result
        assert retried["imported"] == 40 and retried["duplicates"] == 0
        assert all(item["status"] == "imported" for item in retried["items"])
        expected_assets += 40
        assert check_library(root)["assets"] == expected_assets
        assert call(host, library_id, "asset.search", {"limit": 1})["total"] == expected_assets
    assert orphan_count(root) == sum(r.recovery["orphansMoved"]
                                     for r in events.of(WorkerRestarted))


@pytest.mark.timeout(TRIAL_TIMEOUT)
def test_random_kills_during_updates(host, library, events, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    make_images(sources, 3)
    assets = [i["assetId"] for i in call(host, library_id, "file.import",
                                         {"sourcePaths": [str(sources)]})["items"]]
    rng = random.Random(99)
    acknowledged: list[int] = []
    counter = 0
    def writer(stop: threading.Event, in_flight: dict[str, int]) -> None:
        nonlocal counter
        while not stop.is_set():
            n = counter
            counter += 1
            in_flight["n"] = n
            meta = CallMeta(source="ui", label="You", idempotency_key=f"tag-{n}")
            try:
                call(host, library_id, "asset.tag",
                     {"assetIds": [assets[n % 3]], "tags": [f"t{n}"]}, meta)
            except LibraryError as error:
                assert error.code == "WORKER_UNAVAILABLE"
                return
            acknowledged.append(n)
            in_flight.pop("n", None)

    for trial in range(TRIALS):
        stop = threading.Event()
        in_flight: dict[str, int] = {}
        thread = threading.Thread(target=writer, args=(stop, in_flight))
        thread.start()
        time.sleep(rng.uniform(0.02, 0.2))
        kill_worker(host, library_id)
        stop.set()
        thread.join(TIMEOUT)
        wait_restarted(events, trial + 1)
        check_library(root)
        if "n" in in_flight:  # retry the one the crash interrupted: applied exactly once
            n = in_flight["n"]
            meta = CallMeta(source="ui", label="You", idempotency_key=f"tag-{n}")
            call(host, library_id, "asset.tag", {"assetIds": [assets[n % 3]], "tags": [f"t{n}"]},
                 meta)
            acknowledged.append(n)
        tags = all_tags(host, library_id)
        assert {f"t{n}" for n in acknowledged} <= tags  # no acknowledged write lost
    summaries, cursor = [], None
    while True:
        page = call(host, library_id, "history.list",
                    {"limit": 500, **({"cursor": cursor} if cursor else {})})
        summaries += [e["summary"] for e in page["items"] if e["command"] == "asset.tag"]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    for n in acknowledged:
        assert summaries.count(f"Tagged 1 asset with t{n}") == 1  # never applied twice
    assert len(acknowledged) >= TRIALS


@pytest.mark.parametrize("command", ["asset.update", "history.undo"])
def test_a_write_killed_after_commit_is_not_repeated_by_its_retry(host, library, events,
                                                                  sources, command):
    """Worst case: the commit happened, the answer never arrived. The retry must not redo it."""
    library_id = library["libraryId"]
    make_images(sources, 1)
    asset = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})["items"][0]
    call(host, library_id, "asset.tag", {"assetIds": [asset["assetId"]], "tags": ["a"]})
    call(host, library_id, "asset.tag", {"assetIds": [asset["assetId"]], "tags": ["b"]})
    args = {"assetId": asset["assetId"], "rating": 5} if command == "asset.update" else {}
    meta = CallMeta(source="ui", label="You", idempotency_key=f"once-{command}")
    first = call(host, library_id, command, args, meta)
    sequence = host.change_sequence(library_id)
    kill_worker(host, library_id)
    wait_restarted(events, 1)
    again = call(host, library_id, command, args, meta)
    assert again == first
    assert call(host, library_id, "library.change-sequence")["changeSequence"] == sequence
    tags = call(host, library_id, "asset.get", {"assetIds": [asset["assetId"]]})["items"][0]["tags"]
    assert tags == (["a"] if command == "history.undo" else ["a", "b"])


def test_closing_while_the_worker_restarts_closes_it(host, library, events):
    library_id = library["libraryId"]
    kill_worker(host, library_id)
    host.close(library_id).result(TIMEOUT)
    events.wait_for(lambda e: isinstance(e, LibraryClosed) and e.library_id == library_id)
    assert host.list_open() == []
    assert host.open(library["path"]).result(TIMEOUT)["libraryId"] == library_id
