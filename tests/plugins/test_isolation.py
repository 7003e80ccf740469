"""A plugin's exception is only that call's error (PLUGIN_FAILED); a plugin that fails to
import, or whose calls time out or whose process dies again and again (3 in 10 minutes), is
turned off with a clear message for the window and the log; every other command, and every
other plugin, keeps working."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.events import PluginsChanged, Toast
from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.contributions import Limits
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.plugins.supervisor import Strikes
from serpent_tk.settings import SettingsStore
from tests.automation.conftest import Recorder, call, import_images, ok
from tests.plugins.samples import (
    BROKEN_IMPORT,
    COUNTER,
    DYING,
    HANGING,
    RAISING,
    write_plugin,
)
from tests.waiting import wait_until

UI = Caller.ui()


@pytest.fixture
def library(gateway: Gateway, tmp_path: Path) -> str:
    parent = tmp_path / "libraries"
    parent.mkdir()
    return str(ok(gateway, "library.create", {"selectedParentPath": str(parent),
                                              "name": "Refs"})["libraryId"])


def saved_switches(plugin_id: str) -> tuple[bool, bool]:
    switches = SettingsStore(app_dirs().settings_file).load().settings.plugin(plugin_id)
    return switches.enabled, switches.exposed


def still_working(gateway: Gateway, library: str, assets: list[str]) -> None:
    """Serpent's own commands and the well-behaved plugin both answer."""
    assert ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets,
                                     "tags": ["fine"]})["changed"] >= 0
    counted = ok(gateway, "plugin.counter.count", {"libraryId": library, "assetIds": assets})
    assert counted == {"counted": len(assets)}


def fresh_manager(gateway: Gateway, plugins_dir: Path, manager: PluginManager,
                  limits: Limits) -> PluginManager:
    """One manager per gateway, as in the app: the fixture's is shut down first (its settings
    watcher would re-apply its own view of the switches and unexpose these plugins)."""
    manager.shutdown()
    fresh = PluginManager(gateway, SettingsStore(app_dirs().settings_file), plugins_dir,
                          limits=limits, entry_points=False)
    fresh.start().result(60)
    return fresh


def test_an_exception_in_one_call_is_that_calls_error_and_the_plugin_runs_on(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, recorder: Recorder,
        library: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    write_plugin(plugins_dir, "counter", COUNTER, commands=("count",))
    write_plugin(plugins_dir, "raising", RAISING, commands=("explode", "refuse"))
    fresh = fresh_manager(gateway, plugins_dir, manager, manager.limits)
    try:
        assert fresh.set_enabled("counter", True).status == "running"
        assert fresh.set_enabled("raising", True).status == "running"
        assets = import_images(gateway, library, tmp_path / "src", 2)
        target = {"libraryId": library, "assetIds": assets}
        refused = call(gateway, "plugin.raising.refuse", target)  # a refusal on purpose
        assert refused["error"]["code"] == "NOT_FOUND"
        assert refused["error"]["message"] == "these assets are not mine to count"
        with caplog.at_level(logging.WARNING, logger="serpent.plugins"):
            for _ in range(5):  # as often as it likes: never a strike
                error = call(gateway, "plugin.raising.explode", target)["error"]
                assert error == {"code": "PLUGIN_FAILED", "reason": "raised",
                                 "libraryId": library, "message": "The plugin “Raising” "
                                 "failed: RuntimeError: the plugin's own bug"}
        assert any("the plugin's own bug" in r.getMessage() and "Traceback" in r.getMessage()
                   for r in caplog.records), "the trace is logged"
        state = fresh.state("raising")
        assert state is not None and state.status == "running" and state.enabled
        assert gateway.registry.get("plugin.raising.explode") is not None  # still a tool
        assert call(gateway, "plugin.raising.refuse", target)["error"]["code"] == "NOT_FOUND"
        assert not [t for t in recorder.of(Toast) if "turned off" in t.text]
        assert saved_switches("raising") == (True, False)
        still_working(gateway, library, assets)
    finally:
        fresh.shutdown()


def answer_after_restarts(gateway: Gateway, command: str, target: dict[str, object]
                          ) -> dict[str, object]:
    """The command's answer once its plugin's host is not being started again (the caller
    retries WORKER_UNAVAILABLE, as `retryable` tells it to)."""
    answers: list[dict[str, object]] = []

    def answered() -> bool:
        answers.append(call(gateway, command, target))
        error = answers[-1].get("error")
        return not (isinstance(error, dict) and error.get("code") == "WORKER_UNAVAILABLE")

    wait_until(answered, f"{command} to be answered")
    return answers[-1]


@pytest.mark.parametrize("bad", ["hang", "die"])
def test_timeouts_or_crashes_turn_a_plugin_off_only_when_they_repeat(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, recorder: Recorder,
        library: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, bad: str) -> None:
    source, plugin_id = {"hang": (HANGING, "hanging"), "die": (DYING, "dying")}[bad]
    write_plugin(plugins_dir, "counter", COUNTER, commands=("count",))
    write_plugin(plugins_dir, plugin_id, source, commands=(bad,))
    limits = replace(manager.limits, strikes=Strikes(allowed=3, window_s=600.0))
    fresh = fresh_manager(gateway, plugins_dir, manager, limits)
    command = f"plugin.{plugin_id}.{bad}"
    expected = {"hang": "did not answer within 1 s",
                "die": "stopped unexpectedly (exit code 3)"}[bad]
    try:
        assert fresh.set_enabled("counter", True).status == "running"
        assert fresh.set_enabled(plugin_id, True).status == "running"
        assets = import_images(gateway, library, tmp_path / "src", 2)
        target = {"libraryId": library, "assetIds": assets}
        with caplog.at_level(logging.WARNING, logger="serpent.plugins"):
            for strike in (1, 2):  # each call fails alone; the plugin runs on
                error = answer_after_restarts(gateway, command, target)["error"]
                assert isinstance(error, dict) and error["code"] == "PLUGIN_FAILED", error
                assert error["reason"] == {"hang": "timeout", "die": "crashed"}[bad]
                assert expected in error["message"] and "turned off" not in error["message"]
                assert fresh.state(plugin_id).status == "running"  # type: ignore[union-attr]
                assert any(f"({strike} of 3 crashes or timeouts allowed within 600 s)"
                           in r.getMessage() for r in caplog.records)
            error = answer_after_restarts(gateway, command, target)["error"]
            assert isinstance(error, dict) and error["code"] == "PLUGIN_FAILED"
            assert error["reason"] == "turned-off" and "was turned off" in error["message"]
            assert "Traceback" not in error["message"]
            state = wait_until(lambda: (s := fresh.state(plugin_id)) is not None and
                               s.status == "failed" and s, "the plugin to be turned off")
            assert not state.enabled and expected in (state.error or ""), state.error
            toast = recorder.wait_for(Toast, lambda t: plugin_id.title() in t.text)
            assert toast.level == "warning" and "turned off" in toast.text
            assert expected in toast.text
            assert any("was turned off" in r.getMessage() and expected in r.getMessage()
                       for r in caplog.records), "a log line says it"
        assert recorder.of(PluginsChanged)
        assert saved_switches(plugin_id) == (False, False), "it stays off at the next start"
        assert gateway.registry.get(command) is None
        unknown = call(gateway, command, target)
        assert unknown["error"]["message"].startswith("Unknown tool")
        still_working(gateway, library, assets)
        # switched on again, it gets another chance
        assert fresh.set_enabled(plugin_id, True).status == "running"
        assert fresh.state(plugin_id).error is None  # type: ignore[union-attr]
    finally:
        fresh.shutdown()


def test_crashes_far_apart_never_turn_a_plugin_off(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, library: str,
        tmp_path: Path) -> None:
    write_plugin(plugins_dir, "dying", DYING, commands=("die",))
    limits = replace(manager.limits, strikes=Strikes(allowed=2, window_s=0.0))  # none recent
    fresh = fresh_manager(gateway, plugins_dir, manager, limits)
    try:
        assert fresh.set_enabled("dying", True).status == "running"
        target = {"libraryId": library,
                  "assetIds": import_images(gateway, library, tmp_path / "src", 1)}
        for _ in range(3):
            error = answer_after_restarts(gateway, "plugin.dying.die", target)["error"]
            assert isinstance(error, dict) and error["reason"] == "crashed", error
        assert fresh.state("dying").status == "running"  # type: ignore[union-attr]
    finally:
        fresh.shutdown()


def test_a_plugin_that_does_not_import_is_reported_and_turned_off(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, recorder: Recorder,
        library: str, tmp_path: Path) -> None:
    write_plugin(plugins_dir, "counter", COUNTER, commands=("count",))
    write_plugin(plugins_dir, "broken", BROKEN_IMPORT, commands=("count",))
    write_plugin(plugins_dir, "liar", COUNTER, commands=("count", "more"))
    manager.shutdown()  # one manager per gateway, as in the app: the old one's settings
    # watcher would re-apply its own view of the switches (and unexpose these plugins)
    fresh = PluginManager(gateway, SettingsStore(app_dirs().settings_file), plugins_dir,
                          limits=manager.limits, entry_points=False)
    try:
        fresh.start().result(60)
        assert fresh.set_enabled("counter", True).status == "running"
        broken = fresh.set_enabled("broken", True)
        assert broken.status == "failed" and not broken.enabled
        assert "no_such_module_anywhere" in (broken.error or "")
        assert "ModuleNotFoundError" in (broken.error or "")
        liar = fresh.set_enabled("liar", True)
        assert liar.status == "failed"
        assert "It declares the commands ['count'], the manifest ['count', 'more']" in (
            liar.error or "")
        assert recorder.wait_for(Toast, lambda t: "Broken" in t.text).level == "warning"
        still_working(gateway, library, import_images(gateway, library, tmp_path / "s", 1))
    finally:
        fresh.shutdown()


def test_a_plugin_that_cannot_run_cannot_be_switched_on(plugins_dir: Path,
                                                        make_manager: object) -> None:
    write_plugin(plugins_dir, "future-only", COUNTER, commands=("count",), serpent=">=9")
    manager: PluginManager = make_manager()  # type: ignore[operator]
    state = manager.state("future-only")
    assert state is not None and state.status == "incompatible" and not state.can_enable
    with pytest.raises(Exception, match="cannot run: made for Serpent >=9"):
        manager.set_enabled("future-only", True)
    assert saved_switches("future-only") == (False, False)
