from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from serpent_tk.paths import app_dirs
from serpent_tk.settings import SETTINGS_VERSION, PluginSettings, Settings, SettingsStore


@pytest.fixture
def store() -> SettingsStore:
    return SettingsStore(app_dirs().ensure().settings_file)


def test_missing_file_gives_defaults_without_notice(store: SettingsStore) -> None:
    loaded = store.load()
    assert loaded.settings == Settings()
    assert loaded.notices == []
    assert loaded.settings.mcp.enabled and loaded.settings.mcp.port == 47615


def test_save_then_load_round_trips(store: SettingsStore) -> None:
    settings = Settings()
    settings.mcp.port = 50123
    settings.ui.theme = "dark"
    settings.plugins["palette"] = PluginSettings(enabled=True, exposed=True)
    store.save(settings)
    again = store.load()
    assert again.notices == []
    assert again.settings.mcp.port == 50123
    assert again.settings.ui.theme == "dark"
    assert again.settings.plugins == {"palette": PluginSettings(enabled=True, exposed=True)}
    leftovers = [p.name for p in store.path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


@pytest.mark.parametrize("content", [
    b"{not json", b"", b"[1, 2]", b"\xff\xfe\x00garbage",
    json.dumps({"version": 1, "mcp": {"port": 80}}).encode(),  # out of range
    json.dumps({"version": 1, "ui": {"theme": "purple"}}).encode(),
    b"[" * 200_000 + b"]" * 200_000, b'{"ui":' * 5000 + b"{}" + b"}" * 5000,
    json.dumps({"version": 10**400}).encode(),  # no "newer-v<400 digits>" file name
    json.dumps({"last_library": "/a\u0000b"}).encode(),  # no path holds a NUL
])
def test_corrupt_file_is_backed_up_and_defaults_used(store: SettingsStore,
                                                    content: bytes) -> None:
    store.path.write_bytes(content)
    loaded = store.load()
    assert loaded.settings == Settings()
    assert len(loaded.notices) == 1 and "could not be read" in loaded.notices[0]
    backups = list(store.path.parent.glob("settings.json.corrupt-*"))
    assert len(backups) == 1
    assert backups[0].read_bytes() == content, "the unreadable file must be kept byte for byte"
    assert not store.path.exists()
    store.save(loaded.settings)
    assert store.load().notices == []


@pytest.mark.parametrize("geometry", ["garbage", "10x10+", "", "1x1\n+0+0", "99999999x1"])
def test_a_window_geometry_tk_would_refuse_is_forgotten(store: SettingsStore,
                                                        geometry: str) -> None:
    store.path.write_text(json.dumps({"ui": {"window_geometry": geometry, "theme": "dark"}}))
    loaded = store.load()
    assert loaded.notices == [] and loaded.settings.ui.theme == "dark"
    assert loaded.settings.ui.window_geometry is None  # the window picks its own size
    store.path.write_text(json.dumps({"ui": {"window_geometry": "1200x800+-10+20"}}))
    assert store.load().settings.ui.window_geometry == "1200x800+-10+20"


def test_newer_version_is_kept_and_not_overwritten(store: SettingsStore) -> None:
    newer = {"version": SETTINGS_VERSION + 1, "mcp": {"port": 50000}, "future": {"x": 1}}
    store.path.write_text(json.dumps(newer))
    loaded = store.load()
    assert loaded.settings == Settings()
    assert "newer Serpent" in loaded.notices[0]
    backups = list(store.path.parent.glob(f"settings.json.newer-v{SETTINGS_VERSION + 1}-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == newer


def test_two_corrupt_loads_keep_both_backups(store: SettingsStore) -> None:
    store.path.write_text("{bad one")
    store.load()
    store.path.write_text("{bad two")
    store.load()
    contents = sorted(p.read_text() for p in store.path.parent.glob("settings.json.corrupt-*"))
    assert contents == ["{bad one", "{bad two"]


def test_library_paths_are_stored_home_relative_and_follow_the_home(
        store: SettingsStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = Path.home() / "Art" / "Refs.serpent"
    settings = Settings()
    settings.remember_library(library, "Refs")
    store.save(settings)
    raw = json.loads(store.path.read_text())
    assert raw["recent_libraries"][0]["path"] == "~/Art/Refs.serpent"
    assert raw["last_library"] == "~/Art/Refs.serpent"

    other_home = tmp_path / "other-machine-home"
    other_home.mkdir()
    copied = tmp_path / "copied-settings.json"
    copied.write_text(store.path.read_text())
    monkeypatch.setenv("HOME", str(other_home))
    loaded = SettingsStore(copied).load()
    assert loaded.notices == []
    assert loaded.settings.recent_libraries[0].path == other_home / "Art" / "Refs.serpent"
    assert loaded.settings.last_library == other_home / "Art" / "Refs.serpent"


def test_paths_outside_home_stay_absolute(store: SettingsStore, tmp_path: Path) -> None:
    outside = tmp_path.parent / "shared-drive" / "Team.serpent"
    settings = Settings()
    settings.remember_library(outside, "Team")
    store.save(settings)
    assert json.loads(store.path.read_text())["last_library"] == str(outside.absolute())


def test_recent_libraries_are_most_recent_first_without_duplicates(tmp_path: Path) -> None:
    settings = Settings()
    a, b = Path.home() / "A.serpent", Path.home() / "B.serpent"
    settings.remember_library(a, "A")
    settings.remember_library(b, "B")
    settings.remember_library(a, "A")
    assert [r.name for r in settings.recent_libraries] == ["A", "B"]


def test_concurrent_updates_lose_nothing(store: SettingsStore) -> None:
    def add(key: str) -> None:
        for i in range(10):
            store.update(lambda s, k=f"{key}{i}": s.plugins.__setitem__(
                k, PluginSettings(enabled=True)))

    threads = [threading.Thread(target=add, args=(name,)) for name in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.load().settings.plugins) == 40


def test_unknown_keys_from_the_same_version_are_ignored(store: SettingsStore) -> None:
    store.path.write_text(json.dumps({"version": 1, "mcp": {"port": 50001, "later": 1},
                                      "someday": True}))
    loaded = store.load()
    assert loaded.notices == [] and loaded.settings.mcp.port == 50001


def test_version_1_plugin_switches_are_read_as_enabled_and_saved_as_version_2(
        store: SettingsStore) -> None:
    """Settings version 1 kept one bool per plugin; it meant "enabled"."""
    store.path.write_text(json.dumps({"version": 1, "plugins": {"palette": True,
                                                                "old": False}}))
    loaded = store.load()
    assert loaded.notices == []
    assert loaded.settings.plugins == {"palette": PluginSettings(enabled=True),
                                       "old": PluginSettings()}
    assert loaded.settings.plugin("never-named") == PluginSettings(enabled=False,
                                                                    exposed=False)
    store.save(loaded.settings)
    saved = json.loads(store.path.read_text())
    assert saved["version"] == SETTINGS_VERSION == 2
    assert saved["plugins"]["palette"] == {"enabled": True, "exposed": False}


@pytest.mark.parametrize("seconds", [0, -4, 61, 2.5, "8", True, None])
def test_a_slideshow_interval_out_of_reach_gives_four_seconds_back(store: SettingsStore,
                                                                  seconds: object) -> None:
    store.path.write_text(json.dumps({"ui": {"slideshow_seconds": seconds, "theme": "dark"}}))
    loaded = store.load()
    assert loaded.notices == [] and loaded.settings.ui.theme == "dark"
    assert loaded.settings.ui.slideshow_seconds == 4
    store.update(lambda s: setattr(s.ui, "slideshow_seconds", 15))
    assert store.load().settings.ui.slideshow_seconds == 15
