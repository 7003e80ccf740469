"""The desktop app's plugin manager is made after the window's first page (`app.LatePlugins`):
Settings → Plugins works before and after, and a window closed early never starts plugins."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.app import LatePlugins
from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from tests.plugins.conftest import TEST_LIMITS
from tests.waiting import wait_until


def late(gateway: Gateway, plugins_dir: Path, made: list[PluginManager]) -> LatePlugins:
    def make() -> PluginManager:
        dirs = app_dirs()
        manager = PluginManager(gateway, SettingsStore(dirs.settings_file), plugins_dir,
                                status_file=dirs.plugin_status, limits=TEST_LIMITS,
                                entry_points=False)
        made.append(manager)
        return manager

    return LatePlugins(make)


def test_before_the_first_page_no_plugins_are_listed_then_the_shipped_ones_are(
        gateway: Gateway, plugins_dir: Path) -> None:
    made: list[PluginManager] = []
    plugins = late(gateway, plugins_dir, made)
    try:
        assert plugins.states() == []
        with pytest.raises(RuntimeError, match="still starting"):
            plugins.set_enabled("rename-pattern", True)
        plugins.start()
        states = wait_until(lambda: {s.id: s for s in plugins.states()}, "the shipped plugins")
        assert {"contact-sheet", "rename-pattern"} <= set(states)
        plugins.start()  # the app's start path runs once; a second start makes nothing new
        assert len(made) == 1
    finally:
        plugins.shutdown()


def test_a_window_closed_before_its_first_page_never_starts_plugins(
        gateway: Gateway, plugins_dir: Path) -> None:
    made: list[PluginManager] = []
    plugins = late(gateway, plugins_dir, made)
    plugins.shutdown()
    plugins.start()
    assert made == [] and plugins.states() == []
