"""An import from the window and one from an AI client have the same side effects.

Asserted on what the hooks make observable: gateway events, the analysis queue, the history
entry and the audit line. The one difference allowed is the label, and that the window is
told by toast about an import it did not make itself.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.analysis import AnalysisRequest
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.events import (
    ChangeMade,
    LibraryChanged,
    LibraryLifecycle,
    Toast,
)
from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, TIMEOUT, UI, Recorder, import_images, ok
from tests.waiting import wait_until


@pytest.fixture
def queued(gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> list[AnalysisRequest]:
    """Every analysis request the completion hooks queue (the feeder takes them at once)."""
    requests: list[AnalysisRequest] = []
    queue = gateway.hooks.analysis
    enqueue = queue.enqueue

    def recording(request: AnalysisRequest) -> None:
        requests.append(request)
        enqueue(request)

    monkeypatch.setattr(queue, "enqueue", recording)
    return requests


@pytest.mark.parametrize("caller", [UI, CLAUDE], ids=["ui", "mcp"])
def test_import_side_effects(gateway: Gateway, library: str, recorder: Recorder,
                             queued: list[AnalysisRequest], tmp_path: Path, caller: Caller,
                             caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="serpent.audit"):
        assets = import_images(gateway, library, tmp_path / "src", 3, caller=caller)
    label, source = caller.label, caller.source

    changed = recorder.wait_for(LibraryChanged, lambda e: e.command == "file.import")
    assert (changed.library_id, changed.actor_label, changed.source) == (library, label,
                                                                         source)
    assert "asset" in changed.kinds and changed.change_sequence >= 1

    assert queued == [AnalysisRequest(library, tuple(assets), "import", label, source)]
    if gateway.analysis_feeder.enabled:  # the worker analyses: the queue went to it
        task = wait_for_analysis_task(gateway, library)
        assert task["kind"] == "analysis" and task["total"] == len(assets)
    else:  # it waits in the queue until the worker can analyse
        assert gateway.hooks.analysis.pending() == [
            AnalysisRequest(library, tuple(assets), "import", label, source)]

    [receipt] = recorder.of(ChangeMade)
    assert (receipt.library_id, receipt.command, receipt.actor_label, receipt.source) == (
        library, "file.import", label, source)
    assert receipt.undoable and receipt.text == "imported 3 files into “Moodboards”"
    entry = ok(gateway, "history.list", {"libraryId": library})["items"][0]
    assert entry["command"] == "file.import" and entry["actor"]["label"] == label
    assert entry["actor"]["source"] == source

    [lifecycle] = recorder.of(LibraryLifecycle)
    assert (lifecycle.action, lifecycle.name, lifecycle.count, lifecycle.actor_label) == (
        "imported", "Moodboards", 3, label)
    toasts = recorder.of(Toast)
    if source == "ui":
        assert toasts == []
    else:
        assert toasts == [Toast(f"{label} imported 3 files into “Moodboards”.", "info", label)]

    audit = [r.getMessage() for r in caplog.records if "command=file.import" in
             r.getMessage()]
    assert len(audit) == 1 and f'label="{label}"' in audit[0] and audit[0].endswith("ok")


def wait_for_analysis_task(gateway: Gateway, library: str) -> dict[str, Any]:
    """The analysis task the feeder queued in the worker (polls task.list; no timing)."""
    tasks: list[dict[str, Any]] = wait_until(
        lambda: ok(gateway, "task.list", {"libraryId": library})["items"],
        "the imported assets to be queued for analysis", TIMEOUT, interval=0.05)
    return tasks[0]


def test_duplicates_are_not_queued_twice(gateway: Gateway, library: str,
                                         queued: list[AnalysisRequest],
                                         tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 2)
    again = ok(gateway, "file.import", {"libraryId": library,
                                        "sourcePaths": [str(tmp_path / "src")]}, CLAUDE)
    assert again["imported"] == 0 and again["duplicates"] == 2
    assert len(queued) == 1


def test_changes_from_any_source_reach_subscribers(gateway: Gateway, library: str,
                                                   recorder: Recorder, tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": [asset], "tags": ["sky"]},
       CLAUDE)
    event = recorder.wait_for(LibraryChanged, lambda e: e.command == "asset.tag")
    assert event.actor_label == "Claude Desktop via MCP" and asset in event.entity_ids
    sequence = ok(gateway, "library.change-sequence", {"libraryId": library})
    assert event.change_sequence == sequence["changeSequence"]
