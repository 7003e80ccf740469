"""Smoke test of the packaged app: built with PyInstaller once per session (`app_folder`,
tests/packaging/frozen.py), then used as an artist would; test_frozen_analysis.py goes on
with what analysis gives.

Everything runs against the built executables, never this checkout's Python: the CLI,
settings export/import, the window under Xvfb with no stdout, `serve` on port 0 with an
import through the SDK client over HTTP (and the MCP App page read from the bundle) and through
the built bridge, and a clean stop that leaves no worker process behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.cli import SUBCOMMANDS
from serpent_tk.mcp.apps import search_app
from tests.packaging import frozen
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.slow,
    frozen.skip_unless_wanted,
    frozen.linux_only,
    frozen.one_process,
    pytest.mark.timeout(frozen.BUILD_TIMEOUT_S + 300),  # the first test waits for the build
]

app, bridge, run = frozen.app, frozen.bridge, frozen.run
call, frozen_processes = frozen.call, frozen.frozen_processes


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
    # the window in 简体中文: its compiled catalogue, and Babel's locale data for numbers/dates
    assert (internal / "serpent_tk" / "locale" / "zh_CN" / "LC_MESSAGES" / "serpent.mo").is_file()
    assert list(internal.glob("babel/locale-data/zh_Hans*.dat")), "Babel's CLDR data"


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
    frozen.window_port_off_the_default()
    process = subprocess.Popen(["sh", "-c", 'exec "$0" >&- 2>&-', app(app_folder)],
                               stdin=subprocess.DEVNULL)
    try:
        wait_until(lambda: log_file.is_file() and "window ready" in log_file.read_text(),
                   "the window to become ready", 60, interval=0.2)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert "Serpent stopped" in log_file.read_text()
    assert "Traceback" not in log_file.read_text()


def make_png(path: Path, colour: tuple[int, int, int]) -> Path:
    from PIL import Image

    Image.new("RGB", (64, 48), colour).save(path)
    return path


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
    wait_until(lambda: not frozen_processes(app_folder),
               "every worker process of the build to end with serve", 15, interval=0.2)


def claude_desktop_entry(output: str) -> dict[str, Any]:
    """The `mcpServers.serpent` entry from `mcp-config --client claude-desktop` output."""
    start, end = output.index("{"), output.rindex("}") + 1
    document = json.loads(output[start:end])
    servers = document.get("mcpServers", document)
    return servers["serpent"] if "serpent" in servers else next(iter(servers.values()))
