"""The registry declares the whole catalogue of docs/contracts.md §1, once, consistently."""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import replace

import pytest
from pydantic import BaseModel

from library.schemas import AssetBatchOut, AssetIds, Model
from serpent_tk.automation import policy
from serpent_tk.automation.commands import build_registry
from serpent_tk.automation.plugins.specs import plugin_command
from serpent_tk.automation.registry import (
    TOOL_NAME,
    CommandSpec,
    Registry,
    tool_name_for,
)

CATALOGUE = {
    # global
    "library.list-recent", "library.list-open", "library.open", "library.create",
    "library.import-exported", "ui.notify",
    "library.repair",  # an additive extension: a damaged library recovered (issue 25)
    # library
    "library.info", "library.change-sequence", "library.show-in-desktop", "library.close",
    "library.rename", "library.export", "library.refresh", "library.delete-from-disk",
    "library.move-to-studio",  # an additive extension: onto a studio server (issue 28)
    # assets
    "file.import", "asset.search", "asset.get", "asset.update", "asset.tag", "asset.untag",
    "asset.move", "asset.copy", "asset.thumbnail", "asset.preview-status", "asset.trash",
    "asset.restore", "asset.delete-permanently", "trash.list", "trash.empty",
    "asset.rename-batch",  # an additive extension: many names in one undo step (plugins)
    # folders
    "folder.list", "folder.create", "folder.rename", "folder.move", "folder.delete-empty",
    # linked folders (`.list`: an additive extension of docs/contracts.md's catalogue)
    "linked-folder.list", "linked-folder.create", "linked-folder.reconnect",
    "linked-folder.unlink", "linked-folder.update-rules", "linked-folder.refresh",
    # tags
    "tag.list", "tag.rename", "tag.delete", "tag.delete-batch", "tag.merge",
    "tag.cooccurrence",
    # collections
    "collection.list", "collection.create", "collection.update", "collection.reorder",
    "collection.delete", "collection.members", "collection.run-rules",
    # history
    "history.list", "history.undo", "history.redo",
    # analysis and tasks
    "analysis.run", "task.list", "task.get", "task.cancel", "asset.find-duplicates",
    "asset.find-similar",  # an additive extension: "similar to this asset" (issue 12)
    # internal, for plugin analysers only (never MCP tools): what an analyser has still to
    # read, and recording the text it found (issue 30)
    "analyser.pending", "analyser.record",
}
GLOBAL = {"library.list-recent", "library.list-open", "library.open", "library.create",
          "library.import-exported", "ui.notify", "library.repair"}
DANGEROUS = {"asset.delete-permanently", "trash.empty", "library.delete-from-disk",
             "library.move-to-studio"}

REGISTRY = build_registry()
SPECS = sorted(REGISTRY.commands.values(), key=lambda s: s.name)


def test_the_registry_is_exactly_the_catalogue() -> None:
    assert set(REGISTRY.commands) == CATALOGUE


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_command_is_fully_declared(spec: CommandSpec) -> None:
    assert issubclass(spec.input_model, BaseModel) and issubclass(spec.output_model, BaseModel)
    assert spec.risk in ("read", "normal", "recoverable", "dangerous")
    assert spec.capabilities and spec.capabilities <= set(policy.CAPABILITIES)
    assert TOOL_NAME.match(spec.tool_name)
    assert spec.tool_name == "serpent_" + spec.name.replace(".", "_").replace("-", "_")
    assert spec.min_mode in ("read-only", "auto", "full-access")
    assert len(spec.summary) > 30
    assert "\nExample: {" in spec.description
    # a short name for people, not the summary's first sentence again
    assert spec.title and len(spec.title) <= 28 and spec.title.rstrip(".") != spec.one_line
    assert spec.scope == ("global" if spec.name in GLOBAL else "library")
    assert spec.dangerous == (spec.name in DANGEROUS)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_example_is_a_valid_call(spec: CommandSpec) -> None:
    example = dict(spec.example)
    if spec.scope == "library":
        assert example.pop("libraryId").startswith("lib_")
    spec.input_model.model_validate(example)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_input_schemas_are_json(spec: CommandSpec) -> None:
    schema = spec.input_schema()
    json.dumps(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    properties = schema["properties"]
    assert ("libraryId" in schema.get("required", [])) == (spec.scope == "library")
    assert ("confirmChallenge" in properties) == spec.dangerous
    assert "stateToken" not in properties
    keyed = spec.writes and (spec.scope == "library" or spec.name == "library.import-exported")
    assert ("idempotencyKey" in properties) == keyed


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_annotations_follow_the_risk(spec: CommandSpec) -> None:
    hints = spec.annotations
    assert hints.read_only == (spec.risk == "read")
    if spec.risk in ("recoverable", "dangerous"):
        assert hints.destructive
    if spec.risk == "dangerous":
        assert not hints.idempotent
    assert set(hints.as_mcp()) == {"readOnlyHint", "destructiveHint", "idempotentHint",
                                   "openWorldHint"}


def test_lowest_mode_per_risk() -> None:
    for spec in SPECS:
        if spec.risk == "read":
            assert spec.min_mode == "read-only", spec.name
        else:
            assert spec.min_mode == "auto", spec.name
    assert REGISTRY.get("history.undo").capabilities >= {policy.HISTORY_WRITE,  # type: ignore
                                                         policy.LIBRARY_READ}


def test_lookup_by_dotted_or_tool_name() -> None:
    assert REGISTRY.get("asset.trash") is REGISTRY.get("serpent_asset_trash")
    assert REGISTRY.get("serpent_ui_notify").name == "ui.notify"  # type: ignore[union-attr]
    assert REGISTRY.get("linked-folder.update-rules").tool_name == \
        "serpent_linked_folder_update_rules"  # type: ignore[union-attr]
    assert REGISTRY.get("asset_trash") is None and REGISTRY.get("nope") is None


def test_essentials_is_the_daily_loop_in_at_most_25_tools() -> None:
    essential = {s.name for s in SPECS if s.essential}
    assert len(essential) <= policy.ESSENTIALS_LIMIT
    daily = {"library.list-open", "library.open", "asset.search", "asset.thumbnail",
             "file.import", "asset.tag", "asset.update", "asset.move", "asset.trash",
             "asset.restore", "history.undo", "history.redo", "folder.list", "folder.create",
             "collection.list", "collection.members", "ui.notify", "library.show-in-desktop"}
    assert daily <= essential
    assert not {s.name for s in SPECS if s.dangerous} & essential  # those stay in everything


def test_tools_per_mode_only_grow() -> None:
    read_only, auto, full = (
        {s.name for s in REGISTRY.tools(m)} for m in ("read-only", "auto", "full-access"))
    assert read_only < auto <= full
    assert "asset.search" in read_only and "asset.trash" not in read_only
    assert "history.undo" in auto and "asset.delete-permanently" in auto
    internal = {name for name, spec in REGISTRY.commands.items() if spec.internal}
    assert internal and full == set(REGISTRY.commands) - internal  # plugins' plumbing: no tool
    assert REGISTRY.tools("no-such-mode") == []


def test_where_a_command_runs_is_on_its_spec() -> None:
    """A command the main process answers carries its handler; a worker command has none
    (the worker's is in library/worker/commands); a dangerous one is planned by the worker,
    or by its plugin."""
    for spec in REGISTRY.commands.values():
        assert (spec.handler is None) == (spec.route == "worker"), spec.name
    with pytest.raises(ValueError, match="has no handler"):
        Registry([replace(REGISTRY.commands["asset.tag"], handler=lambda call: {})])
    with pytest.raises(ValueError, match="needs a handler"):
        Registry([replace(REGISTRY.commands["library.open"], handler=None)])
    with pytest.raises(ValueError, match="needs a plan"):
        Registry([replace(REGISTRY.commands["library.close"], risk="dangerous")])


def test_every_change_has_words_for_people() -> None:
    """The window's toasts say what an AI client did from the spec's words, naming what it
    was about; a running task's words name it in the status bar."""
    for spec in REGISTRY.commands.values():
        if spec.writes:
            assert spec.words.done, f"{spec.name} has no words for what it did"
        if "{" in spec.words.done:
            assert spec.words.fallback, f"{spec.name}: words without the names are missing"
    assert {n for n, s in REGISTRY.commands.items() if s.words.doing} >= {
        "analysis.run", "library.refresh", "library.export"}


def test_a_name_clash_is_refused() -> None:
    spec = REGISTRY.commands["asset.trash"]
    with pytest.raises(ValueError, match="declared twice"):
        Registry([spec, spec])
    assert tool_name_for("a.b-c") == tool_name_for("a-b.c")


class PluginIn(Model):
    asset_ids: AssetIds


class NoTargetIn(Model):
    text: str


def _handler(library_id: str, args: dict, meta: object) -> Future[dict]:
    future: Future[dict] = Future()
    future.set_result({"items": [], "changed": 0})
    return future


def _plugin_spec(verb: str = "upscale", model: type[Model] = PluginIn) -> CommandSpec:
    return plugin_command(
        "pixel-tools", verb, input_model=model, output_model=AssetBatchOut,
        summary="Upscale images with the pixel tools plugin for sharper previews.",
        returns="per-asset results.",
        example={"libraryId": "lib_01j9z3k4m5n6p7q8", "assetIds": ["ast_01j9z3k4m5n6p7q8"]},
        handler=_handler)


def test_plugin_commands_are_full_access_only_and_announce_tool_changes() -> None:
    registry = build_registry()
    heard: list[str] = []
    unsubscribe = registry.on_change(lambda: heard.append("changed"))
    registry.add_plugin_commands("pixel-tools", [_plugin_spec()])
    spec = registry.get("serpent_plugin_pixel_tools_upscale")
    assert spec is not None and spec.min_mode == "full-access"
    assert spec.name in {s.name for s in registry.tools("full-access")}
    assert spec.name not in {s.name for s in registry.tools("auto")}
    registry.remove_plugin("pixel-tools")
    assert registry.get("plugin.pixel-tools.upscale") is None
    assert heard == ["changed", "changed"]
    unsubscribe()
    registry.add_plugin_commands("pixel-tools", [_plugin_spec()])
    assert heard == ["changed", "changed"]


def test_plugin_commands_must_take_targets_and_stay_under_their_prefix() -> None:
    registry = build_registry()
    with pytest.raises(ValueError, match="assetIds"):
        registry.add_plugin_commands("pixel-tools", [_plugin_spec("bad", NoTargetIn)])
    with pytest.raises(ValueError, match="not under"):
        registry.add_plugin_commands("other", [_plugin_spec()])
    with pytest.raises(ValueError, match="bad plugin id"):
        registry.add_plugin_commands("Bad Id", [])
