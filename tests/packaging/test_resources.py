"""Bundled resources found frozen and not; the bridge executable's command line."""

from __future__ import annotations

import re
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

from installer.launchers.serpent_bridge import bridge_argv
from serpent_tk import shipped_files as resources
from serpent_tk.mcp.apps import search_app
from tests.conftest import ROOT


def test_icons_are_found_in_a_checkout() -> None:
    assert resources.icon_path(256) == ROOT / "icons" / "serpent-256.png"
    with pytest.raises(FileNotFoundError):
        resources.resource_path("icons/nope.png")


@pytest.fixture
def frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """What PyInstaller's bootloader sets up: sys.frozen, sys._MEIPASS, the app executable."""
    folder = tmp_path / "Serpent"
    (folder / "_internal" / "icons").mkdir(parents=True)
    (folder / "_internal" / "icons" / "serpent-32.png").write_bytes(b"png")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(folder / "_internal"), raising=False)
    monkeypatch.setattr(sys, "executable", str(folder / "Serpent"))
    return folder


def test_frozen_resources_come_from_the_bundle(frozen: Path) -> None:
    assert resources.is_frozen()
    assert resources.icon_path(32) == frozen / "_internal" / "icons" / "serpent-32.png"


def test_the_mcp_app_pages_ship_in_the_wheel_and_the_frozen_app() -> None:
    """Every page in serpent_tk/mcp/apps/ is package data and is collected by the spec."""
    apps = ROOT / "serpent_tk" / "mcp" / "apps"
    pages = sorted(apps.glob("*.html"))
    assert apps / "asset_search_grid.html" in pages
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_data = pyproject["tool"]["setuptools"]["package-data"]["serpent_tk.mcp.apps"]
    spec = (ROOT / "installer" / "serpent.spec").read_text()
    collected = re.findall(r'collect_data_files\("serpent_tk", includes=\[([^]]*)\]\)', spec)
    globs = [g.strip().strip('"') for found in collected for g in found.split(",")]
    for page in pages:
        in_apps = page.relative_to(apps).as_posix()
        in_package = page.relative_to(ROOT / "serpent_tk").as_posix()
        assert any(fnmatch(in_apps, g) for g in package_data), f"{in_apps} is not package data"
        assert any(fnmatch(in_package, g) for g in globs), f"the spec does not bundle {page}"
    assert search_app.search_app_html() == (apps / "asset_search_grid.html").read_text()
    assert f'"{search_app.THUMBNAIL_TOOL}"' in search_app.search_app_html()


def spec_globs() -> list[str]:
    spec = (ROOT / "installer" / "serpent.spec").read_text()
    collected = re.findall(r'collect_data_files\("serpent_tk", includes=\[([^]]*)\]\)', spec)
    return [g.strip().strip('"') for found in collected for g in found.split(",")]


def test_the_shipped_plugins_ship_in_the_wheel_and_the_frozen_app(frozen: Path) -> None:
    """Each built-in plugin's manifest is package data and bundled by the spec (its module is
    a submodule of serpent_tk, which the spec collects); frozen, discovery finds them under
    sys._MEIPASS."""
    from serpent_tk.plugins.discovery import builtin_folder, discover

    builtin = ROOT / "serpent_tk" / "plugins" / "builtin"
    manifests = sorted(builtin.glob("*/plugin.toml"))
    assert {m.parent.name for m in manifests} == {"contact_sheet", "ocr_text", "rename_pattern"}
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_data = pyproject["tool"]["setuptools"]["package-data"]["serpent_tk.plugins.builtin"]
    spec = (ROOT / "installer" / "serpent.spec").read_text()
    assert 'collect_submodules("serpent_tk")' in spec
    bundled = frozen / "_internal" / "serpent_tk" / "plugins" / "builtin"
    for manifest in manifests:
        assert any(fnmatch(manifest.relative_to(builtin).as_posix(), g) for g in package_data)
        assert any(fnmatch(manifest.relative_to(ROOT / "serpent_tk").as_posix(), g)
                   for g in spec_globs()), f"the spec does not bundle {manifest}"
        (bundled / manifest.parent.name).mkdir(parents=True)
        (bundled / manifest.parent.name / "plugin.toml").write_bytes(manifest.read_bytes())
    assert builtin_folder() == bundled
    found = discover(None, entry_points=False)
    assert {p.id for p in found if p.problem is None} == {
        "contact-sheet", "ocr-text", "rename-pattern"}


@pytest.mark.parametrize(("argv", "expected"), [
    ([], ["mcp-bridge"]),
    (["--help"], ["mcp-bridge", "--help"]),
    (["--version"], ["--version"]),
    (["settings", "export", "f.json"], ["settings", "export", "f.json"]),
])
def test_the_bridge_executable_runs_the_bridge_unless_given_a_command(
        argv: list[str], expected: list[str]) -> None:
    assert bridge_argv(argv) == expected
