"""Library maintenance and analysis through the gateway and a real worker: export and
`library.import-exported`, `library.refresh`, `library.delete-from-disk` only through a
valid challenge, analysis queued after an import, tasks and near-duplicates; a damaged
library answers LIBRARY_DAMAGED (not INTERNAL, no incident: it is not Serpent's bug) and
`library.repair` makes a new library beside it of what can still be read."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from serpent_tk.automation.events import LibraryLifecycle, TaskProgress, Toast
from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import (
    CLAUDE,
    FULL,
    READER,
    UI,
    Recorder,
    call,
    code,
    import_images,
    ok,
)
from tests.library.pictures import FINISHED, picture, save_pictures
from tests.waiting import wait_until


def import_paths(gateway: Gateway, library: str, paths: list[Path]) -> list[str]:
    result = ok(gateway, "file.import", {"libraryId": library,
                                         "sourcePaths": [str(p) for p in paths]})
    return [item["assetId"] for item in result["items"]]


def finished(gateway: Gateway, library: str, task_id: str) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        task = ok(gateway, "task.get", {"libraryId": library, "taskId": task_id})
        return task if task["status"] in FINISHED else None
    result: dict[str, Any] = wait_until(check, f"task {task_id}")
    return result


def test_export_and_import_exported_open_a_copy_beside_the_original(
        gateway: Gateway, library: str, recorder: Recorder, tmp_path: Path) -> None:
    ids = import_paths(gateway, library, save_pictures(tmp_path / "src", [1, 2]))
    target = tmp_path / "Moodboards backup.zip"
    denied = call(gateway, "library.export", {"libraryId": library,
                                              "targetPath": str(target)}, READER)
    assert code(denied) == "PERMISSION_DENIED" and not target.exists()
    exported = ok(gateway, "library.export", {"libraryId": library,
                                              "targetPath": str(target)}, CLAUDE)
    assert exported["path"] == str(target) and exported["assetCount"] == 2

    answer = call(gateway, "library.import-exported", {
        "archivePath": str(target), "selectedParentPath": str(tmp_path / "libraries")}, CLAUDE)
    assert answer["status"] == "ok" and "libraryId" not in answer  # a global command
    copy = answer["result"]
    assert copy["libraryId"] != library and copy["name"] == "Moodboards"
    assert copy["path"].endswith("Moodboards (copy).serpent")
    listed = ok(gateway, "library.list-open")["items"]
    assert {item["libraryId"] for item in listed} == {library, copy["libraryId"]}
    found = ok(gateway, "asset.get", {"libraryId": copy["libraryId"], "assetIds": ids})
    assert sorted(item["id"] for item in found["items"]) == sorted(ids)
    lifecycle = recorder.wait_for(LibraryLifecycle, lambda e: e.action == "imported"
                                  and e.library_id == copy["libraryId"])
    assert lifecycle.actor_label == CLAUDE.label
    assert Toast(f"{CLAUDE.label} imported “Moodboards”.", "info", CLAUDE.label) in \
        recorder.of(Toast)
    recent = ok(gateway, "library.list-recent")["items"]
    assert recent[0]["libraryId"] == copy["libraryId"]

    bad = call(gateway, "library.import-exported", {
        "archivePath": str(tmp_path / "src" / "pic-001.png"),
        "selectedParentPath": str(tmp_path)}, UI)
    assert code(bad) == "UNSUPPORTED_FORMAT"


def test_refresh_through_the_gateway(gateway: Gateway, library: str, recorder: Recorder,
                                     tmp_path: Path) -> None:
    import_paths(gateway, library, save_pictures(tmp_path / "src", [3]))
    answer = call(gateway, "library.refresh", {"libraryId": library}, CLAUDE)
    assert answer["status"] == "ok" and answer["libraryId"] == library
    result = answer["result"]
    assert result["checked"] == 1 and result["missingFiles"] == 0
    task = ok(gateway, "task.get", {"libraryId": library, "taskId": result["taskId"]})
    assert task["kind"] == "refresh" and task["status"] == "done"
    progress = [e for e in recorder.of(TaskProgress) if e.command == "library.refresh"]
    assert progress and all(e.task_id == result["taskId"] and e.request_id > 0
                            for e in progress)  # the call's, and the task it shows as
    assert {e.kind for e in progress} == {"refresh"}  # the task's kind on every event
    assert code(call(gateway, "library.refresh", {"libraryId": library}, READER)) == \
        "PERMISSION_DENIED"


def test_delete_from_disk_only_through_a_valid_challenge(
        gateway: Gateway, library: str, recorder: Recorder, tmp_path: Path) -> None:
    root = Path(ok(gateway, "library.info", {"libraryId": library})["path"])
    import_paths(gateway, library, save_pictures(tmp_path / "src", [4, 5]))
    args = {"libraryId": library}
    first = call(gateway, "library.delete-from-disk", args, FULL)
    assert first["status"] == "confirmation_required"  # Full Access goes through it too
    report = first["riskReport"]
    assert report["count"] == 2 and report["irreversible"] is True
    assert "Moodboards" in report["summary"] and "stateToken" not in report
    assert root.is_dir()
    wrong = call(gateway, "library.delete-from-disk",
                 {**args, "confirmChallenge": "ch_000000000000"}, FULL)
    assert code(wrong) == "CHALLENGE_INVALID"
    other = call(gateway, "library.delete-from-disk",
                 {**args, "confirmChallenge": first["challenge"]["id"]}, CLAUDE)
    assert code(other) == "CHALLENGE_INVALID"  # another credential
    assert root.is_dir()

    second = call(gateway, "library.delete-from-disk", args, CLAUDE)
    import_paths(gateway, library, save_pictures(tmp_path / "more", [6]))  # it changed
    moved_on = call(gateway, "library.delete-from-disk",
                    {**args, "confirmChallenge": second["challenge"]["id"]}, CLAUDE)
    assert code(moved_on) == "CHALLENGE_INVALID" and root.is_dir()

    third = call(gateway, "library.delete-from-disk", args, CLAUDE)
    done = call(gateway, "library.delete-from-disk",
                {**args, "confirmChallenge": third["challenge"]["id"]}, CLAUDE)
    assert done["status"] == "ok", done
    assert done["result"]["deleted"] is True and done["result"]["assetCount"] == 3
    assert not root.exists() and list(root.parent.iterdir()) == []
    assert ok(gateway, "library.list-open")["items"] == []
    assert code(call(gateway, "library.info", args)) == "LIBRARY_NOT_OPEN"
    assert all(item["path"] != str(root) for item in ok(gateway, "library.list-recent")["items"])
    deleted = recorder.wait_for(LibraryLifecycle, lambda e: e.action == "deleted")
    assert deleted.library_id == library and deleted.actor_label == CLAUDE.label
    replay = call(gateway, "library.delete-from-disk",
                  {**args, "confirmChallenge": third["challenge"]["id"]}, CLAUDE)
    assert replay["status"] == "error"


def test_imports_are_analysed_and_near_duplicates_found(gateway: Gateway, library: str,
                                                        recorder: Recorder,
                                                        tmp_path: Path) -> None:
    source = tmp_path / "src"
    paths = save_pictures(source, [7, 8])
    picture(7).resize((200, 150)).save(source / "pic-007 small.jpg", quality=80)
    ids = import_paths(gateway, library, [*paths, source / "pic-007 small.jpg"])
    queued = wait_until(lambda: ok(gateway, "task.list", {"libraryId": library})["items"],
                        "analysis queued after the import")
    assert queued[0]["kind"] == "analysis" and queued[0]["total"] == 3
    task = finished(gateway, library, queued[0]["id"])
    assert task["status"] == "done" and task["result"] == {"analysed": 3}
    progress = recorder.wait_for(TaskProgress, lambda e: e.command == "analysis.run")
    assert progress.task_id == queued[0]["id"]  # a background task: named by its task id
    assert progress.request_id == 0 and progress.library_id == library


    found = ok(gateway, "asset.find-duplicates", {"libraryId": library}, READER)
    assert [sorted(g["assetIds"]) for g in found["items"]] == [sorted([ids[0], ids[2]])]
    assert found["analysed"] == 3 and found["notAnalysed"] == 0

    again = ok(gateway, "analysis.run", {"libraryId": library, "assetIds": ids[:1],
                                         "force": True}, CLAUDE)["task"]
    assert finished(gateway, library, again["id"])["result"] == {"analysed": 1}
    unchanged = ok(gateway, "task.cancel", {"libraryId": library, "taskId": again["id"]},
                   CLAUDE)
    assert unchanged["status"] == "done"  # finished tasks stay as they were
    assert code(call(gateway, "task.cancel", {"libraryId": library, "taskId": again["id"]},
                     READER)) == "PERMISSION_DENIED"
    assert code(call(gateway, "analysis.run", {"libraryId": library}, READER)) == \
        "PERMISSION_DENIED"
    missing = call(gateway, "task.get", {"libraryId": library,
                                         "taskId": "tsk_0000000000zzzzzzzzzzzzzzzz"})
    assert code(missing) == "NOT_FOUND" and missing["error"]["libraryId"] == library
    assert code(call(gateway, "task.list", {"libraryId": library, "limit": 0})) == \
        "INVALID_ARGUMENT"


def fake_library(folder: Path) -> Path:
    folder.mkdir()
    (folder / "library.sqlite").write_bytes(b"")
    return folder


def test_a_deletion_cut_short_by_a_crash_is_finished_later(gateway: Gateway, library: str,
                                                           tmp_path: Path) -> None:
    """Serpent stopped after the library folder was moved aside for deletion but before it
    was removed: the next start, or library.list-recent, finishes the job, and touches
    nothing but such a folder beside a library it knew."""
    root = Path(ok(gateway, "library.info", {"libraryId": library})["path"])
    ok(gateway, "library.close", {"libraryId": library})
    parent = root.parent
    tombstone = parent / f".{root.name}.deleting-{library}"
    root.rename(tombstone)  # what the worker does once the delete is confirmed
    elsewhere = fake_library(tmp_path / "elsewhere")
    decoys = [
        parent / f".{root.name}.deleting-lib_nodatabase",  # not a library
        parent / f".{root.name}.deleting-lib_linked",  # a link to a library elsewhere
        parent / f".{root.name}.deleting-lib_sqlitelink",  # its database is a link
        parent / f".{root.name}.deleting-lib_abc.old",  # not the exact pattern
        parent / ".Other.serpent.deleting-lib_other",  # not a library Serpent knew
    ]
    decoys[0].mkdir()
    (decoys[0] / "notes.txt").write_text("mine")
    decoys[1].symlink_to(elsewhere, target_is_directory=True)
    decoys[2].mkdir()
    (decoys[2] / "library.sqlite").symlink_to(elsewhere / "library.sqlite")
    fake_library(decoys[3])
    fake_library(decoys[4])

    recent = ok(gateway, "library.list-recent")["items"]
    assert not tombstone.exists()
    assert all(item["path"] != str(root) for item in recent)  # the deletion is complete
    assert all(path.exists() or path.is_symlink() for path in decoys)
    assert (elsewhere / "library.sqlite").is_file() and (decoys[0] / "notes.txt").is_file()

    # the same at the next start, before anyone asks
    other = ok(gateway, "library.create", {"selectedParentPath": str(parent), "name": "Refs"})
    ok(gateway, "library.close", {"libraryId": other["libraryId"]})
    cut_short = parent / f".Refs.serpent.deleting-{other['libraryId']}"
    Path(other["path"]).rename(cut_short)
    restarted = Gateway(gateway.settings)
    try:
        wait_until(lambda: not cut_short.exists(), "the deletion finished at start")
        recent = ok(restarted, "library.list-recent")["items"]
        assert all(item["path"] != other["path"] for item in recent)
    finally:
        restarted.shutdown()
    assert all(path.exists() or path.is_symlink() for path in decoys)


def damage_pages(database: Path) -> None:
    data = bytearray(database.read_bytes())
    noise = random.Random(3)
    for offset in range(4 * 4096, len(data), 2 * 4096):
        data[offset + 8: offset + 3000] = bytes(noise.randrange(256) for _ in range(2992))
    database.write_bytes(bytes(data))


def test_a_damaged_library_is_library_damaged_and_repair_opens_what_is_left(
        gateway: Gateway, library: str, tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 6)
    path = Path(ok(gateway, "library.info", {"libraryId": library})["path"])
    ok(gateway, "library.close", {"libraryId": library})
    damage_pages(path / "library.sqlite")
    (path / ".clean-close").unlink(missing_ok=True)
    damaged = path.joinpath("library.sqlite").read_bytes()

    answer = call(gateway, "library.open", {"path": str(path)}, CLAUDE)
    error = answer["error"]
    assert error["code"] == "LIBRARY_DAMAGED" and error["hint"] == "library.repair"
    assert "incidentId" not in error and "retryable" not in error
    assert "recover what it can still read into a new library" in error["message"]

    repaired = ok(gateway, "library.repair", {"path": str(path)}, CLAUDE)
    assert repaired["name"] == "Moodboards (recovered)" and repaired["open"]
    assert Path(repaired["path"]) == path.parent / "Moodboards (recovered).serpent"
    assert repaired["damagedPath"] == str(path) and repaired["assets"] == 6
    assert repaired["summary"].startswith("Recovered 6 assets into “Moodboards (recovered)”")
    assert repaired["summary"].endswith("The damaged library is left as it was.")
    assert path.joinpath("library.sqlite").read_bytes() == damaged
    opened = ok(gateway, "library.list-open")["items"]
    assert [r["libraryId"] for r in opened] == [repaired["libraryId"]]
    assert ok(gateway, "asset.search", {"libraryId": repaired["libraryId"]})["total"] == 6
    recent = ok(gateway, "library.list-recent")["items"]
    assert recent[0]["path"] == repaired["path"]


def test_repair_takes_a_path_or_an_open_librarys_id_and_needs_manage(
        gateway: Gateway, library: str, tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 2)
    path = ok(gateway, "library.info", {"libraryId": library})["path"]
    assert code(call(gateway, "library.repair", {})) == "INVALID_ARGUMENT"
    assert code(call(gateway, "library.repair", {"path": path, "libraryId": library})) == \
        "INVALID_ARGUMENT"
    assert code(call(gateway, "library.repair", {"libraryId": "lib_nope"})) == \
        "LIBRARY_NOT_OPEN"
    assert code(call(gateway, "library.repair", {"path": path}, READER)) == \
        "PERMISSION_DENIED"
    assert code(call(gateway, "library.repair", {"path": str(tmp_path)})) == "PATH_NOT_FOUND"
    copy = ok(gateway, "library.repair", {"libraryId": library})  # an intact one: all of it
    assert copy["complete"] and copy["assets"] == 2 and copy["filesAdopted"] == 0
    assert copy["summary"] == ("Recovered 2 assets into “Moodboards (recovered)” — everything "
                               "could be read. The damaged library is left as it was.")
    assert {r["libraryId"] for r in ok(gateway, "library.list-open")["items"]} == {
        library, copy["libraryId"]}, "the library it came from stays open"
