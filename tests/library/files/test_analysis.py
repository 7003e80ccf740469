"""Analysis and background tasks through a real worker: `analysis.run`, `task.list/get/cancel`,
`asset.find-duplicates`; a cancelled task keeps what it finished; a killed worker resumes
its queued work after recovery and nothing half-written is kept."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path

from library.events import LibraryChanged, TaskProgress, WorkerRestarted
from tests.library.factories import call, call_error, make_file
from tests.library.pictures import (
    FINISHED,
    Blocker,
    picture,
    previews_made,
    save_pictures,
)
from tests.waiting import wait_until


def import_paths(host, library_id, paths) -> list[str]:
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    assert [i["status"] for i in result["items"]] == ["imported"] * len(paths), result
    return [i["assetId"] for i in result["items"]]


def finished_task(host, library_id, task_id) -> dict:
    return wait_until(lambda: (lambda t: t if t["status"] in FINISHED else None)(
        call(host, library_id, "task.get", {"taskId": task_id})), f"task {task_id}")


def analysis_rows(root: Path) -> dict[str, tuple]:
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        return {r[0]: r[1:] for r in db.execute(
            "SELECT asset_id, status, phash, palette FROM asset_analysis")}
    finally:
        db.close()


def test_analysis_finds_resized_copies_and_says_what_is_not_analysed(host, library, events,
                                                                     sources):
    library_id, root = library["libraryId"], Path(library["path"])
    a, b, c = save_pictures(sources, [1, 2, 3])
    copy = sources / "pic-001 small.jpg"
    picture(1).resize((160, 120)).save(copy, quality=85)
    notes = make_file(sources / "notes.txt", b"not a picture")
    ids = import_paths(host, library_id, [a, b, c, copy, notes])
    by_name = dict(zip(["a", "b", "c", "copy", "notes"], ids, strict=True))

    before = call(host, library_id, "asset.find-duplicates")
    assert before["items"] == [] and before["notAnalysed"] == 5 and before["analysed"] == 0
    assert "5 assets are not analysed yet" in before["note"]  # naming no tool

    queued = call(host, library_id, "analysis.run")["task"]
    assert queued["kind"] == "analysis" and queued["status"] == "queued"
    assert queued["total"] == 5
    task = finished_task(host, library_id, queued["id"])
    assert task["status"] == "done" and task["done"] == 5 and task["errorCode"] is None
    assert task["result"] == {"analysed": 4, "unsupported": 1}
    assert task["startedAt"] and task["finishedAt"]

    found = call(host, library_id, "asset.find-duplicates")
    assert found["analysed"] == 4 and found["notAnalysed"] == 0 and found["note"] is None
    [group] = found["items"]
    assert set(group["assetIds"]) == {by_name["a"], by_name["copy"]}
    assert group["reason"] == "similar-image" and group["distance"] <= 4
    assert found["total"] == 1 and found["nextCursor"] is None
    exact = call(host, library_id, "asset.find-duplicates", {"method": "exact"})
    assert exact["items"] == [] and "only once" in exact["note"]

    rows = analysis_rows(root)
    assert rows[by_name["notes"]] == ("unsupported", None, None)
    status, phash, palette = rows[by_name["b"]]
    assert status == "done" and isinstance(phash, int)
    colours = json.loads(palette)
    assert colours and all(c["color"].startswith("#") and 0 < c["ratio"] <= 1 for c in colours)
    previews = call(host, library_id, "asset.preview-status", {"assetIds": ids})["items"]
    assert [previews[i] for i in ids[:4]] == ["ready"] * 4  # made ahead by analysis

    changed = [e for e in events.of(LibraryChanged) if "analysis" in e.kinds]
    assert changed and "task" in changed[-1].kinds
    # the task's writes are its kind's, not a command's (no command's call made them)
    assert {(e.command, e.task_kind) for e in changed} == {("", "analysis")}
    assert {by_name["a"], by_name["b"]} <= {i for e in changed for i in e.entity_ids}
    progress = [e for e in events.of(TaskProgress) if e.command == "analysis.run"]
    assert any(e.total == 5 for e in progress)
    assert {e.kind for e in progress} == {"analysis"}  # the task's own kind
    assert {(e.task_id, e.request_id) for e in progress} == {(queued["id"], 0)}

    again = call(host, library_id, "analysis.run")["task"]
    assert again["status"] == "done" and again["total"] == 0  # nothing left to analyse
    forced = call(host, library_id, "analysis.run", {"assetIds": [by_name["b"]],
                                                    "force": True})["task"]
    assert finished_task(host, library_id, forced["id"])["result"] == {"analysed": 1}

    listed = call(host, library_id, "task.list", {"limit": 2})
    assert [t["id"] for t in listed["items"]] == [forced["id"], again["id"]]
    rest = call(host, library_id, "task.list", {"limit": 2, "cursor": listed["nextCursor"]})
    assert [t["id"] for t in rest["items"]] == [queued["id"]] and rest["nextCursor"] is None
    assert call(host, library_id, "task.list", {"status": ["running", "queued"]})["items"] == []
    paged = call(host, library_id, "asset.find-duplicates", {"maxDistance": 16, "limit": 1})
    assert len(paged["items"]) == 1


def test_bad_input_gets_stable_codes_and_queues_nothing(host, library_id, sources):
    [asset] = import_paths(host, library_id, save_pictures(sources, [4]))
    missing = "ast_0000000000zzzzzzzzzzzzzzzz"
    error = call_error(host, library_id, "analysis.run", {"assetIds": [asset, missing]})
    assert error.code == "NOT_FOUND" and error.details["notFound"] == [missing]
    assert call(host, library_id, "task.list")["items"] == []
    assert call_error(host, library_id, "analysis.run", {"assetIds": ["nope"]}).code == \
        "INVALID_ARGUMENT"
    unknown = "tsk_0000000000zzzzzzzzzzzzzzzz"
    for command in ("task.get", "task.cancel"):
        assert call_error(host, library_id, command, {"taskId": unknown}).code == "NOT_FOUND"
        assert call_error(host, library_id, command, {"taskId": "x"}).code == "INVALID_ARGUMENT"
    assert call_error(host, library_id, "task.list", {"cursor": "nonsense"}).code == \
        "INVALID_ARGUMENT"
    assert call_error(host, library_id, "task.list", {"status": ["sleeping"]}).code == \
        "INVALID_ARGUMENT"
    for args in ({"maxDistance": 17}, {"method": "fuzzy"}, {"cursor": "x1"}):
        assert call_error(host, library_id, "asset.find-duplicates", args).code == \
            "INVALID_ARGUMENT"


def blocked_analysis(host, library, sources):
    """Three assets imported one by one (ids in that order); reading the second one's file
    blocks until released. Returns (ids, blocker, running task)."""
    library_id, root = library["libraryId"], Path(library["path"])
    ids = [import_paths(host, library_id, [p])[0]
           for p in save_pictures(sources, [11, 12, 13])]
    previews_made(host, library_id)  # the pool never reads the pipe below
    second = call(host, library_id, "asset.get", {"assetIds": [ids[1]]})["items"][0]
    stored = root / "files" / second["sha256"][:2] / f"{second['sha256']}.png"
    blocker = Blocker(stored, stored.read_bytes())
    task = call(host, library_id, "analysis.run")["task"]
    wait_until(lambda: (lambda t: t["status"] == "running" and t["done"] >= 1)(
        call(host, library_id, "task.get", {"taskId": task["id"]})), "analysis to start")
    return ids, blocker, task


def test_cancel_stops_a_running_task_and_keeps_what_it_finished(host, library, sources):
    library_id = library["libraryId"]
    ids, blocker, task = blocked_analysis(host, library, sources)
    cancelling = host.call(library_id, "task.cancel", {"taskId": task["id"]})
    asked = wait_until(lambda: (lambda t: t if t["cancelRequested"] else None)(
        call(host, library_id, "task.get", {"taskId": task["id"]})), "the cancel request")
    assert asked["status"] == "running"
    blocker.release()  # the second asset is read now; the task stops after it
    answer = cancelling.result(60)
    blocker.stop()
    assert answer["status"] == "cancelled" and answer["id"] == task["id"]
    stored = finished_task(host, library_id, task["id"])
    assert stored["status"] == "cancelled" and stored["done"] == 2 and stored["total"] == 3
    found = call(host, library_id, "asset.find-duplicates")
    assert found["analysed"] == 2 and found["notAnalysed"] == 1  # the third was never done
    again = call(host, library_id, "task.cancel", {"taskId": task["id"]})
    assert again["status"] == "cancelled" and again["finishedAt"] == stored["finishedAt"]


def test_a_killed_worker_resumes_queued_analysis_after_recovery(host, library, events,
                                                               sources):
    library_id, root = library["libraryId"], Path(library["path"])
    ids, _blocker, task = blocked_analysis(host, library, sources)
    os.kill(host.worker_pid(library_id), signal.SIGKILL)
    restarted = wait_until(lambda: events.of(WorkerRestarted), "the restart")[0]
    assert restarted.recovery["orphansMoved"] == 1  # the stand-in pipe, set aside
    assert restarted.recovery["missingAssetIds"] == [ids[1]]
    resumed = finished_task(host, library_id, task["id"])
    assert resumed["status"] == "done" and resumed["done"] == 3
    assert resumed["result"] == {"analysed": 2, "failed": 1}
    rows = analysis_rows(root)
    assert {i: rows[i][0] for i in ids} == {ids[0]: "done", ids[1]: "failed", ids[2]: "done"}
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT count(*) FROM tasks WHERE status = 'running'").fetchone() \
            == (0,)
    finally:
        db.close()
