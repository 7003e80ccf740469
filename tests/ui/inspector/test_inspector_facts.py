"""The inspector shows a photo's facts as displayed (a sideways-stored phone photo is
portrait), date taken, camera and lens; the palette as swatches whose click finds the assets
with that colour (the search bar shows the filter and ✕ clears it); a damaged image says
why, in the inspector and in its grid cell."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from PIL import Image

from serpent_tk.ui.language.formats import day_and_time
from serpent_tk.ui.shell.tooltip import tooltip_of
from tests.library.files.test_photo_facts import photo
from tests.ui.conftest import App

pytestmark = pytest.mark.gui


def halves(path: Path, left: tuple[int, int, int], right: tuple[int, int, int]) -> Path:
    image = Image.new("RGB", (400, 300), left)
    image.paste(Image.new("RGB", (200, 300), right), (200, 0))
    image.save(path)
    return path


def key_of(app: App, name: str) -> str | None:
    pages = app.window.pages
    for index in range(pages.count()):
        cell = pages.cell(index)
        if cell is not None and cell.title == name:
            return cell.key
    return None


def select(app: App, name: str) -> dict:
    window = app.window
    key = app.pump(lambda: key_of(app, name), f"{name} in the grid")
    window.grid.select_keys([key])
    app.pump(lambda: window.inspector.asset and window.inspector.asset["id"] == key,
             f"{name} in the inspector")
    return window.inspector.asset  # type: ignore[return-value]


def names_in_grid(app: App) -> set[str]:
    pages = app.window.pages
    return {c.title for i in range(pages.count()) if (c := pages.cell(i)) is not None}


def test_facts_swatches_and_colour_search(app: App, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    app.open_default()
    window = app.window
    sources = tmp_path / "photos"
    photo(sources / "phone.jpg", (800, 600), orientation=6, taken="2024:07:01 18:30:05",
          camera=("Apple", "iPhone 15 Pro"), lens="iPhone 15 Pro back camera 6.86mm f/1.78",
          colour=(30, 90, 200))
    halves(sources / "red and green.png", (220, 30, 30), (40, 170, 60))
    halves(sources / "red and blue.png", (220, 30, 30), (30, 90, 200))
    Image.new("RGB", (300, 300), (240, 220, 40)).save(sources / "yellow.png")
    app.import_images(sorted(sources.iterdir()))

    select(app, "phone")
    inspector = window.inspector
    app.pump(lambda: inspector.facts.get("Taken"), "the date taken")
    assert inspector.facts["Dimensions"] == "600 × 800 px"       # as displayed: portrait
    # the camera's local time, in the person's locale (tests/ui/language has the others)
    assert inspector.facts["Taken"] == day_and_time(datetime(2024, 7, 1, 18, 30, 5))
    assert inspector.facts["Camera"] == "Apple iPhone 15 Pro"
    assert inspector.facts["Lens"] == "iPhone 15 Pro back camera 6.86mm f/1.78"
    window.inspector_holder.canvas.yview_moveto(1.0)
    app.shot(tmp_path, "inspector-photo-facts", window.inspector_holder)

    select(app, "red and green")
    assert "Camera" not in inspector.facts and "Lens" not in inspector.facts
    # the palette comes with the analysis the import queued: the inspector follows it
    app.pump(lambda: len(inspector.swatches.swatches) >= 2, "the swatches", timeout=60)
    palette = inspector.swatches.palette
    assert len(palette) == 2, palette                 # two colours, each shown once
    assert palette[0]["ratio"] >= 0.4 and palette[1]["ratio"] >= 0.4
    tip = tooltip_of(inspector.swatches.swatches[0])
    assert tip is not None and "% of the picture" in tip.words()
    assert palette[0]["color"] in tip.words()
    window.inspector_holder.canvas.yview_moveto(1.0)
    app.shot(tmp_path, "inspector-swatches", window.inspector_holder)

    red = next(n for n, e in enumerate(palette) if int(e["color"][1:3], 16) > 150)
    app.pump(lambda: app.gateway_call("task.list", {  # every image has its palette
        "libraryId": window.session.library_id,
        "status": ["queued", "running"]})["items"] == [], "the analysis done", timeout=60)
    inspector.swatches.pick(red)                     # a click on the red swatch
    search = window.search
    assert search.color.color == palette[red]["color"]
    assert search.color.closeness.winfo_manager() and search.color.clear_button.winfo_manager()
    app.pump(lambda: window.pages.known and names_in_grid(app) == {"red and green",
                                                                  "red and blue"},
             "the red pictures only")
    assert window.browser.sort == "color-similarity"
    assert window.sort.get() == "Closest colour"
    assert {"Closest colour", "Date taken", "Colour (hue)"} <= set(window.sort.offered)
    app.shot(tmp_path, "search-bar-colour-filter", window.root)

    # combined with words
    search.set("blue")
    app.pump(lambda: window.pages.known and names_in_grid(app) == {"red and blue"},
             "red and the word 'blue'")
    search.clear()
    app.pump(lambda: window.pages.known and len(names_in_grid(app)) == 2, "red again")

    # a stricter tolerance still finds them; the clear button brings everything back
    search.color.set_tolerance("Near")
    assert window.browser.color_tolerance == 32.0
    app.pump(lambda: window.pages.known and len(names_in_grid(app)) == 2, "close reds")
    search.color.clear_button.invoke()
    app.pump(lambda: window.pages.known and len(names_in_grid(app)) == 4, "every asset")
    assert window.browser.color is None and window.browser.sort == "added-desc"
    assert "Closest colour" not in window.sort.offered

    # the search bar's own colour: yellow, from the menu of common colours
    menu = search.color.menu
    labels = [menu.entrycget(i, "label").strip() for i in range(menu.index("end") + 1)]
    assert labels[-1] == "Other…" and {"Red", "Blue", "Yellow", "Grey"} <= set(labels)
    menu.invoke(labels.index("Yellow"))
    assert search.color.color == "#fdd835"
    app.pump(lambda: window.pages.known and names_in_grid(app) == {"yellow"}, "yellow")
    window.sort.choose("Colour (hue)")
    app.pump(lambda: window.pages.known and window.pages.query.get("sort") == "hue",
             "sorted by hue")
    search.clear_all()
    app.pump(lambda: window.pages.known and len(names_in_grid(app)) == 4, "every asset")
    assert window.browser.sort == "hue"          # a sort the person chose stays

    # "Other…" asks the system's colour chooser (answered here as a person would)
    from serpent_tk.ui.browser import color_filter

    monkeypatch.setattr(color_filter.colorchooser, "askcolor",
                        lambda **options: ((30, 90, 200), "#1E5AC8"))
    menu.invoke(labels.index("Other…"))
    assert search.color.color == "#1e5ac8"
    app.pump(lambda: window.pages.known and names_in_grid(app) == {"phone", "red and blue"},
             "the blue ones")


def test_a_damaged_image_says_why(app: App, tmp_path: Path) -> None:
    app.open_default()
    window = app.window
    good = tmp_path / "in" / "broken.jpg"
    good.parent.mkdir()
    Image.new("RGB", (64, 64), (10, 200, 10)).save(good, "JPEG")
    data = good.read_bytes()
    good.write_bytes(data[:20] + bytes(len(data) - 20))   # a JPEG header, then zeros
    app.import_images([good])
    select(app, "broken")
    inspector = window.inspector
    app.pump(lambda: inspector.problem_text, "the problem in the inspector")
    assert "Damaged file" in inspector.problem_text
    index = window.pages.index_of(inspector.asset["id"])  # type: ignore[index]
    assert index is not None
    assert "Damaged file" in window.pages.cell(index).detail  # type: ignore[union-attr]
    assert not inspector.swatches.winfo_manager()           # no colours to show
