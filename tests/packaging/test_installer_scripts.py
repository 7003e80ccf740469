"""The packaging scripts that need no PyInstaller run: archive layout, .desktop, install.sh."""

from __future__ import annotations

import configparser
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT

INSTALLER = ROOT / "installer"


def load_build_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("serpent_build", INSTALLER / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_build(tmp_path: Path) -> Path:
    """A dist/ folder shaped like PyInstaller's output (tiny stand-in executables)."""
    folder = tmp_path / "dist" / "Serpent"
    (folder / "_internal" / "icons").mkdir(parents=True)
    for size in (16, 48, 256):
        shutil.copy2(ROOT / "icons" / f"serpent-{size}.png", folder / "_internal" / "icons")
    for name in ("Serpent", "serpent-tk-bridge"):
        executable = folder / name
        executable.write_text("#!/bin/sh\necho \"$0 $*\"\n")
        executable.chmod(0o755)
    return tmp_path / "dist"


def read_desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_desktop_file_is_a_valid_application_entry() -> None:
    entry = read_desktop_entry(INSTALLER / "linux" / "serpent.desktop")
    assert entry["Type"] == "Application" and entry["Name"] == "Serpent"
    assert entry["Icon"] == "serpent" and entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == "Serpent", "Tk's window class, so docks group the window"
    assert entry["Categories"].endswith(";")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux archive")
def test_linux_archive_holds_the_app_the_desktop_file_and_install_script(
        fake_build: Path) -> None:
    build = load_build_script()
    archive = build.linux_archive(fake_build)
    assert archive.name.startswith("Serpent-") and archive.name.endswith(".tar.gz")
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert {"Serpent/Serpent", "Serpent/serpent-tk-bridge", "Serpent/serpent.desktop",
            "Serpent/install.sh", "Serpent/_internal/icons/serpent-256.png"} <= set(members)
    assert members["Serpent/install.sh"].mode & 0o111
    assert members["Serpent/Serpent"].mode & 0o111


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("sh") is None,
                    reason="install.sh is for Linux desktops")
def test_install_script_adds_menu_entry_icons_and_commands_then_removes_them(
        fake_build: Path, tmp_path: Path) -> None:
    build = load_build_script()
    archive = build.linux_archive(fake_build)
    unpacked = tmp_path / "opt with space"
    unpacked.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="tar")
    home = tmp_path / "artist"
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(["sh", str(unpacked / "Serpent" / "install.sh")], env=env,
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    app_dir = (unpacked / "Serpent").resolve()

    desktop = home / ".local" / "share" / "applications" / "serpent.desktop"
    entry = read_desktop_entry(desktop)
    assert entry["Exec"] == f'"{app_dir}/Serpent"'
    assert entry["TryExec"] == f"{app_dir}/Serpent"
    assert (home / ".local/share/icons/hicolor/256x256/apps/serpent.png").is_file()
    command = home / ".local" / "bin" / "serpent-tk"
    assert command.resolve() == app_dir / "Serpent"
    ran = subprocess.run([str(command), "serve"], capture_output=True, text=True, timeout=10,
                         check=True)
    assert ran.stdout.strip().endswith("serve")
    assert "not on your PATH" in done.stdout

    done = subprocess.run(["sh", str(unpacked / "Serpent" / "install.sh"), "--uninstall"],
                          env=env, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert not desktop.exists() and not command.exists() and not command.is_symlink()
    assert not (home / ".local/share/icons/hicolor/256x256/apps/serpent.png").exists()


def test_the_build_log_says_how_big_the_app_is(fake_build: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    build = load_build_script()
    (fake_build / "Serpent" / "_internal" / "numpy").mkdir()
    (fake_build / "Serpent" / "_internal" / "numpy" / "core.so").write_bytes(b"x" * 3_000_000)
    build.report_sizes(fake_build, [fake_build / "Serpent"])
    log = capsys.readouterr().out
    total = build.size_of(fake_build / "Serpent")
    assert total > 3_000_000
    assert f"App folder Serpent/: {total / 1e6:.1f} MB" in log
    assert "Largest parts of _internal/: numpy 3.0 MB, icons" in log


def test_the_build_refuses_packages_the_lock_does_not_pin(tmp_path: Path) -> None:
    import importlib.metadata

    build = load_build_script()
    lock = tmp_path / "dev.txt"
    pytest_version = importlib.metadata.version("pytest")
    lock.write_text(f"# header\npytest=={pytest_version} \\\n    --hash=sha256:00\n"
                    "    # via serpent-tk (pyproject.toml)\n"
                    "packaging==0.0.1 \\\n    --hash=sha256:00\n"
                    "pywin32==312 ; sys_platform == 'win32' \\\n    --hash=sha256:00\n"
                    "not-installed-anywhere==1.0 \\\n    --hash=sha256:00\n")
    expected = {"packaging": ("0.0.1", importlib.metadata.version("packaging")),
                "not-installed-anywhere": ("1.0", None)}
    if sys.platform == "win32":
        expected["pywin32"] = ("312", None)
    assert build.unlocked_packages(lock) == expected
    assert build.unlocked_packages() == {}, "this environment is the one the lock pins"


def test_the_build_script_finds_the_executables(tmp_path: Path) -> None:
    build = load_build_script()
    suffix = ".exe" if sys.platform == "win32" else ""
    assert build.executable(tmp_path, "Serpent") == tmp_path / "Serpent" / f"Serpent{suffix}"


def test_the_windows_installer_script_ships_the_whole_app_folder() -> None:
    script = (INSTALLER / "windows" / "serpent.iss").read_text(encoding="utf-8")
    assert 'Source: "{#DistDir}\\Serpent\\*"' in script and "recursesubdirs" in script
    assert "PrivilegesRequired=lowest" in script, "artists install without admin rights"
    assert (ROOT / "icons" / "serpent.ico").is_file()
