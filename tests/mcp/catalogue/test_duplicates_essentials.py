"""Duplicates from the essentials toolset, which has no analysis tool: asked right after an
import, `serpent_asset_find_duplicates` waits for the analysis Serpent runs by itself and
finds the planted copies; when that analysis never started, it starts it; a credential that
may not start it is told where a person does, in words naming no tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from serpent_tk.automation.caller import Caller
from serpent_tk.mcp.tools.analysis_wait import IN_WINDOW, Progress, still_running
from tests.library.planted import original
from tests.mcp.conftest import Server, connect, ok, run

COPIES = 4


def planted(folder: Path) -> list[Path]:
    """`COPIES` pictures, each with a half-size JPEG copy."""
    folder.mkdir(parents=True)
    paths = []
    for seed in range(COPIES):
        picture = original(seed)
        picture.save(folder / f"p{seed}.png")
        picture.resize((240, 180)).save(folder / f"p{seed}-half.jpg", quality=85)
        paths += [folder / f"p{seed}.png", folder / f"p{seed}-half.jpg"]
    return paths


def library_of(server: Server, tmp_path: Path) -> str:
    (tmp_path / "libs").mkdir()
    answer = server.gateway.submit("library.create", {
        "selectedParentPath": str(tmp_path / "libs"), "name": "Refs"}, Caller.ui()).result(60)
    assert answer["status"] == "ok", answer
    return str(answer["result"]["libraryId"])


async def import_and_find(client: Client, library: str, files: list[Path]) -> dict[str, Any]:
    imported = await ok(client, "serpent_file_import", {
        "libraryId": library, "sourcePaths": [str(p) for p in files]})
    assert imported["imported"] == len(files)
    result = await client.call_tool("serpent_asset_find_duplicates", {"libraryId": library})
    found: dict[str, Any] = result.structured_content["result"]  # type: ignore[index]
    texts = " ".join(c.text for c in result.content if c.type == "text")
    assert "analysis" not in texts.replace("analysed", "").replace("analyses", ""), texts
    return found


def test_duplicates_right_after_an_import_wait_for_its_analysis(server: Server,
                                                                  tmp_path: Path) -> None:
    token = server.token("Cursor", toolset="essentials")
    library = library_of(server, tmp_path)

    async def scenario() -> dict[str, Any]:
        async with connect(server.url, token, "legacy") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "serpent_analysis_run" not in names
            return await import_and_find(client, library, planted(tmp_path / "in"))

    found = run(scenario(), timeout=120)
    assert found["notAnalysed"] == 0 and found["analysed"] == 2 * COPIES, found
    assert found["total"] == COPIES and found["note"] is None


def test_an_analysis_that_never_started_is_started(server: Server, tmp_path: Path) -> None:
    server.gateway.analysis_feeder.stop()  # imports are no longer handed to analysis
    token = server.token("Cursor", toolset="essentials")
    library = library_of(server, tmp_path)

    async def scenario() -> dict[str, Any]:
        async with connect(server.url, token, "auto") as client:
            return await import_and_find(client, library, planted(tmp_path / "in"))

    found = run(scenario(), timeout=120)
    assert found["notAnalysed"] == 0 and found["total"] == COPIES, found


def test_a_credential_that_may_not_start_analysis_is_told_where_a_person_does(
        server: Server, tmp_path: Path) -> None:
    server.gateway.analysis_feeder.stop()
    token = server.token("Reader", mode="read-only", toolset="essentials")
    library = library_of(server, tmp_path)
    files = planted(tmp_path / "in")
    imported = server.gateway.submit("file.import", {
        "libraryId": library, "sourcePaths": [str(p) for p in files]}, Caller.ui()).result(60)
    assert imported["status"] == "ok"

    async def scenario() -> dict[str, Any]:
        async with connect(server.url, token, "legacy") as client:
            return await ok(client, "serpent_asset_find_duplicates", {"libraryId": library})

    found = run(scenario(), timeout=120)
    assert found["notAnalysed"] == 2 * COPIES
    assert f"{2 * COPIES} assets are not analysed yet" in found["note"]
    assert IN_WINDOW in found["note"] and "serpent_" not in found["note"]


def test_a_running_analysis_says_when_it_should_be_ready() -> None:
    progress = Progress()
    progress.add(10.0, [{"done": 10, "total": 110}])
    progress.add(12.0, [{"done": 30, "total": 110}])  # 10 a second: 80 left, 8 s
    note = still_running(80, progress)
    assert "80 assets are still being analysed" in note and "30 of 110 done" in note
    assert note.endswith("Ask again in about 10 seconds.")
    assert still_running(1, Progress()).endswith("Ask again in a minute.")
