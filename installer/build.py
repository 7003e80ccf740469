"""Builds the double-clickable Serpent app into dist/ with PyInstaller.

Run from anywhere with the project's Python: `python installer/build.py` (needs the `build`
extra: `pip install -e '.[build]'`). Output:
  dist/Serpent/                       the one-folder app (`Serpent`, `serpent-tk-bridge`)
  dist/Serpent-<v>-linux-<arch>.tar.gz  Linux: the folder + serpent.desktop + install.sh
  dist/Serpent.app                    macOS (made by the spec's BUNDLE)
  dist/Serpent-<v>-windows-setup.exe  Windows, when Inno Setup's ISCC is on PATH
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLER = ROOT / "installer"
SPEC = INSTALLER / "serpent.spec"
APP_NAME = "Serpent"
BRIDGE_NAME = "serpent-tk-bridge"


def version() -> str:
    sys.path.insert(0, str(ROOT))
    from serpent_tk import __version__

    return __version__


def app_folder(dist: Path) -> Path:
    return dist / APP_NAME


def executable(dist: Path, name: str) -> Path:
    """Path of a built executable (`Serpent`, `serpent-tk-bridge`) in the app folder."""
    suffix = ".exe" if sys.platform == "win32" else ""
    return app_folder(dist) / f"{name}{suffix}"


def run_pyinstaller(dist: Path, work: Path, clean: bool) -> None:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        sys.exit("PyInstaller is missing: run  pip install -e '.[build]'  first.")
    # the window's catalogues (.po -> .mo): the spec ships the compiled ones
    catalogues = [sys.executable, "-m", "serpent_tk.ui.language.catalogues", "compile"]
    print("+", " ".join(catalogues), flush=True)
    if subprocess.run(catalogues, cwd=ROOT, check=False).returncode != 0:
        sys.exit("Compiling the window's catalogues failed (see its messages above).")
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
               "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    if clean:
        command.insert(3, "--clean")
    print("+", " ".join(command), flush=True)
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        sys.exit("PyInstaller failed (see its messages above).")


def linux_archive(dist: Path) -> Path:
    """The app folder plus serpent.desktop and install.sh, as one tar.gz."""
    folder = app_folder(dist)
    shutil.copy2(INSTALLER / "linux" / "serpent.desktop", folder / "serpent.desktop")
    shutil.copy2(INSTALLER / "linux" / "install.sh", folder / "install.sh")
    os.chmod(folder / "install.sh", 0o755)
    machine = platform.machine().lower() or "unknown"
    archive = dist / f"{APP_NAME}-{version()}-linux-{machine}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=APP_NAME)
    return archive


def windows_installer(dist: Path) -> Path | None:
    """Runs Inno Setup on installer/windows/serpent.iss when ISCC is available."""
    iscc = shutil.which("ISCC") or shutil.which("iscc")
    if iscc is None:
        print("Inno Setup (ISCC) not found: dist/Serpent/ is built, the setup .exe is not.")
        return None
    subprocess.run([iscc, f"/DAppVersion={version()}", f"/DDistDir={dist}",
                    str(INSTALLER / "windows" / "serpent.iss")], check=True)
    return dist / f"{APP_NAME}-{version()}-windows-setup.exe"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller",
                        help="PyInstaller's work folder")
    parser.add_argument("--clean", action="store_true", help="discard PyInstaller's cache")
    parser.add_argument("--no-archive", action="store_true",
                        help="only the app folder (no tar.gz / setup.exe)")
    args = parser.parse_args(argv)
    dist = args.dist.resolve()
    started = time.monotonic()
    run_pyinstaller(dist, args.work.resolve(), args.clean)
    outputs = [app_folder(dist)]
    if not args.no_archive:
        if sys.platform.startswith("linux"):
            outputs.append(linux_archive(dist))
        elif sys.platform == "win32":
            setup = windows_installer(dist)
            if setup is not None:
                outputs.append(setup)
        elif sys.platform == "darwin":
            outputs.append(dist / f"{APP_NAME}.app")
    print(f"Built in {time.monotonic() - started:.0f} s:")
    for output in outputs:
        print(f"  {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
