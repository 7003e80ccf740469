"""The completion point on its own: analysis queue, lifecycle toasts, will/did hooks."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from library.errors import INTERNAL, PERMISSION_DENIED, LibraryError
from serpent_tk.automation.analysis import AnalysisQueue, AnalysisRequest
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.commands import build_registry
from serpent_tk.automation.events import (
    ChangeMade,
    LibraryLifecycle,
    Toast,
)
from serpent_tk.automation.hooks import HookContext, Hooks, Veto
from serpent_tk.automation.registry import Registry

REGISTRY = build_registry()
IMPORT_RESULT = {"items": [
    {"sourcePath": "/a.png", "status": "imported", "assetId": "ast_aaaaaaaaaa"},
    {"sourcePath": "/b.png", "status": "duplicate", "assetId": "ast_bbbbbbbbbb"},
    {"sourcePath": "/c.png", "status": "failed", "errorCode": "UNSUPPORTED_FORMAT"},
    {"sourcePath": "/d.png", "status": "imported", "assetId": "ast_dddddddddd"},
], "imported": 2, "duplicates": 1, "failed": 1}
CLAUDE = Caller.mcp("claude", "auto", "Claude Desktop")


def context(name: str, caller: Caller, result: dict | None = None) -> HookContext:
    return HookContext(spec=REGISTRY.commands[name], caller=caller, library_id="lib_x",
                       arguments={}, result=result, library_name="Moodboards")


@pytest.mark.parametrize("caller", [Caller.ui(), CLAUDE], ids=["ui", "mcp"])
def test_import_side_effects_are_the_same_for_every_source(caller: Caller) -> None:
    events: list[object] = []
    hooks = Hooks(events.append)
    hooks.completed(context("file.import", caller, IMPORT_RESULT), 12)
    assert hooks.analysis.pending() == [AnalysisRequest(
        "lib_x", ("ast_aaaaaaaaaa", "ast_dddddddddd"), "import", caller.label, caller.source)]
    assert [e for e in events if isinstance(e, ChangeMade)] == [ChangeMade(
        "lib_x", "file.import", caller.label, caller.source, 12,
        "imported 2 files into “Moodboards”", undoable=True, lifecycle="imported")]
    lifecycle = [e for e in events if isinstance(e, LibraryLifecycle)]
    assert [(e.action, e.count, e.actor_label) for e in lifecycle] == [
        ("imported", 2, caller.label)]
    toasts = [e for e in events if isinstance(e, Toast)]
    if caller.source == "ui":
        assert toasts == []  # the person did it and sees the result in place
    else:
        assert toasts == [Toast("Claude Desktop via MCP imported 2 files into “Moodboards”.",
                                "info", "Claude Desktop via MCP")]


def test_reads_have_no_side_effects() -> None:
    events: list[object] = []
    hooks = Hooks(events.append)
    hooks.completed(context("asset.search", CLAUDE, {"items": []}), 3)
    assert events == [] and len(hooks.analysis) == 0


def test_closing_forgets_queued_analysis_of_that_library() -> None:
    events: list[object] = []
    hooks = Hooks(events.append)
    hooks.completed(context("file.import", CLAUDE, IMPORT_RESULT), 1)
    hooks.completed(context("library.close", CLAUDE, {"closed": True}), None)
    assert len(hooks.analysis) == 0
    assert Toast("Claude Desktop via MCP closed “Moodboards”.", "info",
                 "Claude Desktop via MCP") in events


def test_a_will_hook_can_veto_with_a_clear_error() -> None:
    hooks = Hooks(lambda _e: None)
    seen: list[str] = []

    def guard(ctx: HookContext) -> None:
        seen.append(ctx.spec.name)
        if ctx.spec.name == "asset.trash":
            raise Veto("assets in the 'final' folder are locked")

    remove = hooks.add_will("Lock plugin", guard)
    hooks.before(context("asset.tag", CLAUDE))
    with pytest.raises(LibraryError) as caught:
        hooks.before(context("asset.trash", CLAUDE))
    assert caught.value.code == PERMISSION_DENIED
    assert caught.value.message == ("Lock plugin refused asset.trash: assets in the 'final' "
                                    "folder are locked")
    remove()
    hooks.before(context("asset.trash", CLAUDE))
    assert seen == ["asset.tag", "asset.trash"]


def test_a_broken_will_hook_blocks_and_a_broken_did_hook_does_not() -> None:
    events: list[object] = []
    hooks = Hooks(events.append)
    hooks.add_will("Buggy", lambda ctx: 1 / 0)  # type: ignore[func-returns-value]
    with pytest.raises(LibraryError) as caught:
        hooks.before(context("asset.tag", CLAUDE))
    assert caught.value.code == INTERNAL
    did: list[str] = []
    hooks.add_did("Buggy", lambda ctx: 1 / 0)  # type: ignore[func-returns-value]
    hooks.add_did("Good", lambda ctx: did.append(ctx.spec.name))
    hooks.completed(context("asset.tag", CLAUDE, {"items": [], "changed": 0}), 5)
    assert did == ["asset.tag"]


def test_the_analysis_queue_hands_work_to_another_thread() -> None:
    queue = AnalysisQueue()
    assert queue.take(timeout=0) is None
    taken: list[AnalysisRequest | None] = []
    thread = threading.Thread(target=lambda: taken.append(queue.take(timeout=30)))
    thread.start()
    request = AnalysisRequest("lib_x", ("ast_aaaaaaaaaa",), "import", "You", "ui")
    queue.enqueue(request)
    thread.join(30)
    assert taken == [request] and len(queue) == 0


def test_the_feeder_waits_until_the_worker_can_analyse() -> None:
    """With a registry without analysis.run, queued analysis waits in the queue instead of
    being sent to a worker that cannot run it."""
    from serpent_tk.automation.analysis import AnalysisFeeder
    specs = [spec for name, spec in build_registry().commands.items()
             if name != "analysis.run"]
    registry = Registry(specs)
    queue = AnalysisQueue()
    feeder = AnalysisFeeder(queue, host=None, registry=registry)  # type: ignore[arg-type]
    feeder.start()
    request = AnalysisRequest("lib_x", ("ast_aaaaaaaaaa",), "import", "You", "ui")
    queue.enqueue(request)
    feeder.stop()
    assert not feeder.enabled and queue.pending() == [request]
    assert AnalysisFeeder(queue, host=None, registry=REGISTRY).enabled  # type: ignore[arg-type]


def receipt_text(name: str, arguments: dict, result: dict | None) -> str:
    events: list[object] = []
    hooks = Hooks(events.append)
    hooks.completed(dataclasses.replace(context(name, CLAUDE, result), arguments=arguments), 4)
    [receipt] = [e for e in events if isinstance(e, ChangeMade)]
    return receipt.text


def test_a_change_is_told_naming_what_it_was_about() -> None:
    assert receipt_text("folder.create", {"name": "Skies"}, {
        "id": "fld_aaaaaaaaaa", "name": "Skies", "parentId": None, "version": 1,
        "assetCount": 0, "childCount": 0}) == "created the folder “Skies”"
    assert receipt_text("asset.tag", {"assetIds": ["ast_aaaaaaaaaa", "ast_bbbbbbbbbb",
                                                   "ast_cccccccccc"], "tags": ["sky", "sea"]},
                        {"items": [], "changed": 3}) == "tagged 3 assets with “sky, sea”"
    assert receipt_text("asset.update", {"assetId": "ast_aaaaaaaaaa", "rating": 4},
                        {"item": {}}) == "edited 1 asset"
    assert receipt_text("history.undo", {}, {"entry": {"summary": "Tagged 2 assets with sky"}}
                        ) == "undid “Tagged 2 assets with sky”"
    assert receipt_text("tag.merge", {"sources": ["skyy"], "target": "sky"},
                        {"tags": ["skyy"], "target": "sky", "affectedAssets": 2}
                        ) == "merged “skyy” into “sky”"
    # a name the call does not carry: the words without it
    assert receipt_text("folder.rename", {"folderId": "fld_aaaaaaaaaa"}, {}) == \
        "renamed a folder"
    assert receipt_text("history.redo", {}, {"entry": {}}) == "redid a change"
