"""The packaged app for the frozen smoke tests: built once per test session, reused while
nothing that goes into it changed, and helpers to run its executables.

The build goes to build/frozen-smoke/<key>/ where the key hashes what makes the app (serpent_tk/,
library/, installer/, icons/, pyproject.toml, requirements/dev.txt, this Python and
PyInstaller): a second session on the same tree reuses it, a changed tree builds again (and
older builds there are removed). SERPENT_FROZEN_DIST=DIR uses DIR/Serpent as it is;
SERPENT_FROZEN_SMOKE=0 skips these tests for a quick local run (CI never sets it).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import portalocker
import pytest

from tests.conftest import ROOT
from tests.waiting import Deadline

SUFFIX = ".exe" if sys.platform == "win32" else ""
CACHE = ROOT / "build" / "frozen-smoke"
INPUTS = ("serpent_tk", "library", "installer", "icons")
LISTENING = re.compile(r"MCP server listening on (http://127\.0\.0\.1:(\d+)/mcp)")
BUILD_TIMEOUT_S = 1500  # measured 3-4 min alone on 2 cores, 11 min on a crowded machine

skip_unless_wanted = pytest.mark.skipif(os.environ.get("SERPENT_FROZEN_SMOKE") == "0",
                                        reason="SERPENT_FROZEN_SMOKE=0: no packaged app")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="smoke-tested on Linux")


def build_key() -> str:
    import PyInstaller

    digest = hashlib.sha256(f"{sys.version} {PyInstaller.__version__}".encode())
    files = [ROOT / "pyproject.toml", ROOT / "requirements" / "dev.txt"]
    for folder in INPUTS:
        files += sorted(p for p in (ROOT / folder).rglob("*") if p.is_file()
                        and "__pycache__" not in p.parts and p.suffix != ".md")
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


# the packaged app's tests share one build: under pytest-xdist (`--dist loadgroup`, the test
# command's) they run in one process, so the others need not wait for it (the build also
# takes a lock, should two sessions build at once)
one_process = pytest.mark.xdist_group("packaged-app")


def build_app() -> Path:
    """The app folder (…/Serpent): an existing build of this tree, else a new one."""
    prebuilt = os.environ.get("SERPENT_FROZEN_DIST")
    if prebuilt:
        return Path(prebuilt).resolve() / "Serpent"
    try:
        key = build_key()
    except ImportError:
        pytest.fail("PyInstaller is missing: run the README's test command (it installs "
                    "requirements/dev.txt), or set SERPENT_FROZEN_SMOKE=0 to skip this")
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    with portalocker.Lock(str(CACHE.parent / "frozen-smoke.lock"), timeout=BUILD_TIMEOUT_S):
        return _build_locked(key)


def _build_locked(key: str) -> Path:
    """`build_app` while holding the build lock: one session builds, the others wait."""
    dist = CACHE / key / "dist"
    if (dist / "Serpent" / f"Serpent{SUFFIX}").is_file():
        return dist / "Serpent"
    shutil.rmtree(CACHE, ignore_errors=True)
    work = CACHE / key / "work"
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "installer" / "build.py"), "--dist",
                           str(dist), "--work", str(work)], cwd=ROOT, capture_output=True,
                          text=True, timeout=BUILD_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    shutil.rmtree(work, ignore_errors=True)
    (CACHE / key / "build.log").write_text(done.stdout, encoding="utf-8")
    print(f"\n[frozen smoke] built the app in {time.monotonic() - started:.0f} s\n"
          + "\n".join(line for line in done.stdout.splitlines()
                      if line.startswith(("Built in", "App folder", "Serpent-", "Largest"))),
          file=sys.stderr)
    return dist / "Serpent"


def app(folder: Path) -> str:
    return str(folder / f"Serpent{SUFFIX}")


def bridge(folder: Path) -> str:
    return str(folder / f"serpent-tk-bridge{SUFFIX}")


def run(*command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=timeout,
                          check=False, stdin=subprocess.DEVNULL)


def size_of(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if not p.is_dir())


def frozen_processes(folder: Path) -> list[int]:
    """Pids of processes running an executable of the built app (Linux /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            exe = os.readlink(entry / "exe")
        except OSError:
            continue
        if exe.startswith(str(folder)):
            pids.append(int(entry.name))
    return pids


def read_listening_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    seen = []
    deadline = Deadline(60)
    while not deadline.passed():
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        match = LISTENING.search(line)
        if match:
            return match.group(1)
    stderr = process.stderr.read() if process.stderr and process.poll() is not None else ""
    pytest.fail(f"serve did not report its URL: {''.join(seen)}{stderr}")


async def call(client: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope = result.structured_content
    assert not result.is_error and envelope["status"] == "ok", envelope
    return envelope["result"]


def window_port_off_the_default() -> int:
    """The window's MCP server on a free port of its own (settings of the test's data
    folder), never the default 47615 that a person's Serpent may hold."""
    import socket

    from serpent_tk.paths import app_dirs
    from serpent_tk.settings import SettingsStore

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    store = SettingsStore(app_dirs().ensure().settings_file)
    store.update(lambda settings: setattr(settings.mcp, "port", port))
    return port

