"""Looking at many assets at once: `serpent_asset_thumbnail` with `assetIds` answers one
contact sheet (numbered cells, the numbers mapped to assets in the text) within the output
budget, and no answer carries a thumbnail's path inside the library."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from PIL import Image

from serpent_tk.mcp.tools.contact_sheet import CELL, GAP, Cell, draw_sheet, grid
from tests.mcp.conftest import Server, call, connect, create_library, ok, run

MISSING = "ast_00000000000000000000zz"


def coloured(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"pic-{index:02d}.png"
        Image.new("RGB", (160, 120), (index * 7 % 256, 200 - index * 5, 90)).save(path)
        paths.append(path)
    return paths


def test_one_call_shows_a_page_of_assets_on_one_sheet(server: Server, era: str,
                                                      tmp_path: Path) -> None:
    pictures = coloured(tmp_path / "pictures", 35)
    server.service.set_output_budget(48)  # small: the sheet shrinks until it fits

    async def scenario() -> None:
        async with connect(server.url, server.token(), era) as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            ids = [item["assetId"] for item in imported["items"]]
            result = await client.call_tool("serpent_asset_thumbnail", {
                "libraryId": library, "assetIds": [*ids, MISSING]})
            assert not result.is_error, result
            images = [c for c in result.content if c.type == "image"]
            texts = [c.text for c in result.content if c.type == "text"]
            assert len(images) == 1 and len(texts) == 1
            assert len(result.model_dump_json(by_alias=True)) <= 48 * 1024
            with Image.open(io.BytesIO(base64.b64decode(images[0].data))) as sheet:
                assert sheet.size[0] >= 300  # still a sheet one can look at
            envelope = json.loads(texts[0])
            assert envelope == result.structured_content
            items = envelope["result"]["items"]
            assert [i["index"] for i in items] == list(range(1, 37))
            assert [i["assetId"] for i in items] == [*ids, MISSING]
            assert {i["name"] for i in items[:35]} == {p.stem for p in pictures} or {
                i["name"] for i in items[:35]} == {p.name for p in pictures}
            assert [i["status"] for i in items] == ["shown"] * 35 + ["not_found"]
            # nothing of the library's insides: no path, no thumbs folder
            assert "path" not in envelope["result"]
            assert all("path" not in i for i in items)
            assert "thumbs" not in texts[0] and ".serpent" not in texts[0]
            single = await call(client, "serpent_asset_thumbnail",
                                {"libraryId": library, "assetId": ids[0]})
            assert "path" not in single["result"]
            too_many = await call(client, "serpent_asset_thumbnail",
                                  {"libraryId": library, "assetIds": [*ids, MISSING, MISSING]})
            assert too_many["error"]["code"] == "INVALID_ARGUMENT"
            assert too_many["error"]["field"] == "assetIds"

    run(scenario())


def test_every_cell_shows_its_picture_under_its_number(tmp_path: Path) -> None:
    paths = []
    for index, colour in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255)]):
        path = tmp_path / f"{index}.png"
        Image.new("RGB", (CELL, CELL), colour).save(path)
        paths.append(path)
    cells = [Cell(1, "shown", paths[0]), Cell(2, "shown", paths[1]), Cell(3, "no_preview"),
             Cell(4, "shown", paths[2])]
    assert grid(4) == (2, 2) and grid(36) == (6, 6) and grid(7) == (3, 3)
    sheet = draw_sheet(cells)
    assert sheet.size == (2 * (CELL + GAP) + GAP, 2 * (CELL + GAP) + GAP)

    def centre(position: int) -> tuple[int, ...]:
        left = GAP + (position % 2) * (CELL + GAP)
        top = GAP + (position // 2) * (CELL + GAP)
        return tuple(sheet.getpixel((left + CELL * 3 // 4, top + CELL * 3 // 4)))

    assert [centre(p) for p in (0, 1, 3)] == [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    assert centre(2) == (70, 70, 70)  # nothing to show: a grey cell that says so
    label = sheet.crop((GAP, GAP, GAP + CELL // 4, GAP + CELL // 4))
    colours = {label.getpixel((x, y)) for x in range(label.width) for y in range(label.height)}
    assert (0, 0, 0) in colours and (255, 255, 255) in colours  # the number, black on white
