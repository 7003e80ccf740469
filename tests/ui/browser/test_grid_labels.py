"""What a grid cell says: the file type on every picture (sunset.gif is not sunset.jpg),
rating stars that are never shortened away, and why a picture has no thumbnail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.conftest import App
from tests.ui.viewer.material import viewer_material

pytestmark = pytest.mark.gui


def painted(app: App, key: str):  # type: ignore[no-untyped-def]
    grid = app.window.grid
    return next((c for c in grid._cells.values() if c.shown and c.shown[0] == key), None)


def test_type_chip_whole_stars_and_a_reason_for_no_picture(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    files = viewer_material(tmp_path / "material")
    window = app.window
    window.import_paths([str(files[n]) for n in ("sunset.jpg", "sunset.gif", "broken.jpg",
                                                 "brief.pdf")])
    app.pump(lambda: window.pages.count() == 4 and not window.importer.busy, "the files")
    by_name = {}
    for index in range(4):
        item = window.pages.item(index)
        assert item is not None
        by_name[f"{item['name']}.{item['ext']}"] = item["id"]
    app.gateway_call("asset.update", {"libraryId": library_id,
                                      "assetId": by_name["sunset.jpg"], "rating": 4})
    window.zoom_step(-10)                                  # the smallest cells
    grid, canvas = window.grid, window.grid.canvas

    def ready() -> bool:
        jpg, gif = painted(app, by_name["sunset.jpg"]), painted(app, by_name["sunset.gif"])
        broken = painted(app, by_name["broken.jpg"])
        return bool(jpg and gif and broken and jpg.shown[5] is not None
                    and gif.shown[5] is not None and broken.shown[6]
                    and canvas.itemcget(jpg.detail, "text").endswith("★★★★"))

    app.pump(ready, "thumbnails, the rating and the broken file's reason")
    jpg, gif = painted(app, by_name["sunset.jpg"]), painted(app, by_name["sunset.gif"])
    assert canvas.itemcget(jpg.chip, "text") == "JPG"
    assert canvas.itemcget(gif.chip, "text") == "GIF"
    assert canvas.itemcget(gif.chip, "state") == "normal"
    detail = canvas.itemcget(jpg.detail, "text")
    assert detail.endswith("★★★★") and "★★★★★" not in detail     # whole, and only four
    x0, _, x1, _ = canvas.bbox(jpg.detail)
    assert x1 - x0 <= grid.cell_w
    broken = painted(app, by_name["broken.jpg"])
    reason = canvas.itemcget(broken.badge, "text")
    assert reason.splitlines()[0] == "JPG"
    assert reason.splitlines()[1] in ("Can't read this format", "Damaged file")
    pdf = painted(app, by_name["brief.pdf"])
    assert canvas.itemcget(pdf.badge, "text") == "PDF"            # not a problem: just a PDF
    app.shot(tmp_path, "grid-labels-light", grid)

    # the inspector says the same instead of "No preview"
    grid.select_keys([by_name["broken.jpg"]])
    inspector = window.inspector
    app.pump(lambda: inspector.preview.itemcget(inspector._preview_text, "text")
             in ("Can't read this format", "Damaged file"), "the inspector's reason")
