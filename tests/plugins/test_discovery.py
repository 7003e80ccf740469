"""Finding plugins: the shipped ones, the person's folders, installed packages' entry points;
a broken plugin is reported with why, never fatal, and no plugin code runs while finding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from serpent_tk.plugins.discovery import discover
from serpent_tk.plugins.manager import PluginManager
from tests.plugins.samples import COUNTER, write_plugin

SIDE_EFFECT = '''
    from pathlib import Path
    (Path(__file__).parent / "imported.txt").write_text("code ran")
''' + COUNTER.split("from pathlib import Path", 1)[1]


def by_id(found: list) -> dict:
    return {plugin.id: plugin for plugin in found}


def test_the_shipped_plugins_are_found_like_any_other() -> None:
    found = by_id(discover(None, entry_points=False))
    assert set(found) == {"contact-sheet", "rename-pattern", "ocr-text"}
    sheet = found["contact-sheet"]
    assert sheet.origin == "built-in" and sheet.problem is None
    assert sheet.manifest is not None and sheet.manifest.contributes.commands == ["make"]
    assert found["rename-pattern"].manifest.contributes.commands == ["apply"]  # type: ignore[union-attr]
    assert found["ocr-text"].manifest.contributes.analysers == ["read-text"]  # type: ignore[union-attr]


def test_broken_folders_are_reported_and_the_good_ones_found(plugins_dir: Path) -> None:
    write_plugin(plugins_dir, "good-one", SIDE_EFFECT, commands=("count",))
    (plugins_dir / "no-manifest").mkdir()
    bad = plugins_dir / "bad-toml"
    bad.mkdir()
    (bad / "plugin.toml").write_text("id = \n")
    write_plugin(plugins_dir, "future-only", COUNTER, commands=("count",), serpent=">=9")
    missing = write_plugin(plugins_dir, "lost-module", COUNTER, commands=("count",))
    (missing / "lost_module.py").unlink()
    write_plugin(plugins_dir, "wrong-field", COUNTER, commands=("count",))
    text = (plugins_dir / "wrong-field" / "plugin.toml").read_text()
    (plugins_dir / "wrong-field" / "plugin.toml").write_text(text + "colour = \"red\"\n")
    misnamed = write_plugin(plugins_dir, "misnamed", COUNTER, commands=("count",))
    misnamed.rename(plugins_dir / "other-name")
    write_plugin(plugins_dir, "rename-pattern", COUNTER, commands=("count",),
                 module="impostor")  # the id of a shipped plugin

    found = discover(plugins_dir, entry_points=False)
    problems = {plugin.location.rsplit("/", 1)[-1]: plugin.problem for plugin in found
                if plugin.origin == "folder"}
    assert problems["good-one"] is None
    assert "has no plugin.toml" in problems["no-manifest"]  # type: ignore[operator]
    assert "not valid TOML" in problems["bad-toml"]  # type: ignore[operator]
    assert problems["future-only"] == "made for Serpent >=9; this is Serpent 0.1.0"
    assert "module lost_module is not in the folder" in problems["lost-module"]  # type: ignore[operator]
    assert "colour: not a manifest field" in problems["wrong-field"]  # type: ignore[operator]
    assert "named like the plugin's id (misnamed)" in problems["other-name"]  # type: ignore[operator]
    assert "already has the id 'rename-pattern'" in problems["rename-pattern"]  # type: ignore[operator]
    assert by_id(found)["future-only"].incompatible
    assert not (plugins_dir / "good-one" / "imported.txt").exists(), "finding ran plugin code"


def test_an_installed_package_is_found_through_its_entry_point(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_manager: object) -> None:
    site = tmp_path / "site"
    package = site / "studio_tools"
    write_plugin(site, "studio_tools", COUNTER, commands=("count",), module="studio_tools.plugin")
    (package / "studio_tools.plugin.py").rename(package / "plugin.py")
    (package / "__init__.py").write_text("")
    manifest = (package / "plugin.toml").read_text().replace('id = "studio_tools"',
                                                             'id = "studio-tools"')
    (package / "plugin.toml").write_text(manifest)
    info = site / "studio_tools-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: studio-tools\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[serpent_tk.plugins]\nstudio-tools = studio_tools.plugin\n")
    monkeypatch.syspath_prepend(str(site))

    found = by_id(discover(None))
    plugin = found["studio-tools"]
    assert plugin.origin == "entry point" and plugin.problem is None, plugin
    assert plugin.location == "studio_tools.plugin"
    assert "studio_tools.plugin" not in sys.modules, "finding imported the plugin"
    manager: PluginManager = make_manager(entry_points=True)  # type: ignore[operator]
    state = manager.set_enabled("studio-tools", True)
    assert state.status == "running", state
