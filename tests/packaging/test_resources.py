"""Bundled resources found frozen and not; the bridge executable's command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from installer.launchers.serpent_bridge import bridge_argv
from serpent_tk import resources
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


@pytest.mark.parametrize(("argv", "expected"), [
    ([], ["mcp-bridge"]),
    (["--help"], ["mcp-bridge", "--help"]),
    (["--version"], ["--version"]),
    (["settings", "export", "f.json"], ["settings", "export", "f.json"]),
])
def test_the_bridge_executable_runs_the_bridge_unless_given_a_command(
        argv: list[str], expected: list[str]) -> None:
    assert bridge_argv(argv) == expected
