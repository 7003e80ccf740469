from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk import paths


def test_user_data_override_moves_every_directory(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.USER_DATA_ENV, str(tmp_path / "state"))
    dirs = paths.app_dirs().ensure()
    for directory in (dirs.data, dirs.config, dirs.log, dirs.cache):
        assert directory.is_dir()
        assert directory.is_relative_to(tmp_path / "state")
    assert dirs.settings_file.parent == dirs.config
    assert dirs.default_library.name == "My Library.serpent"
    assert dirs.default_library.is_relative_to(dirs.data)


def test_without_override_platform_dirs_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paths.USER_DATA_ENV, raising=False)
    dirs = paths.app_dirs()
    assert "Serpent" in str(dirs.data)
    assert dirs.log != dirs.data


def test_blank_override_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.USER_DATA_ENV, "  ")
    assert "Serpent" in str(paths.app_dirs().data)


def test_portable_paths_are_home_relative(tmp_path: Path) -> None:
    home = Path.home()
    inside = home / "Pictures" / "Refs.serpent"
    assert paths.to_portable(inside) == "~/Pictures/Refs.serpent"
    assert paths.to_portable(home) == "~"
    outside = tmp_path.parent / "elsewhere"
    assert paths.to_portable(outside) == str(outside.absolute())
    assert paths.from_portable("~/Pictures/Refs.serpent") == inside
    assert paths.from_portable("~\\Pictures\\Refs.serpent") == inside
    assert paths.from_portable("~") == home
