"""Fixtures for the plugin tests: a real gateway and library worker, a real plugin manager
whose plugins run in real host processes, the plugins folder in the test's user data dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.contributions import Limits
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from tests.automation.conftest import Recorder
from tests.waiting import wait_until  # noqa: F401  (older tests import it from here)

WAIT_S = 60.0
TEST_LIMITS = Limits(load_s=60.0, will_hook_s=3.0, did_hook_s=30.0, plan_s=30.0,
                     analyser_s=60.0)


@pytest.fixture
def plugins_dir() -> Path:
    folder = app_dirs().ensure().plugins
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    gw = Gateway(SettingsStore(app_dirs().settings_file), strict_outputs=True)
    try:
        yield gw
    finally:
        gw.shutdown()


@pytest.fixture
def recorder(gateway: Gateway) -> Recorder:
    return Recorder(gateway)


Factory = Callable[..., PluginManager]


@pytest.fixture
def make_manager(gateway: Gateway, plugins_dir: Path) -> Iterator[Factory]:
    """`make_manager(limits=..., entry_points=False)`: a started manager (shut down after)."""
    made: list[PluginManager] = []

    def make(limits: Limits = TEST_LIMITS, **options: Any) -> PluginManager:
        dirs = app_dirs()
        manager = PluginManager(gateway, SettingsStore(dirs.settings_file), plugins_dir,
                                status_file=dirs.plugin_status, limits=limits,
                                entry_points=options.pop("entry_points", False), **options)
        made.append(manager)
        manager.start().result(WAIT_S)
        return manager

    yield make
    for manager in made:
        manager.shutdown()


@pytest.fixture
def manager(make_manager: Factory) -> PluginManager:
    return make_manager()


