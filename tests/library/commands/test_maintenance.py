"""`library.refresh` and `library.delete-from-disk` through a real worker: missing files
flagged and back again, orphans set aside (never deleted), thumbnails rebuilt, the refresh
as a cancellable task that a crash marks interrupted; deletion only of a real library
folder, after a plan, once it is closed."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from library import deletion
from library.events import LibraryChanged, WorkerRestarted
from tests.library.factories import TIMEOUT, call, call_error, make_file
from tests.library.pictures import FINISHED, Blocker, previews_made, save_pictures
from tests.waiting import wait_until


def import_paths(host, library_id, paths) -> list[str]:
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    return [i["assetId"] for i in result["items"]]


def stored(host, library_id, root: Path, asset_id: str) -> tuple[str, Path]:
    sha = call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0]["sha256"]
    return sha, root / "files" / sha[:2] / f"{sha}.png"


def thumbs_of(root: Path, sha: str) -> list[Path]:
    return sorted((root / "thumbs" / sha[:2]).glob(f"{sha}_*"))


def test_refresh_flags_missing_sets_orphans_aside_and_rebuilds_thumbnails(
        host, library, events, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    a, b, c = import_paths(host, library_id, save_pictures(sources, [1, 2, 3]))
    for asset_id in (a, b, c):
        call(host, library_id, "asset.thumbnail", {"assetId": asset_id, "size": 256})
    sha_a, _ = stored(host, library_id, root, a)
    sha_b, file_b = stored(host, library_id, root, b)
    _sha_c, file_c = stored(host, library_id, root, c)
    for thumb in thumbs_of(root, sha_a) + thumbs_of(root, sha_b):
        thumb.unlink()
    kept_c = file_c.read_bytes()
    file_c.unlink()
    stray = make_file(root / "files" / "ab" / ("ab" + "0" * 62 + ".png"), b"stray")
    stale = make_file(root / "thumbs" / "ff" / ("ff" + "1" * 62 + "_256.jpg"), b"old")
    version_c = call(host, library_id, "asset.get", {"assetIds": [c]})["items"][0]["version"]

    out = call(host, library_id, "library.refresh")
    assert (out["checked"], out["missingFiles"], out["missingAssetIds"]) == (3, 1, [c])
    assert (out["orphansMoved"], out["thumbnailsRebuilt"], out["thumbnailsRemoved"]) == (1, 2, 1)
    assert out["cancelled"] is False and out["damagedFiles"] == 0
    assert (root / out["orphansFolder"] / "ab" / stray.name).read_bytes() == b"stray"
    assert not stray.exists() and not stale.exists()
    assert thumbs_of(root, sha_a) and thumbs_of(root, sha_b)
    flagged = call(host, library_id, "asset.get", {"assetIds": [c]})["items"][0]
    assert flagged["missing"] is True and flagged["version"] == version_c + 1
    changed = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                              and e.command == "library.refresh" and "asset" in e.kinds)
    assert c in changed.entity_ids
    task = call(host, library_id, "task.get", {"taskId": out["taskId"]})
    assert task["kind"] == "refresh" and task["status"] == "done"
    assert task["result"]["missingFiles"] == 1 and task["result"]["orphansMoved"] == 1

    file_c.write_bytes(kept_c)  # restored from a backup
    file_b.write_bytes(file_b.read_bytes() + b"extra")  # and another one damaged
    again = call(host, library_id, "library.refresh")
    assert (again["filesBack"], again["missingFiles"], again["orphansMoved"]) == (1, 0, 0)
    assert again["damagedFiles"] == 1 and again["damagedAssetIds"] == [b]
    assert call(host, library_id, "asset.get", {"assetIds": [c]})["items"][0]["missing"] is False
    assert call(host, library_id, "history.list")["items"][0]["command"] == "file.import"


def blocked_refresh(host, library, sources):
    """A refresh that stops, deterministically, while it looks at the first image's
    remembered thumbnail failure (a pipe nobody writes yet). Returns (future, blocker,
    task id)."""
    library_id, root = library["libraryId"], Path(library["path"])
    first, _second = sorted(import_paths(host, library_id, save_pictures(sources, [5, 6])))
    previews_made(host, library_id)  # the pool never reads the pipe below
    sha, _ = stored(host, library_id, root, first)
    (root / "thumbs" / sha[:2]).mkdir(parents=True, exist_ok=True)
    for made in (root / "thumbs" / sha[:2]).glob(f"{sha}_*"):
        made.unlink()  # the refresh has to make it again, and looks at the marker first
    blocker = Blocker(root / "thumbs" / sha[:2] / f"{sha}.failed", b"not json")
    running = host.call(library_id, "library.refresh", {})
    task = wait_until(lambda: call(host, library_id, "task.list",
                                   {"status": ["running"]})["items"], "the refresh task")[0]
    assert task["kind"] == "refresh"
    # running is not yet blocked: the files are checked first (a cancel landing there ends
    # the refresh with nothing checked). The marker is read right after the check.
    def files_checked() -> bool:
        now = call(host, library_id, "task.get", {"taskId": task["id"]})
        return (now["done"], now["message"]) == (2, "Checking files")

    wait_until(files_checked, "the refresh's files checked")
    return running, blocker, task["id"]


def test_task_cancel_stops_a_running_refresh(host, library, sources):
    library_id = library["libraryId"]
    running, blocker, task_id = blocked_refresh(host, library, sources)
    cancelling = host.call(library_id, "task.cancel", {"taskId": task_id})
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task_id})[
        "cancelRequested"], lambda: "the cancel request; the task is now "
        f"{call(host, library_id, 'task.get', {'taskId': task_id})}")
    blocker.release()
    assert cancelling.result(TIMEOUT)["status"] == "cancelled"
    blocker.stop()
    out = running.result(TIMEOUT)
    assert out["cancelled"] is True and out["checked"] == 2 and out["thumbnailsRebuilt"] == 0
    task = call(host, library_id, "task.get", {"taskId": task_id})
    assert task["status"] == "cancelled" and task["result"]["cancelled"] is True


def test_a_crash_during_refresh_marks_its_task_interrupted(host, library, events, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    running, blocker, task_id = blocked_refresh(host, library, sources)
    os.kill(host.worker_pid(library_id), signal.SIGKILL)
    wait_until(lambda: events.of(WorkerRestarted), "the restart")
    blocker.stop()
    # the call is sent to the restarted worker (its request id: nothing was saved) and runs
    assert running.result(TIMEOUT)["checked"] == 2
    task = call(host, library_id, "task.get", {"taskId": task_id})
    assert task["status"] == "interrupted" and task["finishedAt"] and task["status"] in FINISHED
    assert not list((root / ".staging").iterdir())
    assert call(host, library_id, "library.refresh")["checked"] == 2  # runs again fine


def test_delete_from_disk_needs_a_current_plan_and_removes_only_the_closed_library(
        host, library, sources, tmp_path):
    library_id, root = library["libraryId"], Path(library["path"])
    import_paths(host, library_id, save_pictures(sources, [7, 8]))
    sequence = call(host, library_id, "library.change-sequence")["changeSequence"]
    plan = call(host, library_id, "library.delete-from-disk", plan=True)
    assert plan["count"] == 2 and plan["irreversible"] is True and plan["totalBytes"] > 0
    assert plan["targets"] == [{"id": library_id, "name": "Test Library", "version": 2,
                                "size": plan["totalBytes"]}]
    assert "Test Library" in plan["summary"] and "cannot be undone" in plan["summary"]
    assert call(host, library_id, "library.change-sequence")["changeSequence"] == sequence
    import_paths(host, library_id, save_pictures(sources, [9]))
    stale = call_error(host, library_id, "library.delete-from-disk",
                       {"stateToken": plan["stateToken"]})
    assert stale.code == "STALE_PLAN" and root.is_dir()

    # the folder's size is the plan's: let the import's previews and analysis finish first
    previews_made(host, library_id)
    wait_until(lambda: not call(host, library_id, "task.list", {"status": [
        "queued", "running"]})["items"], "the analysis of the import")
    current = call(host, library_id, "library.delete-from-disk", plan=True)
    out = call(host, library_id, "library.delete-from-disk",
               {"stateToken": current["stateToken"]})
    assert out == {"deleted": False, "assetCount": 3, "freedBytes": current["totalBytes"]}
    assert root.is_dir()  # nothing goes while the library is open
    host.close(library_id).result(TIMEOUT)
    assert not root.exists() and deletion.tombstone_for(root, library_id).is_dir()
    deletion.remove_retired(root, library_id)
    assert sorted(p.name for p in root.parent.iterdir()) == []
    assert sources.is_dir() and len(list(sources.iterdir())) == 3  # originals untouched


def test_a_library_opened_through_a_link_is_not_deleted(host, tmp_path, sources):
    real = Path(host.create(tmp_path, "Linked").result(TIMEOUT)["path"])
    library_id = host.list_open()[0]["libraryId"]
    host.close(library_id).result(TIMEOUT)
    link = tmp_path / "links" / "Linked.serpent"
    link.parent.mkdir()
    link.symlink_to(real, target_is_directory=True)
    library_id = host.open(link).result(TIMEOUT)["libraryId"]
    error = call_error(host, library_id, "library.delete-from-disk")
    assert error.code == "PATH_FORBIDDEN"
    host.close(library_id).result(TIMEOUT)
    assert real.is_dir() and link.is_symlink()
    error = _raises(lambda: deletion.remove_retired(real, library_id))
    assert error.code == "PERMISSION_DENIED" and real.is_dir()  # never asked: still there


def _raises(action):  # type: ignore[no-untyped-def]
    try:
        action()
    except Exception as error:  # noqa: BLE001 - the test inspects it
        return error
    raise AssertionError("expected an error")
