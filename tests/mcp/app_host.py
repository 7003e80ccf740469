"""Runs the search grid in a real MCP Apps host for tests/mcp/test_search_app_host.py.

A real `serpent-tk serve --port 0` (own user data folder) with a real library of imported
pictures; the node test host in tests/node/mcp-app-host/ (the official ext-apps `AppBridge` and
`PostMessageTransport`, a double-iframe sandbox on a second origin, Debian's Chromium headless
through playwright-core) drives the grid and reports what it saw as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from tests.conftest import serpent_command
from tests.mcp.conftest import connect, create_library, ok
from tests.nodejs import NODE_PROJECTS, node_executable, node_project

HOST_DIR = NODE_PROJECTS / "mcp-app-host"
CHROMIUM = Path("/usr/bin/chromium")
LISTENING = re.compile(r"MCP server listening on (http://127\.0\.0\.1:\d+/mcp)")
GRID_TAG = "grid"
BULK_TAG = "bulk"
BULK_COUNT = 200
HOST_DEADLINE_S = 900  # 11 scenarios of at most 60 s each; a good run takes ~15 s
SETUP = "run the README's test command (python3 -m serpent_tk.bootstrap test), which installs it"

# Twelve pictures worth looking at in a screenshot: name, two colours, a shape.
GRID_PICTURES = [
    ("coral-reef", (255, 127, 80), (0, 105, 148), "circle"),
    ("desert-dune", (237, 201, 175), (194, 120, 60), "triangle"),
    ("forest-moss", (34, 139, 34), (173, 255, 47), "circle"),
    ("glacier-ice", (210, 240, 255), (70, 130, 180), "square"),
    ("lava-field", (40, 10, 10), (255, 69, 0), "triangle"),
    ("midnight-sky", (10, 15, 60), (255, 255, 200), "circle"),
    ("orchid-petal", (218, 112, 214), (255, 240, 245), "square"),
    ("rust-metal", (120, 60, 30), (210, 140, 70), "square"),
    ("sea-foam", (159, 226, 191), (32, 178, 170), "circle"),
    ("storm-cloud", (90, 100, 110), (200, 205, 210), "triangle"),
    ("sunflower", (255, 200, 0), (120, 70, 20), "circle"),
    ("twilight-haze", (75, 0, 130), (255, 160, 122), "triangle"),
]


def require_tools() -> Path:
    """The node binary; fails (never skips) with what to install when something is missing."""
    node = node_executable()
    node_project(HOST_DIR.name)
    if not CHROMIUM.exists():
        pytest.fail(f"Debian's Chromium is not installed at {CHROMIUM} (the MCP App host test "
                    f"renders the grid in it): {SETUP}, or apt install chromium")
    return node


def draw_picture(path: Path, background: tuple[int, int, int], accent: tuple[int, int, int],
                 shape: str, size: int = 320) -> None:
    image = Image.new("RGB", (size, size), background)
    draw = ImageDraw.Draw(image)
    for row in range(size):  # a soft vertical gradient towards the accent colour
        mix = row / size * 0.45
        colour = tuple(int(b * (1 - mix) + a * mix) for b, a in zip(background, accent,
                                                                    strict=True))
        draw.line([(0, row), (size, row)], fill=colour)
    box = (size * 0.25, size * 0.25, size * 0.75, size * 0.75)
    if shape == "circle":
        draw.ellipse(box, fill=accent)
    elif shape == "square":
        draw.rounded_rectangle(box, radius=size // 16, fill=accent)
    else:
        draw.polygon([(size / 2, size * 0.2), (size * 0.8, size * 0.78),
                      (size * 0.2, size * 0.78)], fill=accent)
    image.save(path)


def grid_pictures(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, background, accent, shape in GRID_PICTURES:
        path = folder / f"{name}.png"
        draw_picture(path, background, accent, shape)
        paths.append(path)
    return paths


def bulk_pictures(folder: Path, count: int) -> list[Path]:
    """Small, distinct pictures (distinct content, so none is a duplicate)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"bulk-{index:03d}.png"
        colour = ((index * 37) % 256, (index * 91) % 256, (index * 53 + 7) % 256)
        image = Image.new("RGB", (40, 40), colour)
        image.putpixel((index % 40, (index // 40) % 40), (255 - colour[0], 0, 0))
        image.save(path)
        paths.append(path)
    return paths


@contextmanager
def running_serpent(work: Path) -> Iterator[tuple[str, str, dict[str, str]]]:
    """`serpent-tk serve --port 0` in its own user data folder: (url, token, env)."""
    env = dict(os.environ, SERPENT_USER_DATA_PATH=str(work / "user-data"),
               HOME=str(work / "home"), USERPROFILE=str(work / "home"))
    (work / "home").mkdir(parents=True, exist_ok=True)
    created = subprocess.run(serpent_command("credential", "create", "MCP App host",
                                             "--toolset", "everything"), env=env,
                             capture_output=True, text=True, timeout=60, check=True)
    token = created.stdout.strip().splitlines()[-1]
    process = subprocess.Popen(serpent_command("serve", "--port", "0"), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = LISTENING.search(line)
        if match is None:
            process.kill()
            _, errors = process.communicate(timeout=30)
            pytest.fail(f"serve did not start: {line!r} {errors[-2000:]}")
        yield match.group(1), token, env
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


async def fill_library(url: str, token: str, work: Path) -> str:
    async with connect(url, token, "legacy") as client:
        library = await create_library(client, work / "libraries", "Host test")
        for paths, tag in ((grid_pictures(work / "pictures"), GRID_TAG),
                           (bulk_pictures(work / "bulk", BULK_COUNT), BULK_TAG)):
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in paths], "tags": [tag]})
            assert imported["imported"] == len(paths), imported
        return library


def run_host(work: Path, shot_dir: Path, scenarios: list[str] | None = None) -> dict[str, Any]:
    """Serpent + library + the node host; returns the host's report."""
    node = require_tools()
    with running_serpent(work) as (url, token, _env):
        library = asyncio.run(asyncio.wait_for(fill_library(url, token, work), 240))
        report_path = work / "report.json"
        config = {
            "serpentUrl": url, "token": token, "libraryId": library,
            "missingLibraryId": "lib_0000000000000000", "gridTag": GRID_TAG,
            "bulkTag": BULK_TAG, "shotDir": str(shot_dir), "reportPath": str(report_path),
            "chromium": str(CHROMIUM), "scenarios": scenarios,
        }
        config_path = work / "host-config.json"
        config_path.write_text(json.dumps(config))
        try:
            done = subprocess.run([str(node), str(HOST_DIR / "host.mjs"), str(config_path)],
                                  cwd=HOST_DIR, capture_output=True, text=True,
                                  timeout=HOST_DEADLINE_S, check=False)
            failure = "" if done.returncode == 0 else (
                f"the MCP App test host failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
        except subprocess.TimeoutExpired:
            failure = f"the MCP App test host did not finish in {HOST_DEADLINE_S} s"
        if not report_path.exists():
            pytest.fail(failure or "the MCP App test host wrote no report")
        report: dict[str, Any] = json.loads(report_path.read_text())
        report["failure"] = failure  # a killed host leaves the scenarios it finished
        return report
