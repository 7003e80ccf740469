"""Smoke test of the packaged app: build it with PyInstaller, then use it as an artist would.

Runs only with SERPENT_FROZEN_SMOKE=1 (a build takes minutes, past the CI budget):
    SERPENT_FROZEN_SMOKE=1 .venv/bin/python -m pytest tests/packaging/test_frozen_smoke.py -v
SERPENT_FROZEN_DIST=DIR uses an existing build (DIR/Serpent) instead of building one.
Everything runs against the built executables, never this checkout's Python: the CLI,
settings export/import, the window under Xvfb with no stdout, `serve` on port 0 with an
import through the SDK client over HTTP (and the MCP App page read from the bundle) and through
the built bridge, and a clean stop that leaves no worker process behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.cli import SUBCOMMANDS
from serpent_tk.mcp.apps import search_app
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("SERPENT_FROZEN_SMOKE") != "1",
                       reason="builds the app with PyInstaller: set SERPENT_FROZEN_SMOKE=1"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="smoke-tested on Linux"),
    pytest.mark.timeout(900),
]

SUFFIX = ".exe" if sys.platform == "win32" else ""
LISTENING = re.compile(r"MCP server listening on (http://127\.0\.0\.1:(\d+)/mcp)")


@pytest.fixture(scope="module")
def app_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prebuilt = os.environ.get("SERPENT_FROZEN_DIST")
    if prebuilt:
        folder = Path(prebuilt).resolve() / "Serpent"
    else:
        dist = tmp_path_factory.mktemp("dist")
        done = subprocess.run([sys.executable, str(ROOT / "installer" / "build.py"), "--dist",
                               str(dist)], cwd=ROOT, capture_output=True, text=True,
                              timeout=1200, check=False)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        folder = dist / "Serpent"
        assert list(dist.glob("Serpent-*-linux-*.tar.gz")), "the Linux archive was not made"
    assert (folder / f"Serpent{SUFFIX}").is_file(), f"no build in {folder}"
    return folder


def app(folder: Path) -> str:
    return str(folder / f"Serpent{SUFFIX}")


def bridge(folder: Path) -> str:
    return str(folder / f"serpent-tk-bridge{SUFFIX}")


def run(*command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=timeout,
                          check=False, stdin=subprocess.DEVNULL)


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


def test_both_executables_take_the_serpent_tk_command_line(app_folder: Path) -> None:
    from serpent_tk import __version__

    for executable in (app(app_folder), bridge(app_folder)):
        done = run(executable, "--version")
        assert done.returncode == 0 and done.stdout.strip() == f"serpent-tk {__version__}"
    done = run(app(app_folder), "--help")
    assert done.returncode == 0
    for command in SUBCOMMANDS:
        assert command in done.stdout, f"{command} missing from the packaged CLI"
    listed = run(app(app_folder), "plugin", "list")  # the shipped plugins are bundled
    assert listed.returncode == 0 and "contact-sheet" in listed.stdout, listed.stderr
    assert "rename-pattern" in listed.stdout and "Cannot run" not in listed.stdout


def test_bundled_resources_are_inside_the_app(app_folder: Path) -> None:
    internal = app_folder / "_internal"
    assert (internal / "icons" / "serpent-256.png").is_file()
    assert list(internal.glob("tkinterdnd2/tkdnd/linux-*/libtkdnd*.so")), "tkdnd binary"
    assert (internal / "sv_ttk" / "sv.tcl").is_file()


def test_settings_export_and_import_through_the_packaged_app(app_folder: Path,
                                                             tmp_path: Path) -> None:
    exported = tmp_path / "settings.json"
    done = run(app(app_folder), "settings", "export", str(exported))
    assert done.returncode == 0, done.stderr
    assert json.loads(exported.read_text(encoding="utf-8"))["format"] == "serpent-settings"
    env_new = tmp_path / "other-machine"
    done = subprocess.run([app(app_folder), "settings", "import", str(exported)],
                          env={**os.environ, "SERPENT_USER_DATA_PATH": str(env_new)},
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert (env_new / "config" / "settings.json").is_file()


@pytest.mark.gui
def test_the_window_opens_with_no_stdout_and_closes_cleanly(app_folder: Path, display: str,
                                                            isolated_user_data: Path) -> None:
    """A windowed build has no stdout/stderr: run with both closed; logs go to the file."""
    log_file = isolated_user_data / "logs" / "serpent.log"
    process = subprocess.Popen(["sh", "-c", 'exec "$0" >&- 2>&-', app(app_folder)],
                               stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: log_file.is_file() and "window ready" in log_file.read_text(), 60,
                 "the window never became ready")
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert "Serpent stopped" in log_file.read_text()
    assert "Traceback" not in log_file.read_text()


def wait_for(condition: Any, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(message)


@pytest.fixture
def served(app_folder: Path, isolated_user_data: Path) -> Iterator[dict[str, Any]]:
    """`Serpent serve --port 0` from the build, with a full-access credential."""
    created = run(app(app_folder), "credential", "create", "smoke", "--mode", "full-access",
                  "--toolset", "everything")
    assert created.returncode == 0, created.stderr
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.paths import app_dirs

    token = CredentialStore(app_dirs().credentials_file).token_for("smoke")
    process = subprocess.Popen([app(app_folder), "serve", "--port", "0"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        url = read_listening_url(process)
        yield {"url": url, "token": token, "process": process}
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def read_listening_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        match = LISTENING.search(line)
        if match:
            return match.group(1)
    stderr = process.stderr.read() if process.stderr and process.poll() is not None else ""
    pytest.fail(f"serve did not report its URL: {''.join(seen)}{stderr}")


def make_png(path: Path, colour: tuple[int, int, int]) -> Path:
    from PIL import Image

    Image.new("RGB", (64, 48), colour).save(path)
    return path


async def call(client: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope = result.structured_content
    assert not result.is_error and envelope["status"] == "ok", envelope
    return envelope["result"]


def test_serve_imports_through_http_and_through_the_bridge_then_stops_cleanly(
        app_folder: Path, served: dict[str, Any], tmp_path: Path) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    first = make_png(tmp_path / "red.png", (200, 30, 30))
    second = make_png(tmp_path / "blue.png", (30, 30, 200))
    import pillow_heif
    from PIL import Image

    heic = tmp_path / "phone photo.heic"  # pillow-heif must be bundled and registered
    pillow_heif.from_pillow(Image.new("RGB", (40, 30), (20, 160, 90))).save(heic)
    parent = tmp_path / "libraries"
    parent.mkdir()

    async def over_http() -> str:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {served['token']}"},
                                  timeout=httpx2.Timeout(60, read=300))
        client = Client(streamable_http_client(served["url"], http_client=http), mode="legacy")
        async with http, client:
            library = await call(client, "serpent_library_create",
                                 {"selectedParentPath": str(parent), "name": "Smoke"})
            library_id = library["libraryId"]
            imported = await call(client, "serpent_file_import",
                                  {"libraryId": library_id, "sourcePaths": [str(first)]})
            assert [i["status"] for i in imported["items"]] == ["imported"]
            page = (await client.read_resource(search_app.SEARCH_APP_URI)).contents[0]
            assert getattr(page, "text", "") == search_app.search_app_html()  # bundled page
            return library_id

    library_id = asyncio.run(over_http())
    assert (parent / "Smoke.serpent").is_dir()

    config = run(app(app_folder), "mcp-config", "--client", "claude-desktop", "--credential",
                 "smoke")
    assert config.returncode == 0, config.stderr
    entry = claude_desktop_entry(config.stdout)
    assert entry["command"] == bridge(app_folder), "the pasted config runs the built bridge"

    async def over_bridge() -> int:
        params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                       env=entry.get("env"))
        async with Client(params) as client:
            imported = await call(client, "serpent_file_import",
                                  {"libraryId": library_id, "sourcePaths": [str(second),
                                                                           str(heic)]})
            assert [i["status"] for i in imported["items"]] == ["imported", "imported"]
            found = await call(client, "serpent_asset_search", {"libraryId": library_id})
            [photo] = [a for a in found["items"] if a["ext"] == "heic"]
            assert (photo["width"], photo["height"]) == (40, 30)
            return len(found["items"])

    assert asyncio.run(over_bridge()) == 3

    process: subprocess.Popen[str] = served["process"]
    running = frozen_processes(app_folder)
    assert process.pid in running
    assert len(running) >= 2, "library workers are spawned from the built executable"
    process.send_signal(signal.SIGINT)
    assert process.wait(30) in (0, 130)
    wait_for(lambda: not frozen_processes(app_folder), 15,
             "a worker process of the build outlived serve")


def claude_desktop_entry(output: str) -> dict[str, Any]:
    """The `mcpServers.serpent` entry from `mcp-config --client claude-desktop` output."""
    start, end = output.index("{"), output.rindex("}") + 1
    document = json.loads(output[start:end])
    servers = document.get("mcpServers", document)
    return servers["serpent"] if "serpent" in servers else next(iter(servers.values()))
