"""The packaged app analyses what it imports, like the checkout: through its executables only.

`serve` from the build imports pictures (PNG, JPEG, a phone's HEIC, a Photoshop PSD) into
the default library over MCP, waits for their analysis (a failed one fails the test: numpy
was once left out of the bundle and every analysis failed quietly), searches by colour,
finds a resized copy as a duplicate, makes and reads a contact sheet (a shipped plugin),
then the window opens that library under Xvfb. The build holds every runtime dependency of
pyproject.toml, no SciPy or PyWavelets, and stays within its size budget.
"""

from __future__ import annotations

import asyncio
import signal
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.library.planted import original
from tests.packaging import frozen
from tests.packaging.test_dependencies import modules_of, runtime_names
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.slow,
    frozen.skip_unless_wanted,
    frozen.linux_only,
    frozen.one_process,
    pytest.mark.timeout(frozen.BUILD_TIMEOUT_S + 300),  # the first test may wait for the build
]

# The app folder on Linux x86_64 (installer/README.md): 243.9 MB before, with SciPy (75.0 MB),
# PyWavelets (2.1 MB) and mypy (4.2 MB: pydantic's type-checker plugin pulled it in), and
# without numpy (42.6 MB), which analysis needs: that, less those three, plus numpy, is
# 205.2 MB (measured 197.1 MB). Then Babel came (its CLDR data for numbers and dates in
# every locale, 32.9 MB): 238.1 MB (measured 230.6 MB). Then the media previews and the OCR
# plugin (measured 622.9 MB, +392.3 MB: OpenCV 179.4 that RapidOCR pulls, PyAV with FFmpeg
# 105.5, ONNX Runtime 36.6, RapidOCR's models 31.9, PDFium 8.3, fontTools 7.1, the rest
# theirs and their dependencies'): 630.4 MB. Then studio libraries (psycopg 3 with libpq in its
# wheel) and tomlkit (client configs kept as written): measured 635.3 MB, +12.4 MB: 642.8 MB.
# Raise it only with what came in, and say so.
SIZE_BUDGET = 642_800_000
NEVER_BUNDLED = ("scipy", "pywt", "imagehash", "mypy", "pytest", "PyInstaller")


def write_psd(path: Path, picture: Image.Image) -> Path:
    """A minimal Photoshop file: 8-bit RGB, no layers, the merged image uncompressed."""
    rgb = picture.convert("RGB")
    header = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, rgb.height, rgb.width, 8, 3)
    sections = struct.pack(">III", 0, 0, 0)  # colour mode data, resources, layers: none
    planes = b"".join(band.tobytes() for band in rgb.split())
    path.write_bytes(header + sections + struct.pack(">H", 0) + planes)
    return path


def pictures(folder: Path) -> dict[str, Path]:
    import pillow_heif

    folder.mkdir()
    first, second = original(0), original(1)
    first.save(folder / "tiger.png")
    first.resize((240, 180), Image.Resampling.LANCZOS).save(folder / "tiger small.jpg",
                                                             quality=90)
    second.save(folder / "forest.png")
    Image.new("RGB", (160, 120), (230, 20, 20)).save(folder / "red.png")
    Image.new("RGB", (160, 120), (20, 40, 220)).save(folder / "blue.png")
    pillow_heif.from_pillow(original(2)).save(folder / "phone photo.heic")
    write_psd(folder / "layout.psd", original(3))
    with Image.open(folder / "layout.psd") as check:  # the file is one Pillow reads
        assert check.format == "PSD" and check.size == (480, 360)
    return {p.name: p for p in sorted(folder.iterdir())}


@pytest.fixture
def contact_sheet_exposed(app_folder: Path, isolated_user_data: Path) -> None:
    """The shipped contact-sheet plugin running and offered as an MCP tool (before `served`
    starts)."""
    for action in ("enable", "expose"):
        done = frozen.run(frozen.app(app_folder), "plugin", action, "contact-sheet")
        assert done.returncode == 0, done.stderr


async def until(condition: Any, timeout: float, message: str) -> Any:
    """Polls the coroutine function `condition` until it returns something true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        answer = await condition()
        if answer:
            return answer
        await asyncio.sleep(0.25)
    pytest.fail(message)


def test_the_packaged_app_analyses_imports_and_answers_from_the_analysis(
        app_folder: Path, contact_sheet_exposed: None, served: dict[str, Any],
        tmp_path: Path, display: str, isolated_user_data: Path) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    files = pictures(tmp_path / "pictures")
    call = frozen.call

    async def scenario() -> dict[str, str]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {served['token']}"},
                                  timeout=httpx2.Timeout(60, read=300))
        client = Client(streamable_http_client(served["url"], http_client=http), mode="legacy")
        async with http, client:
            libraries = (await call(client, "serpent_library_list_open", {}))["items"]
            [library] = [item for item in libraries if item["name"] == "My Library"]
            library_id = library["libraryId"]
            imported = await call(client, "serpent_file_import", {
                "libraryId": library_id, "sourcePaths": [str(p) for p in files.values()]})
            assert [i["status"] for i in imported["items"]] == ["imported"] * len(files)
            ids = {Path(i["sourcePath"]).name: i["assetId"] for i in imported["items"]}

            async def analysed() -> dict[str, Any] | None:
                tasks = (await call(client, "serpent_task_list",
                                    {"libraryId": library_id}))["items"]
                analysis = [t for t in tasks if t["kind"] == "analysis"]
                looked_at = sum(sum((t.get("result") or {}).values()) for t in analysis)
                if looked_at >= len(files) and all(
                        t["status"] in ("done", "failed", "cancelled") for t in analysis):
                    return {"tasks": analysis}
                return None

            finished = await until(analysed, 180, "the analysis never finished")
            results = [t.get("result") or {} for t in finished["tasks"]]
            assert all(t["status"] == "done" for t in finished["tasks"]), finished
            assert sum(r.get("failed", 0) for r in results) == 0, finished
            assert sum(r.get("analysed", 0) for r in results) == len(files), finished

            details = (await call(client, "serpent_asset_get",
                                  {"libraryId": library_id,
                                   "assetIds": list(ids.values())}))["items"]
            by_name = {Path(d["originalName"]).name: d for d in details}
            assert all(d["palette"] for d in details), "every picture has its colours"
            for name in ("phone photo.heic", "layout.psd"):  # opened, not just stored
                assert (by_name[name]["width"], by_name[name]["height"]) == (480, 360)
                assert by_name[name]["problem"] is None

            red = await call(client, "serpent_asset_search",
                             {"libraryId": library_id, "color": "#ff0000"})
            assert [a["id"] for a in red["items"]] == [ids["red.png"]]

            duplicates = await call(client, "serpent_asset_find_duplicates",
                                    {"libraryId": library_id})
            assert duplicates["notAnalysed"] == 0 and duplicates["analysed"] == len(files)
            assert [sorted(g["assetIds"]) for g in duplicates["items"]] == [
                sorted([ids["tiger.png"], ids["tiger small.jpg"]])]

            sheet = await call(client, "serpent_plugin_contact_sheet_make", {
                "libraryId": library_id, "assetIds": list(ids.values()), "columns": 4,
                "cellSize": 128, "title": "Smoke sheet"})
            assert sheet["count"] == len(files)
            [made] = (await call(client, "serpent_asset_get",
                                 {"libraryId": library_id,
                                  "assetIds": [sheet["assetId"]]}))["items"]
            return {"sheet": made["filePath"], "library": library_id}

    outcome = asyncio.run(scenario())
    with Image.open(outcome["sheet"]) as image:  # the sheet the build drew reads back
        assert image.format == "PNG" and image.width == 2 * 16 + 4 * 128 + 3 * 12
        top = 16 + 20 + 12  # margin, title, gap
        cell = image.convert("RGB").crop((16, top, 16 + 128, top + 128))
        count, colour = max(cell.getcolors(128 * 128) or [(0, None)])
        assert count > 128 * 64 and colour == (20, 41, 220), "the first cell shows blue.png"

    process: subprocess.Popen[str] = served["process"]
    process.send_signal(signal.SIGINT)
    assert process.wait(30) in (0, 130)
    wait_until(lambda: not frozen.frozen_processes(app_folder),
               "every worker process of the build to end with serve", 15, interval=0.2)
    window_shows_the_library(app_folder, isolated_user_data, outcome["library"], len(files) + 1)


def window_shows_the_library(folder: Path, data: Path, library_id: str, assets: int) -> None:
    """The built window under Xvfb opens the default library, with what was imported."""
    log_file = data / "logs" / "serpent.log"
    port = frozen.window_port_off_the_default()
    process = subprocess.Popen([frozen.app(folder)], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shown = f"grid shows library {library_id}: {assets} assets"
    try:
        wait_until(lambda: log_file.is_file() and shown in log_file.read_text(),
                   f"the window to show the library ({shown!r} logged)", 90, interval=0.2)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    log = log_file.read_text()
    assert f"MCP server listening on http://127.0.0.1:{port}/mcp" in log
    assert "Traceback" not in log


def bundled_modules(folder: Path) -> set[str]:
    """Top-level modules inside the build: the executables' archives and `_internal/`."""
    from PyInstaller.archive.readers import CArchiveReader

    names = {entry.name.split(".")[0] for entry in (folder / "_internal").iterdir()}
    for executable in (frozen.app(folder), frozen.bridge(folder)):
        package = CArchiveReader(executable)
        for name in package.toc:
            if name.endswith(".pyz"):
                names |= {module.split(".")[0]
                          for module in package.open_embedded_archive(name).toc}
    return names


def test_the_build_holds_every_runtime_dependency_and_nothing_it_does_not_need(
        app_folder: Path) -> None:
    inside = bundled_modules(app_folder)
    missing = {name: sorted(modules_of(name) - inside) for name in runtime_names()
               if not modules_of(name) & inside}
    assert missing == {}, f"runtime dependencies missing from the packaged app: {missing}"
    assert not set(NEVER_BUNDLED) & inside
    assert list(app_folder.parent.glob("Serpent-*-linux-*.tar.gz")), "no Linux archive made"


def test_the_build_stays_within_its_size_budget(app_folder: Path) -> None:
    size = frozen.size_of(app_folder)
    assert size <= SIZE_BUDGET, (
        f"the app folder is {size / 1e6:.1f} MB, over its {SIZE_BUDGET / 1e6:.0f} MB budget: "
        "see the build log's largest parts, and weigh what came in (installer/README.md)")
