"""A plugin that fails to import, raises, hangs or dies is turned off with a clear message for
the window and the log; every other command, and every other plugin, keeps working."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.events import PluginsChanged, Toast
from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from tests.automation.conftest import Recorder, call, import_images, ok
from tests.plugins.conftest import wait_until
from tests.plugins.samples import (
    BROKEN_IMPORT,
    COUNTER,
    DYING,
    HANGING,
    RAISING,
    write_plugin,
)

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


@pytest.mark.parametrize("bad", ["explode", "hang", "die"])
def test_a_plugin_that_raises_hangs_or_dies_is_turned_off_and_nothing_else_is(
        gateway: Gateway, plugins_dir: Path, manager: PluginManager, recorder: Recorder,
        library: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, bad: str) -> None:
    source, plugin_id = {"explode": (RAISING, "raising"), "hang": (HANGING, "hanging"),
                         "die": (DYING, "dying")}[bad]
    write_plugin(plugins_dir, "counter", COUNTER, commands=("count",))
    write_plugin(plugins_dir, plugin_id, source,
                 commands=("explode", "refuse") if bad == "explode" else (bad,))
    manager.shutdown()  # one manager per gateway, as in the app: the old one's settings
    # watcher would re-apply its own view of the switches (and unexpose these plugins)
    fresh = PluginManager(gateway, SettingsStore(app_dirs().settings_file), plugins_dir,
                          limits=manager.limits, entry_points=False)
    try:
        fresh.start().result(60)
        assert fresh.set_enabled("counter", True).status == "running"
        assert fresh.set_enabled(plugin_id, True).status == "running"
        assets = import_images(gateway, library, tmp_path / "src", 2)
        if bad == "explode":  # a refusal on purpose is the caller's error, nothing more
            refused = call(gateway, "plugin.raising.refuse",
                           {"libraryId": library, "assetIds": assets})
            assert refused["error"]["code"] == "NOT_FOUND"
            assert refused["error"]["message"] == "these assets are not mine to count"
            assert fresh.state(plugin_id).status == "running"  # type: ignore[union-attr]
        with caplog.at_level(logging.WARNING, logger="serpent.plugins"):
            answer = call(gateway, f"plugin.{plugin_id}.{bad}",
                          {"libraryId": library, "assetIds": assets})
            error = answer["error"]
            assert error["code"] == "INTERNAL" and error["incidentId"], answer
            assert "turned off" in error["message"] and "Traceback" not in error["message"]
            state = wait_until(lambda: (s := fresh.state(plugin_id)) is not None and
                               s.status == "failed" and s, "the plugin to be turned off")
            assert not state.enabled
            expected = {"explode": "raised RuntimeError: the plugin's own bug",
                        "hang": "did not answer within 1 s",
                        "die": "stopped unexpectedly (exit code 3)"}[bad]
            assert expected in (state.error or ""), state.error
            toast = recorder.wait_for(Toast, lambda t: plugin_id.title() in t.text)
            assert toast.level == "warning" and "turned off" in toast.text
            assert expected in toast.text
            assert any(expected in r.getMessage() for r in caplog.records)
            if bad == "explode":
                assert any("the plugin's own bug" in r.getMessage() and "Traceback" in
                           r.getMessage() for r in caplog.records), "the trace is logged"
        assert recorder.of(PluginsChanged)
        assert saved_switches(plugin_id) == (False, False), "it stays off at the next start"
        assert gateway.registry.get(f"plugin.{plugin_id}.{bad}") is None
        unknown = call(gateway, f"plugin.{plugin_id}.{bad}",
                       {"libraryId": library, "assetIds": assets})
        assert unknown["error"]["message"].startswith("Unknown tool")
        still_working(gateway, library, assets)
        # switched on again, it gets another chance
        assert fresh.set_enabled(plugin_id, True).status == "running"
        assert fresh.state(plugin_id).error is None  # type: ignore[union-attr]
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
