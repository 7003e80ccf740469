"""The gateway end to end through a real worker: global commands, binding, validation."""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from library.protocol import CallMeta
from library.schemas import AssetBatchOut, AssetIds, Model
from serpent_tk.automation.events import LibraryLifecycle, ShowInDesktop, TaskProgress, Toast
from serpent_tk.automation.gateway import Gateway
from serpent_tk.automation.plugins.specs import plugin_command
from tests.automation.conftest import (
    CLAUDE,
    FULL,
    READER,
    UI,
    Recorder,
    call,
    code,
    import_images,
    make_images,
    ok,
)


def test_create_list_info_and_the_envelope(gateway: Gateway, library: str) -> None:
    listed = ok(gateway, "library.list-open")
    assert [item["libraryId"] for item in listed["items"]] == [library]
    assert listed["nextCursor"] is None and listed["truncated"] is False
    info = call(gateway, "library.info", {"libraryId": library}, READER)
    assert info["status"] == "ok" and info["libraryId"] == library
    assert info["result"]["name"] == "Moodboards"
    assert info["libraryChangeSequence"] == info["result"]["changeSequence"]
    sequence = ok(gateway, "library.change-sequence", {"libraryId": library}, READER)
    assert sequence["changeSequence"] == info["result"]["changeSequence"]
    answer = call(gateway, "library.list-open", {}, CLAUDE)
    assert set(answer) == {"status", "result"}  # global: no libraryId, no sequence


def test_tool_names_work_like_dotted_names(gateway: Gateway, library: str) -> None:
    by_tool = ok(gateway, "serpent_library_info", {"libraryId": library}, CLAUDE)
    assert by_tool == ok(gateway, "library.info", {"libraryId": library}, CLAUDE)


def test_library_required_and_never_guessed(gateway: Gateway, library: str) -> None:
    for args in ({}, {"libraryId": None}, {"libraryId": ""}):
        answer = call(gateway, "asset.search", args, CLAUDE)
        assert code(answer) == "LIBRARY_REQUIRED"
        assert "libraryId" not in answer["error"]  # no library was targeted
    assert code(call(gateway, "history.undo", {}, UI)) == "LIBRARY_REQUIRED"


def test_unknown_library_and_closed_library(gateway: Gateway, library: str) -> None:
    answer = call(gateway, "library.info", {"libraryId": "lib_nope0000000000"}, CLAUDE)
    assert code(answer) == "LIBRARY_NOT_FOUND"
    assert answer["error"]["libraryId"] == "lib_nope0000000000"
    sequence = ok(gateway, "library.change-sequence", {"libraryId": library})
    closed = call(gateway, "library.close", {"libraryId": library}, UI)
    assert closed == {"status": "ok", "libraryId": library,
                      "libraryChangeSequence": sequence["changeSequence"],
                      "result": {"closed": True}}
    answer = call(gateway, "library.info", {"libraryId": library}, CLAUDE)
    assert code(answer) == "LIBRARY_NOT_OPEN" and answer["error"]["libraryId"] == library
    assert ok(gateway, "library.list-open")["items"] == []


def test_unknown_and_hidden_plugin_commands_answer_alike(
        gateway: Gateway, library: str) -> None:
    class TargetsIn(Model):
        asset_ids: AssetIds

    def handler(library_id: str, args: dict[str, Any], meta: CallMeta) -> Future[dict[str, Any]]:
        done: Future[dict[str, Any]] = Future()
        done.set_result({"items": [], "changed": 0})
        return done

    gateway.registry.add_plugin_commands("pixel-tools", [plugin_command(
        "pixel-tools", "upscale", input_model=TargetsIn, output_model=AssetBatchOut,
        summary="Upscale images with the pixel tools plugin for sharper previews.",
        returns="per-asset results.", handler=handler,
        example={"libraryId": "lib_01j9z3k4m5n6p7q8", "assetIds": ["ast_01j9z3k4m5n6p7q8"]})])
    args = {"libraryId": library, "assetIds": ["ast_0000000000"]}
    unexposed = call(gateway, "serpent_plugin_pixel_tools_upscale", args, FULL)["error"]
    assert unexposed["message"] == "Unknown tool: serpent_plugin_pixel_tools_upscale"
    gateway.exposure.set_exposed("pixel-tools", True)  # Settings → Plugins: Expose to MCP

    def answer(name: str, caller: Any) -> dict[str, Any]:
        error = call(gateway, name, args, caller)["error"]
        return {k: v.replace(name, "NAME") if isinstance(v, str) else v
                for k, v in error.items()}

    unknown = answer("serpent_no_such_tool", CLAUDE)
    assert unknown == {"code": "NOT_FOUND", "message": "Unknown tool: NAME", "field": "name"}
    assert answer("serpent_plugin_pixel_tools_upscale", CLAUDE) == unknown  # auto mode
    assert answer("serpent_plugin_pixel_tools_upscale", READER) == unknown
    assert call(gateway, "serpent_plugin_pixel_tools_upscale", args, FULL)["status"] == "ok"
    assert call(gateway, "plugin.pixel-tools.upscale", args, UI)["status"] == "ok"


@pytest.mark.parametrize("args,field", [
    ({"assetIds": "not-a-list"}, "assetIds"),
    ({"assetIds": ["bad id"]}, "assetIds.0"),
    ({"assetIds": ["ast_0000000000"], "tags": []}, "tags"),
    ({"assetIds": ["ast_0000000000"], "tags": ["x"], "colour": "red"}, "colour"),
    ({"tags": ["x"]}, "assetIds"),
])
def test_invalid_arguments_name_the_field_and_change_nothing(
        gateway: Gateway, library: str, args: dict[str, Any], field: str) -> None:
    before = ok(gateway, "library.change-sequence", {"libraryId": library})
    answer = call(gateway, "asset.tag", {"libraryId": library, **args}, CLAUDE)
    assert code(answer) == "INVALID_ARGUMENT"
    assert answer["error"]["field"] == field and answer["error"]["message"].startswith(field)
    # docs/contracts.md §2: a targeted library is named
    assert answer["error"]["libraryId"] == library
    assert ok(gateway, "library.change-sequence", {"libraryId": library}) == before


def test_gateway_fields_are_refused_where_they_do_not_belong(gateway: Gateway,
                                                             library: str) -> None:
    answer = call(gateway, "library.list-open", {"libraryId": library}, CLAUDE)
    assert code(answer) == "INVALID_ARGUMENT" and answer["error"]["field"] == "libraryId"
    answer = call(gateway, "asset.tag", {"libraryId": library, "assetIds": ["ast_0000000000"],
                                         "tags": ["x"], "confirmChallenge": "ch_x"}, CLAUDE)
    assert answer["error"]["field"] == "confirmChallenge"
    answer = call(gateway, "asset.search", {"libraryId": library, "idempotencyKey": "k"},
                  CLAUDE)
    assert answer["error"]["field"] == "idempotencyKey"
    answer = call(gateway, "trash.empty", {"libraryId": library, "stateToken": "st_x"}, CLAUDE)
    assert answer["error"]["field"] == "stateToken"
    assert code(gateway.submit("library.info", "nope", CLAUDE).result(30)) == \
        "INVALID_ARGUMENT"  # type: ignore[arg-type]
    assert code(call(gateway, "asset.search", {"libraryId": 7}, CLAUDE)) == "INVALID_ARGUMENT"


def test_version_conflict_carries_the_current_version(gateway: Gateway, library: str,
                                                      tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    version = ok(gateway, "asset.get", {"libraryId": library, "assetIds": [asset]})[
        "items"][0]["version"]
    ok(gateway, "asset.update", {"libraryId": library, "assetId": asset, "rating": 4,
                                 "expectedVersion": version}, CLAUDE)
    answer = call(gateway, "asset.update", {"libraryId": library, "assetId": asset,
                                            "rating": 1, "expectedVersion": version}, CLAUDE)
    assert answer["status"] == "error"
    assert answer["error"] == {"code": "VERSION_CONFLICT", "message": answer["error"]["message"],
                               "currentVersion": version + 1, "libraryId": library,
                               "assetId": asset}


def test_an_idempotency_key_makes_a_retry_harmless(gateway: Gateway, library: str,
                                                   tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    args = {"libraryId": library, "assetIds": [asset], "tags": ["sky"],
            "idempotencyKey": "claude-req-1"}
    first = call(gateway, "asset.tag", args, CLAUDE)
    again = call(gateway, "asset.tag", args, CLAUDE)
    assert first["result"] == again["result"]
    history = ok(gateway, "history.list", {"libraryId": library})["items"]
    assert [h["command"] for h in history] == ["asset.tag", "file.import"]


def test_open_an_existing_library_and_the_recent_list(gateway: Gateway, library: str,
                                                      recorder: Recorder) -> None:
    ref = ok(gateway, "library.list-open")["items"][0]
    recent = ok(gateway, "library.list-recent", {}, READER)
    assert [(r["name"], r["open"], r["libraryId"], r["exists"]) for r in recent["items"]] == [
        ("Moodboards", True, library, True)]
    assert recent["nextCursor"] is None and recent["truncated"] is False
    ok(gateway, "library.close", {"libraryId": library}, CLAUDE)
    closed = ok(gateway, "library.list-recent")["items"][0]
    assert closed["open"] is False and closed["libraryId"] is None
    reopened = ok(gateway, "library.open", {"path": ref["path"]}, READER)
    assert reopened["libraryId"] == library and reopened["name"] == "Moodboards"
    assert ok(gateway, "library.open", {"path": ref["path"]}, CLAUDE) == reopened  # same ref
    lifecycle = [(e.action, e.actor_label) for e in recorder.of(LibraryLifecycle)]
    assert lifecycle == [("closed", "Claude Desktop via MCP"), ("opened", "Reader via MCP"),
                         ("opened", "Claude Desktop via MCP")]
    assert code(call(gateway, "library.open", {"path": str(Path(ref["path"]).parent / "no")},
                     CLAUDE)) in {"PATH_NOT_FOUND", "LIBRARY_NOT_FOUND"}


def test_rename_updates_the_recent_list(gateway: Gateway, library: str,
                                        recorder: Recorder) -> None:
    renamed = ok(gateway, "library.rename", {"libraryId": library, "name": "Skies"}, CLAUDE)
    assert renamed["name"] == "Skies"
    assert ok(gateway, "library.list-recent")["items"][0]["name"] == "Skies"
    assert ok(gateway, "library.list-open")["items"][0]["name"] == "Skies"
    assert Toast("Claude Desktop via MCP renamed “Moodboards” to “Skies”.", "info",
                 "Claude Desktop via MCP") in recorder.of(Toast)


def test_ui_notify_and_show_in_desktop_are_events_for_the_window(
        gateway: Gateway, library: str, recorder: Recorder) -> None:
    assert ok(gateway, "ui.notify", {"text": "Done tagging.\x07"}, READER) == {"shown": False}
    gateway.window_attached = True
    assert ok(gateway, "ui.notify", {"text": "Careful", "level": "warning"}, CLAUDE) == {
        "shown": True}
    assert recorder.of(Toast) == [Toast("Done tagging.", "info", "Reader via MCP"),
                                  Toast("Careful", "warning", "Claude Desktop via MCP")]
    assert code(call(gateway, "ui.notify", {"text": "  "}, CLAUDE)) == "INVALID_ARGUMENT"
    assert code(call(gateway, "ui.notify", {"text": "x", "level": "panic"}, CLAUDE)) == \
        "INVALID_ARGUMENT"
    shown = ok(gateway, "library.show-in-desktop", {"libraryId": library, "assetIds": []},
               READER)
    assert shown == {"shown": True}
    assert recorder.of(ShowInDesktop) == [ShowInDesktop(library, (), None, "Reader via MCP")]


def test_a_crashing_plugin_is_an_internal_error_with_an_incident_in_the_log(
        gateway: Gateway, library: str, caplog: pytest.LogCaptureFixture) -> None:
    class TargetsIn(Model):
        asset_ids: AssetIds

    def handler(library_id: str, args: dict[str, Any], meta: CallMeta) -> Future[dict[str, Any]]:
        raise RuntimeError("secret /opt/internal/plugin.py blew up")

    gateway.registry.add_plugin_commands("broken", [plugin_command(
        "broken", "run", input_model=TargetsIn, output_model=AssetBatchOut,
        summary="A plugin command whose implementation has a bug in it.", returns="nothing.",
        handler=handler,
        example={"libraryId": "lib_01j9z3k4m5n6p7q8", "assetIds": ["ast_01j9z3k4m5n6p7q8"]})])
    gateway.exposure.set_exposed("broken", True)
    with caplog.at_level(logging.INFO):
        answer = call(gateway, "plugin.broken.run",
                      {"libraryId": library, "assetIds": ["ast_0000000000"]}, FULL)
    error = answer["error"]
    assert error["code"] == "INTERNAL" and error["libraryId"] == library
    assert "retryable" not in error and "/opt/internal" not in json.dumps(answer)
    assert any(error["incidentId"] in r.getMessage() and r.exc_info for r in caplog.records)


def test_every_call_writes_one_audit_line_without_secrets(
        gateway: Gateway, library: str, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    secret_path = make_images(tmp_path / "very-secret-folder", 1)[0]
    with caplog.at_level(logging.INFO, logger="serpent.audit"):
        ok(gateway, "file.import", {"libraryId": library, "sourcePaths": [str(secret_path)]},
           CLAUDE)
        call(gateway, "history.undo", {"libraryId": library}, READER)
        call(gateway, "no.such-thing", {"token": "hunter2-secret"}, CLAUDE)
    lines = [r.getMessage() for r in caplog.records if r.name == "serpent.audit"]
    assert len(lines) == 3
    assert 'label="Claude Desktop via MCP" credential=claude source=mcp command=file.import ' \
           f'library={library} ' in lines[0] and lines[0].endswith("outcome=ok")
    assert "command=history.undo" in lines[1] and lines[1].endswith("PERMISSION_DENIED")
    assert lines[2].endswith("outcome=NOT_FOUND")
    assert all("very-secret" not in line and "hunter2" not in line for line in lines)


def test_a_worker_crash_is_survived_and_told(gateway: Gateway, library: str,
                                             recorder: Recorder, tmp_path: Path) -> None:
    import os
    import signal
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    pid = gateway.host.worker_pid(library)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    toast = recorder.wait_for(Toast, lambda t: t.level == "warning")
    assert "restarted" in toast.text and toast.actor_label == "Serpent"
    found = ok(gateway, "asset.get", {"libraryId": library, "assetIds": [asset]}, CLAUDE)
    assert [item["id"] for item in found["items"]] == [asset]


def test_a_cancelled_call_is_audited_and_the_gateway_stays_usable(
        gateway: Gateway, library: str, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    paths = make_images(tmp_path / "many", 40)
    with caplog.at_level(logging.INFO, logger="serpent.audit"):
        future = gateway.submit("file.import", {"libraryId": library,
                                                "sourcePaths": [str(p) for p in paths]},
                                CLAUDE)
        cancelled = future.cancel()
        ok(gateway, "library.info", {"libraryId": library}, CLAUDE)
    if cancelled:  # it had not finished yet (the usual case)
        lines = [r.getMessage() for r in caplog.records if "command=file.import" in
                 r.getMessage()]
        assert lines[0].endswith("outcome=CANCELLED")
    assert ok(gateway, "history.list", {"libraryId": library})["items"] is not None


def test_cancelling_a_call_stops_it_in_the_worker(gateway: Gateway, library: str,
                                                  recorder: Recorder, tmp_path: Path) -> None:
    """Cancelling the gateway's future reaches the worker: a long import stops early and
    keeps what it committed (nothing runs on after the caller gave up)."""
    paths = make_images(tmp_path / "many", 2000)  # long enough that the cancel lands mid-way
    future = gateway.submit("file.import", {"libraryId": library,
                                            "sourcePaths": [str(tmp_path / "many")]}, CLAUDE)
    recorder.wait_for(TaskProgress, lambda e: e.command == "file.import" and e.done >= 3)
    assert future.cancel()
    # writes run one at a time in the worker: this one answers once the import has stopped
    ok(gateway, "folder.create", {"libraryId": library, "name": "After"}, CLAUDE)
    total = ok(gateway, "asset.search", {"libraryId": library, "limit": 1})["total"]
    assert 0 < total < len(paths)


def test_submit_never_blocks_the_calling_thread(gateway: Gateway, library: str) -> None:
    """With the settings file locked by someone else, list-recent cannot finish; submit
    still returns at once, and other calls go on meanwhile."""
    import portalocker

    from tests.automation.conftest import TIMEOUT
    lock_path = gateway.settings.path.with_name(gateway.settings.path.name + ".lock")
    with portalocker.Lock(lock_path, mode="a", timeout=5):
        waiting = gateway.submit("library.list-recent", {}, READER)
        assert not waiting.done()
        assert ok(gateway, "library.list-open", {}, READER)["items"][0]["libraryId"] == library
        assert not waiting.done()
    assert waiting.result(TIMEOUT)["status"] == "ok"
