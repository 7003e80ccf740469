"""The set-up's Python packages: installing a lock file with pip, saying how far it got, and
regenerating the lock files.

Runs with the system `python3` before anything is installed (from `serpent_tk.bootstrap`),
so it uses the standard library only. The locks in requirements/ pin every package, with the
hashes of its files, for every OS (`uv pip compile --universal`): `app.txt` what Serpent
needs to run, `dev.txt` that plus the test and build tools (the packaged app is built and
smoke-tested by the suite). pip installs them as they are (`--require-hashes --no-deps`),
then Serpent itself (editable, with the locked setuptools). `python3 -m serpent_tk.bootstrap
lock` writes both again from pyproject.toml.
"""

from __future__ import annotations

import re
import subprocess
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ROOT / "requirements"
APP_LOCK = LOCKS / "app.txt"  # `start`: what Serpent needs to run
DEV_LOCK = LOCKS / "dev.txt"  # `test` and installer/build.py: that + test and build tools
DEV_EXTRAS = ("test", "build")
UV = "uv>=0.9,<1"  # writes the locks (the `lock` command only; never needed to install)
LOCK_COMMAND = "python3 -m serpent_tk.bootstrap lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
COLLECTING = re.compile(r"^Collecting ([A-Za-z0-9._-]+)==([^\s(]+)")
PROCESSING = re.compile(r"^Processing \S*?([A-Za-z0-9_.]+)-(\d[^-\s]*)"  # a local file
                        r"(?:-\S+)?\.(?:whl|tar\.gz|zip)\b")
DOWNLOADING = re.compile(r"^\s+Downloading \S+ \(([\d.]+) (MB|kB)\)")
IGNORING = re.compile(r"^Ignoring \S+: markers")
SATISFIED = re.compile(r"^Requirement already satisfied: ")
INSTALLING = re.compile(r"^Installing collected packages: (.*)")
# a fresh .venv on a 2-core machine crowded with other builds took 406 s for dev.txt's 59
# packages, before the large media and OCR packages (PyAV, ONNX Runtime, OpenCV) came
USUALLY = {APP_LOCK: "3 to 6 minutes", DEV_LOCK: "4 to 10 minutes"}


class PipFailed(Exception):
    """pip exited non-zero; `output` is what it printed."""

    def __init__(self, command: list[str], returncode: int, output: str) -> None:
        super().__init__(f"{' '.join(command)} (exit {returncode})")
        self.output = output


def pins(lock: Path) -> list[tuple[str, str]]:
    """(name, version) of every package a lock file pins (some only on some OSes)."""
    return [(m.group(1), m.group(2)) for line in lock.read_text(encoding="utf-8").splitlines()
            if (m := PIN.match(line))]


class Progress:
    """Turns pip's output into one line per package and a count: `[12/41] pillow 13.0.0`."""

    def __init__(self, total: int, say: Callable[[str], None]) -> None:
        self.total = total
        self.done = 0
        self.say = say
        self.current = ""

    def line(self, text: str) -> None:
        if IGNORING.match(text):  # pinned for another OS
            self.total -= 1
        elif SATISFIED.match(text):  # installed already, at the pinned version
            self.done += 1
        elif found := COLLECTING.match(text) or PROCESSING.match(text):
            self.done += 1
            self.current = f"{found.group(1).replace('_', '-')} {found.group(2)}"
            self.say(f"  [{self.done}/{self.total}] {self.current}")
        elif (found := DOWNLOADING.match(text)) and found.group(2) == "MB":
            self.say(f"  [{self.done}/{self.total}] {self.current}: downloading "
                     f"{found.group(1)} MB")
        elif found := INSTALLING.match(text):
            count = len(found.group(1).split(","))
            self.say(f"  unpacking {count} package{'' if count == 1 else 's'} into the "
                     "virtual environment")


def pip(python: Path, args: list[str], on_line: Callable[[str], None] | None = None) -> None:
    """Runs `python -m pip ARGS`, feeding each line it prints to `on_line`; its warnings and
    errors (stderr) reach the terminal as they come. Raises PipFailed with its output."""
    command = [str(python), "-m", "pip", *args, "--disable-pip-version-check", "--no-input",
               "--progress-bar", "off"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                               bufsize=1)
    assert process.stdout is not None
    seen = []
    for text in process.stdout:
        seen.append(text)
        if on_line is not None:
            on_line(text.rstrip("\n"))
    if process.wait() != 0:
        raise PipFailed(command, process.returncode, "".join(seen[-40:]))


def install_locked(python: Path, lock: Path, say: Callable[[str], None]) -> float:
    """The lock's packages as pinned, then Serpent itself; returns the seconds it took."""
    started = time.monotonic()
    progress = Progress(len(pins(lock)), say)
    say(f"installing the packages pinned in {lock.relative_to(ROOT)} (pip; usually "
        f"{USUALLY.get(lock, 'a few minutes')} the first time, seconds after):")
    pip(python, ["install", "--require-hashes", "--no-deps", "-r", str(lock)], progress.line)
    say("installing Serpent itself (editable: this checkout's code)")
    pip(python, ["install", "--no-deps", "--no-build-isolation", "--editable", str(ROOT)])
    return time.monotonic() - started


def lock(python: Path, say: Callable[[str], None], upgrade: bool = False) -> None:
    """Writes requirements/app.txt and dev.txt again from pyproject.toml (needs PyPI). The
    versions already pinned stay unless pyproject.toml rules them out, or `upgrade`."""
    say(f"installing the lock tool ({UV}) into the virtual environment")
    pip(python, ["install", "--quiet", UV])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    LOCKS.mkdir(exist_ok=True)
    backend = LOCKS / ".build-system.in"  # setuptools and wheel, for the editable install
    backend.write_text("\n".join(project["build-system"]["requires"]) + "\n")
    try:
        for target, extras, constraints in ((APP_LOCK, (), ()),
                                            (DEV_LOCK, DEV_EXTRAS, (APP_LOCK,))):
            say(f"writing {target.relative_to(ROOT)}")
            command = [str(python), "-m", "uv", "pip", "compile", "--quiet", "pyproject.toml",
                       str(backend.relative_to(ROOT)), "--universal", "--generate-hashes",
                       "--python-version",
                       project["project"]["requires-python"].removeprefix(">="),
                       "--no-header", "--output-file", str(target.relative_to(ROOT))]
            if upgrade:
                command.append("--upgrade")
            for extra in extras:
                command += ["--extra", extra]
            for constraint in constraints:  # dev.txt keeps app.txt's versions
                command += ["--constraint", str(constraint.relative_to(ROOT))]
            subprocess.run(command, cwd=ROOT, check=True)
            _head(target)
    finally:
        backend.unlink()
    say(f"done: {len(pins(APP_LOCK))} packages in {APP_LOCK.relative_to(ROOT)}, "
        f"{len(pins(DEV_LOCK))} in {DEV_LOCK.relative_to(ROOT)}; commit both")


def _head(lock: Path) -> None:
    """A header that says what the file is and how to write it again (no paths, no dates)."""
    text = lock.read_text(encoding="utf-8")
    kind = "run Serpent" if lock == APP_LOCK else "run, test and package Serpent"
    header = (f"# Every package needed to {kind}, pinned with its files' hashes for every OS.\n"
              f"# Written from pyproject.toml by: {LOCK_COMMAND}   (do not edit by hand)\n")
    lock.write_text(header + text.replace(str(ROOT) + "/", ""), encoding="utf-8")
