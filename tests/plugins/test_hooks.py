"""What plugins contribute besides commands: will-hooks that may veto (asked for the window's,
an AI client's and another plugin's commands alike), did-hooks after every success,
analysers in the analysis step after imports, and a dangerous command's two-step challenge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.plugins.contributions import Limits
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.plugins.supervisor import Strikes
from tests.automation.conftest import call, import_images, ok
from tests.plugins.conftest import TEST_LIMITS, Factory
from tests.plugins.samples import ANALYSER, GUARD, PURGE, SLOW_GUARD, TAGGER, write_plugin
from tests.waiting import wait_until

UI = Caller.ui()
CLAUDE = Caller.mcp("claude", "auto", "Claude Desktop")
POWER = Caller.mcp("power", "full-access", "Power")


@pytest.fixture
def library(gateway: Gateway, tmp_path: Path) -> str:
    parent = tmp_path / "libraries"
    parent.mkdir()
    return str(ok(gateway, "library.create", {"selectedParentPath": str(parent),
                                              "name": "Refs"})["libraryId"])


def lines(path: Path) -> list[Any]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_hooks_hear_the_window_an_agent_and_a_plugin_alike(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, library: str,
        tmp_path: Path) -> None:
    guard = write_plugin(plugins_dir, "guard", GUARD, commands=("tag-through-api",),
                         will_hooks=True, did_hooks=True)
    write_plugin(plugins_dir, "tagger", TAGGER, commands=("tag",))
    manager.shutdown()  # one manager per gateway, as in the app: the old one's settings
    # watcher would re-apply its own view of the switches (and unexpose these plugins)
    fresh = PluginManager(gateway, manager._settings, plugins_dir, limits=TEST_LIMITS,
                          entry_points=False)
    try:
        fresh.start().result(60)
        assert fresh.set_enabled("guard", True).status == "running"
        assert fresh.set_enabled("tagger", True).status == "running"
        fresh.set_exposed("tagger", True)  # an AI client calls it below
        assets = import_images(gateway, library, tmp_path / "src", 2)
        target = {"libraryId": library, "assetIds": assets}
        # vetoed, whoever asks: the window, an AI client, another plugin
        for caller in (UI, CLAUDE):
            refused = call(gateway, "asset.tag", {**target, "tags": ["locked"]}, caller)
            assert refused["error"] == {
                "code": "PERMISSION_DENIED", "reason": "veto", "libraryId": library,
                "message": "The plugin “Guard” refused asset.tag: the tag locked is reserved"}
        through = call(gateway, "plugin.tagger.tag", {**target, "tags": ["locked"]}, UI)
        assert through["error"]["code"] == "PERMISSION_DENIED"
        assert "the tag locked is reserved" in through["error"]["message"]
        assert all(a["tags"] == [] for a in ok(gateway, "asset.get", target)["items"])
        # allowed ones run, and every success is heard afterwards
        ok(gateway, "asset.tag", {**target, "tags": ["sky"]}, UI)
        ok(gateway, "asset.tag", {**target, "tags": ["blue"]}, CLAUDE)
        ok(gateway, "plugin.tagger.tag", {**target, "tags": ["green"]}, POWER)
        ok(gateway, "folder.create", {"libraryId": library, "name": "Skies"}, UI)
        ok(gateway, "plugin.guard.tag-through-api", target, UI)  # its own call: not hooked
        asked = lines(guard / "will.jsonl")
        assert [a[1:] for a in asked] == [
            ["ui", "You"], ["mcp", "Claude Desktop via MCP"], ["plugin", "plugin:tagger"],
            ["ui", "You"], ["mcp", "Claude Desktop via MCP"], ["plugin", "plugin:tagger"]]
        heard = wait_until(lambda: len(lines(guard / "did.jsonl")) >= 4 and
                           lines(guard / "did.jsonl"), "the did-hooks")
        assert sorted(map(tuple, heard)) == sorted([
            ("asset.tag", "ui", "You", True),
            ("asset.tag", "mcp", "Claude Desktop via MCP", True),
            ("asset.tag", "plugin", "plugin:tagger", True),
            ("folder.create", "ui", "You", True)])
        assert {"sky", "blue", "green", "by-plugin"} == set(
            ok(gateway, "asset.get", target)["items"][0]["tags"])
        # reads never wait for hooks; the guard's trash veto holds for everyone
        assert call(gateway, "asset.trash", target, CLAUDE)["error"]["reason"] == "veto"
    finally:
        fresh.shutdown()


def test_a_will_hook_that_does_not_answer_refuses_and_twice_turns_its_plugin_off(
        gateway: Gateway, plugins_dir: Path, make_manager: Factory, library: str,
        tmp_path: Path) -> None:
    write_plugin(plugins_dir, "slow-guard", SLOW_GUARD, will_hooks=True)
    limits = Limits(load_s=60.0, will_hook_s=1.0, strikes=Strikes(allowed=2, window_s=600.0))
    manager = make_manager(limits=limits)
    assert manager.set_enabled("slow-guard", True).status == "running"
    assets = import_images(gateway, library, tmp_path / "src", 1)
    tag = {"libraryId": library, "assetIds": assets, "tags": ["sky"]}
    error = call(gateway, "asset.tag", tag, CLAUDE)["error"]
    assert error["code"] == "PLUGIN_FAILED" and error["reason"] == "timeout"
    assert "did not answer within 1 s (its will-hook slow)" in error["message"]
    assert ok(gateway, "asset.get", {"libraryId": library, "assetIds": assets})["items"][0][
        "tags"] == [], "a will-hook that timed out refuses the command it was asked about"
    assert manager.state("slow-guard").status == "running"  # type: ignore[union-attr]
    error = call(gateway, "asset.tag", tag, CLAUDE)["error"]
    assert error["code"] == "PLUGIN_FAILED" and error["reason"] == "turned-off"
    wait_until(lambda: manager.state("slow-guard").status == "failed",  # type: ignore[union-attr]
               "the hook's plugin to be turned off")
    ok(gateway, "asset.tag", tag, CLAUDE)  # nobody waits for it any more


def test_plugin_analysers_run_after_serpents_analysis_of_an_import(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, library: str,
        tmp_path: Path) -> None:
    write_plugin(plugins_dir, "orientation", ANALYSER, analysers=("orientation",))
    manager.shutdown()  # one manager per gateway, as in the app: the old one's settings
    # watcher would re-apply its own view of the switches (and unexpose these plugins)
    fresh = PluginManager(gateway, manager._settings, plugins_dir, limits=TEST_LIMITS,
                          entry_points=False)
    try:
        fresh.start().result(60)
        assert fresh.set_enabled("orientation", True).status == "running"
        assets = import_images(gateway, library, tmp_path / "src", 2, caller=CLAUDE)

        def tagged() -> list[dict[str, Any]] | None:
            items = ok(gateway, "asset.get", {"libraryId": library, "assetIds": assets})[
                "items"]
            return items if all(item["tags"] for item in items) else None

        items = wait_until(tagged, "the analyser's tags")
        assert [item["tags"] for item in items] == [["landscape"], ["landscape"]]
        assert {item["modifiedBy"]["label"] for item in items} == {"plugin:orientation"}
        tasks = ok(gateway, "task.list", {"libraryId": library})["items"]
        assert all(t["status"] == "done" for t in tasks if t["kind"] == "analysis")
    finally:
        fresh.shutdown()


def test_a_dangerous_plugin_command_needs_the_same_two_step_confirmation(
        gateway: Gateway, plugins_dir: Path, make_manager: Factory, library: str,
        tmp_path: Path) -> None:
    write_plugin(plugins_dir, "purger", PURGE, commands=("purge",))
    manager = make_manager()
    assert manager.set_enabled("purger", True).status == "running"
    manager.set_exposed("purger", True)
    spec = gateway.registry.get("plugin.purger.purge")
    assert spec is not None and spec.dangerous and "confirmChallenge" in spec.input_schema()[
        "properties"]
    assets = import_images(gateway, library, tmp_path / "src", 2)
    # the targets changed since the first call: refused, nothing runs
    one = {"libraryId": library, "assetIds": assets[:1]}
    first = call(gateway, "plugin.purger.purge", one, POWER)
    ok(gateway, "asset.tag", {**one, "tags": ["x"]})
    changed = call(gateway, "plugin.purger.purge",
                   {**one, "confirmChallenge": first["challenge"]["id"]}, POWER)
    assert changed["error"]["code"] == "CHALLENGE_INVALID"
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 2
    target = {"libraryId": library, "assetIds": assets}
    first = call(gateway, "plugin.purger.purge", target, POWER)
    assert first["status"] == "confirmation_required", first
    assert first["riskReport"]["summary"] == "Purge 2 assets for good."
    assert sorted(t["id"] for t in first["riskReport"]["targets"]) == sorted(assets)
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 2  # nothing yet
    challenge = first["challenge"]["id"]
    other = call(gateway, "plugin.purger.purge", {**target, "confirmChallenge": challenge},
                 Caller.mcp("other", "full-access"))
    assert other["error"]["code"] == "CHALLENGE_INVALID"
    done = ok(gateway, "plugin.purger.purge", {**target, "confirmChallenge": challenge},
              POWER)
    assert done == {"counted": 2}
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 0
    again = call(gateway, "plugin.purger.purge", {**target, "confirmChallenge": challenge},
                 POWER)
    assert again["error"]["code"] == "CHALLENGE_INVALID"
