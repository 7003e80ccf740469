"""Settings → Plugins under Xvfb with the real plugin manager, real host processes and the
real settings file: the shipped plugins and a broken one are listed with their state, the
switches start, expose and stop a plugin, and a change from the command line shows live."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.settings.settings_plugins import PluginsSettingsPage
from tests.conftest import serpent_command
from tests.plugins.conftest import TEST_LIMITS
from tests.plugins.samples import BROKEN_IMPORT, COUNTER, write_plugin
from tests.ui.conftest import App

pytestmark = pytest.mark.gui



@pytest.fixture
def plugins(app: App) -> Iterator[PluginManager]:
    dirs = app_dirs().ensure()
    write_plugin(dirs.plugins, "counter", COUNTER, commands=("count",), name="Asset counter")
    write_plugin(dirs.plugins, "broken", BROKEN_IMPORT, commands=("count",),
                 name="Broken import")
    write_plugin(dirs.plugins, "future-only", COUNTER, commands=("count",), serpent=">=9",
                 name="From the future")
    manager = PluginManager(app.services.gateway, SettingsStore(dirs.settings_file),
                            dirs.plugins, status_file=dirs.plugin_status, limits=TEST_LIMITS,
                            entry_points=False, watch_interval_s=0.1)
    app.services.plugins = manager
    manager.start().result(60)
    yield manager
    manager.shutdown()


def open_page(app: App) -> PluginsSettingsPage:
    app.window.open_settings("plugins")
    window = app.window.settings_window
    assert window is not None and window.plugins is not None
    app.settle(0.1)
    return window.plugins


def saved(plugin_id: str) -> tuple[bool, bool]:
    switches = SettingsStore(app_dirs().settings_file).load().settings.plugin(plugin_id)
    return switches.enabled, switches.exposed


def test_the_plugins_page_lists_switches_and_follows_changes(
        app: App, plugins: PluginManager, tmp_path: Path) -> None:
    page = open_page(app)
    assert set(page.cards) == {"contact-sheet", "ocr-text", "rename-pattern", "counter",
                               "broken", "future-only"}
    assert page.cards["ocr-text"].status.cget("text") == "Off"  # off until asked for
    counter = page.cards["counter"]
    assert counter.title.cget("text") == "Asset counter"
    assert counter.version.cget("text").strip() == "0.3.1"
    assert counter.status.cget("text") == "Off"
    future = page.cards["future-only"]
    assert future.status.cget("text") == "Made for another Serpent version"
    assert future.enable.instate(["disabled"])
    assert future.error.cget("text") == "Made for Serpent >=9; this is Serpent 0.1.0"

    counter.enable.invoke()                                   # Enable → a host starts
    app.pump(lambda: counter.status.cget("text") == "Running", "the counter to run")
    assert saved("counter") == (True, False)
    assert plugins.state("counter").status == "running"  # type: ignore[union-attr]
    counter.expose.invoke()                                   # Expose to MCP
    app.pump(lambda: saved("counter") == (True, True), "the exposure saved")
    assert "counter" in app.services.gateway.exposure.plugins()

    broken = page.cards["broken"]
    broken.enable.invoke()                                    # it fails to import
    app.pump(lambda: broken.status.cget("text") == "Turned off after an error",
             "the broken plugin's failure")
    assert "no_such_module_anywhere" in broken.error.cget("text")
    assert not broken.enabled_var.get() and saved("broken") == (False, False)
    app.pump(lambda: any("Broken import" in t.cget("text") for t in _toast_labels(app)),
             "the toast about it")
    shot = app.shot(tmp_path, "settings-plugins", app.window.settings_window)
    with Image.open(shot) as image:
        assert image.width > 300 and image.height > 300

    # the command line turns the counter off; the open page shows it at once
    subprocess.run(serpent_command("plugin", "disable", "counter"), check=True,
                   capture_output=True, timeout=60)
    app.pump(lambda: counter.status.cget("text") == "Off" and not counter.enabled_var.get(),
             "the page to follow the command line")
    assert counter.exposed_var.get(), "exposure is its own switch"
    assert app.services.gateway.registry.get("plugin.counter.count") is None


def _toast_labels(app: App) -> list:
    labels = []
    stack = [app.root]
    while stack:
        widget = stack.pop()
        stack.extend(widget.winfo_children())
        if widget.winfo_class() in ("TLabel", "Label") and widget.winfo_ismapped():
            labels.append(widget)
    return labels
