"""Builds the double-clickable Serpent app into dist/ with PyInstaller.

Run from anywhere with the project's Python: `python installer/build.py`, in the
environment `python3 -m serpent_tk.bootstrap test --version` makes (requirements/dev.txt,
PyInstaller included): it refuses to build from packages other than the ones that lock file
pins, so two builds of one commit hold the same versions. Output:
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
LOCK = ROOT / "requirements" / "dev.txt"
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


def unlocked_packages(lock: Path = LOCK) -> dict[str, tuple[str, str | None]]:
    """Packages whose installed version is not the one `lock` pins for this platform:
    name -> (pinned, installed or None)."""
    import importlib.metadata

    from packaging.markers import Marker

    wrong: dict[str, tuple[str, str | None]] = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        if not line or line[0].isspace() or line.startswith("#"):
            continue
        requirement, _, marker = line.rstrip(" \\").partition(";")
        name, _, version = requirement.strip().partition("==")
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        try:
            installed: str | None = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong[name] = (version, installed)
    return wrong


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


def size_of(path: Path) -> int:
    """Bytes of a file, or of every file under a folder (links not followed)."""
    if not path.is_dir():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir())


def largest_parts(folder: Path, count: int = 8) -> list[tuple[str, int]]:
    """The biggest entries of the app's `_internal/` (a package folder counts whole)."""
    internal = folder / "_internal"
    if not internal.is_dir():
        return []
    parts = [(entry.name, size_of(entry)) for entry in internal.iterdir()]
    return sorted(parts, key=lambda part: -part[1])[:count]


def report_sizes(dist: Path, outputs: list[Path]) -> None:
    """The bundle's size in the build log (installer/README.md and the smoke test's budget
    quote it)."""
    folder = app_folder(dist)
    print(f"App folder {folder.name}/: {size_of(folder) / 1e6:.1f} MB")
    for output in outputs:
        if output.is_file():
            print(f"{output.name}: {size_of(output) / 1e6:.1f} MB")
    print("Largest parts of _internal/: " + ", ".join(
        f"{name} {size / 1e6:.1f} MB" for name, size in largest_parts(folder)))


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
    parser.add_argument("--unlocked", action="store_true",
                        help=f"build even when installed packages differ from {LOCK.name}")
    args = parser.parse_args(argv)
    dist = args.dist.resolve()
    wrong = unlocked_packages()
    if wrong and not args.unlocked:
        listed = ", ".join(f"{name} {installed or 'missing'} (pinned {pinned})"
                           for name, (pinned, installed) in sorted(wrong.items()))
        sys.exit(f"These packages are not the ones requirements/{LOCK.name} pins: {listed}.\n"
                 "Run  python3 -m serpent_tk.bootstrap test --version  first (or pass "
                 "--unlocked for a build nobody ships).")
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
    report_sizes(dist, outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
