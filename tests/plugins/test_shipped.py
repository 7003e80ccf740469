"""The two plugins shipped with Serpent, end to end: an AI client with Full Access calls them
over real MCP HTTP, a real worker changes real files, the window's person undoes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.credentials import CredentialStore
from serpent_tk.paths import app_dirs
from serpent_tk.plugins.manager import PluginManager
from serpent_tk.settings import SettingsStore
from tests.mcp.conftest import Server, call, connect, create_library, make_images, ok, run
from tests.plugins.conftest import TEST_LIMITS


@pytest.fixture
def shipped(gateway: Gateway) -> Iterator[Server]:
    """An MCP server whose Serpent runs both shipped plugins, exposed."""
    dirs = app_dirs().ensure()
    credentials = CredentialStore(dirs.credentials_file)
    manager = PluginManager(gateway, SettingsStore(dirs.settings_file), dirs.plugins,
                            limits=TEST_LIMITS, entry_points=False)
    manager.start().result(60)
    for plugin_id in ("contact-sheet", "rename-pattern"):
        assert manager.set_enabled(plugin_id, True).status == "running"
        manager.set_exposed(plugin_id, True)
    server = Server(gateway, credentials)
    server.start()
    try:
        yield server
    finally:
        server.service.stop()
        manager.shutdown()


def assets_of(server: Server, library: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    answer = server.gateway.submit("asset.get", {"libraryId": library, "assetIds": ids},
                                   Caller.ui()).result(60)
    return {item["id"]: item for item in answer["result"]["items"]}


def test_rename_pattern_previews_renames_and_undoes_in_one_step(shipped: Server,
                                                                tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 3, prefix="IMG")

    async def scenario() -> None:
        async with connect(shipped.url, shipped.token("Full", "full-access"), "auto") as client:
            library = await create_library(client, tmp_path / "libs")
            folder = (await ok(client, "serpent_folder_create",
                               {"libraryId": library, "name": "Skies"}))["id"]
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures],
                "folderId": folder})
            ids = [item["assetId"] for item in imported["items"]]
            tool = "serpent_plugin_rename_pattern_apply"
            preview = await ok(client, tool, {"libraryId": library, "assetIds": ids,
                                              "pattern": "{folder}-{n:03}", "dryRun": True})
            assert [(i["oldName"], i["newName"]) for i in preview["items"]] == [
                ("IMG-000", "Skies-001"), ("IMG-001", "Skies-002"), ("IMG-002", "Skies-003")]
            assert preview["renamed"] == 0
            assert [a["name"] for a in assets_of(shipped, library, ids).values()] == [
                "IMG-000", "IMG-001", "IMG-002"], "a dry run changes nothing"
            done = await ok(client, tool, {"libraryId": library, "assetIds": ids,
                                           "pattern": "{folder}-{n:03}_{ext}", "start": 7})
            assert done["renamed"] == 3 and not done["dryRun"]
            names = {a["id"]: a["name"] for a in assets_of(shipped, library, ids).values()}
            assert [names[i] for i in ids] == ["Skies-007_png", "Skies-008_png",
                                               "Skies-009_png"]
            history = await ok(client, "serpent_history_list", {"libraryId": library})
            top = history["items"][0]
            assert top["command"] == "asset.rename-batch"
            assert top["actor"]["label"] == "plugin:rename-pattern"
            await ok(client, "serpent_history_undo", {"libraryId": library})  # one step
            names = {a["id"]: a["name"] for a in assets_of(shipped, library, ids).values()}
            assert [names[i] for i in ids] == ["IMG-000", "IMG-001", "IMG-002"]
            bad = await call(client, tool, {"libraryId": library, "assetIds": ids,
                                            "pattern": "{name.__class__}"})
            assert bad["error"]["code"] == "INVALID_ARGUMENT"
            assert "is not a field" in bad["error"]["message"]

    run(scenario())


def test_contact_sheet_adds_one_png_of_the_given_assets(shipped: Server,
                                                        tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 5, size=120)
    text = tmp_path / "pictures" / "notes.txt"
    text.write_text("not a picture")

    async def scenario() -> None:
        async with connect(shipped.url, shipped.token("Full", "full-access"),
                           "legacy") as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in [*pictures, text]]})
            ids = [item["assetId"] for item in imported["items"]]
            made = await ok(client, "serpent_plugin_contact_sheet_make", {
                "libraryId": library, "assetIds": ids, "columns": 3, "cellSize": 128,
                "title": "Review sheet", "tags": ["review"]})
            assert made["count"] == 6 and made["name"] == "Review sheet"
            assert not made["duplicate"]
            sheet = assets_of(shipped, library, [made["assetId"]])[made["assetId"]]
            assert sheet["ext"] == "png" and sheet["tags"] == ["review"]
            assert sheet["addedBy"]["label"] == "plugin:contact-sheet"
            assert (sheet["width"], sheet["height"]) == (made["width"], made["height"])
            copy = tmp_path / "sheet.png"
            shutil.copy(sheet["filePath"], copy)
            with Image.open(copy) as image:
                assert image.format == "PNG"
                assert image.width == 2 * 16 + 3 * 128 + 2 * 12  # three columns
                picture = image.convert("RGB").getpixel((16 + 64, 16 + 20 + 12 + 64))
            assert picture != (250, 250, 250), "the first cell shows a picture"
            found = await ok(client, "serpent_asset_search", {"libraryId": library,
                                                              "text": "Review sheet"})
            assert [a["id"] for a in found["items"]] == [made["assetId"]]
            # a retried idempotency key answers the first call again: no second sheet
            once = {"libraryId": library, "assetIds": ids[:2], "idempotencyKey": "sheet-1"}
            first = await ok(client, "serpent_plugin_contact_sheet_make", once)
            assert await ok(client, "serpent_plugin_contact_sheet_make", once) == first
            reused = await call(client, "serpent_plugin_contact_sheet_make",
                                {**once, "assetIds": ids[:3]})
            assert reused["error"]["code"] == "INVALID_ARGUMENT"
            assert reused["error"]["field"] == "idempotencyKey"
            total = await ok(client, "serpent_asset_search", {"libraryId": library})
            assert total["total"] == 6 + 2  # the pictures, the review sheet, one more
            missing = await call(client, "serpent_plugin_contact_sheet_make", {
                "libraryId": library, "assetIds": ["ast_00000000000000"]})
            assert missing["error"]["code"] == "NOT_FOUND"
            # any title text: a line break once raised "can't measure length of multiline
            # text", answered INTERNAL and turned the plugin off for every client
            lines = await ok(client, "serpent_plugin_contact_sheet_make", {
                "libraryId": library, "assetIds": ids[:2], "title": "Skies\nand\r\nsea\t!"})
            assert lines["name"] == "Skies and sea !" and lines["count"] == 2
            listed = await client.list_tools()
            assert "serpent_plugin_contact_sheet_make" in {t.name for t in listed.tools}

    run(scenario())
