"""Organizing commands through the gateway, as an agent and a read-only client see them:
thumbnails and preview status. Results are checked against the registry's output models
(`strict_outputs`); the worker side is tested in depth in tests/library."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, READER, call, code, import_images, ok


def test_thumbnail_and_preview_status(gateway: Gateway, library: str, tmp_path: Path) -> None:
    [asset] = import_images(gateway, library, tmp_path / "src", 1)
    status = ok(gateway, "asset.preview-status", {"libraryId": library, "assetIds": [asset]},
                READER)
    assert status["items"] == {asset: "pending"}
    shown = ok(gateway, "asset.thumbnail", {"libraryId": library, "assetId": asset,
                                            "size": 128}, READER)
    with Image.open(shown["path"]) as image:
        assert image.size == (shown["width"], shown["height"]) == (16, 12)
    status = ok(gateway, "asset.preview-status", {"libraryId": library, "assetIds": [asset]},
                CLAUDE)
    assert status == {"items": {asset: "ready"}, "notFound": []}
    text = tmp_path / "readme.txt"
    text.write_text("words")
    [doc] = [i["assetId"] for i in ok(gateway, "file.import", {
        "libraryId": library, "sourcePaths": [str(text)]})["items"]]
    answer = call(gateway, "asset.thumbnail", {"libraryId": library, "assetId": doc}, READER)
    assert code(answer) == "UNSUPPORTED_FORMAT" and answer["error"]["libraryId"] == library
