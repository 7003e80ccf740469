"""The built-in viewer in the real window: Space opens the selected asset over the grid (the
inspector stays), the wheel zooms at the pointer, dragging pans, 0 and 1 fit and show 100 %,
the arrows step through the grid's order and stop at the ends, Esc goes back with the
selection on the last one viewed. EXIF orientation, animated GIFs, PDFs and videos (with their
strip of frames), other files and damaged ones each show what they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.conftest import App
from tests.ui.viewer.material import viewer_material

pytestmark = pytest.mark.gui


def stocked(app: App, tmp_path: Path) -> dict[str, str]:
    """Import the viewer material, sorted by name; returns "name.ext" -> asset id, in the
    grid's order."""
    app.open_default()
    files = viewer_material(tmp_path / "material")
    window = app.window
    window.import_paths([str(p) for p in files.values()])
    app.pump(lambda: window.pages.count() == len(files) and not window.importer.busy,
             "the material in the grid", timeout=60)
    window.sort.set("Name A–Z")
    window.browser.set_sort("name-asc")
    app.pump(lambda: window.pages.known and window.pages.cell(0) is not None
             and window.pages.cell(0).title == "brief", "sorted by name")  # type: ignore[union-attr]
    keys = {}
    for index in range(window.pages.count()):
        item = window.pages.item(index)
        assert item is not None
        keys[f"{item['name']}.{item['ext']}"] = item["id"]
    return keys


def press(app: App, key: str) -> None:
    widget = app.root.focus_get() or app.window.grid.canvas
    widget.event_generate(key)
    app.root.update()


def test_space_opens_zoom_pan_step_and_escape_back(app: App, tmp_path: Path) -> None:
    keys = stocked(app, tmp_path)
    window = app.window
    viewer, grid = window.viewer, window.grid
    grid.select_keys([keys["sunset.jpg"]], focus=keys["sunset.jpg"])
    grid.canvas.focus_force()
    app.settle(0.1)
    press(app, "<space>")
    assert viewer.is_open and not grid.winfo_ismapped()
    assert window.inspector_holder.winfo_ismapped()              # the inspector stays beside
    app.pump(lambda: viewer.sharp, "the decoded picture")
    info = viewer.picture_info
    assert info is not None and (info.width, info.height) == (3000, 2000)
    width, height = viewer.picture.shown_size()
    canvas_w, canvas_h = viewer.canvas.winfo_width(), viewer.canvas.winfo_height()
    assert abs(width - round(3000 * viewer.view.scale)) <= 2      # fitted, screen-sized
    assert width <= canvas_w and height <= canvas_h
    assert viewer.bar.position.cget("text").endswith(f"of {len(keys)}")
    app.shot(tmp_path, "viewer-fit-light")

    # the wheel zooms at the pointer: the picture point under it stays under it
    cursor = (canvas_w * 0.3, canvas_h * 0.5)      # (vertically it stays centred until it fills)
    before = viewer.view.image_point(*cursor)
    shown = viewer.sharp_count
    for _ in range(4):
        viewer.wheel(*cursor, 1)
    assert viewer.view.image_point(*cursor) == pytest.approx(before, abs=0.5)
    app.pump(lambda: viewer.sharp_count > shown and viewer._same_scale(viewer._shown_region),
             "the zoomed picture")
    zoomed_w, zoomed_h = viewer.picture.shown_size()
    # decoded for the screen (the view and a margin), never the whole 6 MP at this zoom
    assert zoomed_w <= canvas_w * 1.6 and zoomed_h <= canvas_h * 1.6
    assert f"{viewer.view.percent} %" == viewer.bar.zoom_label.cget("text")

    # dragging pans the picture
    x_before = viewer.view.x
    viewer.canvas.event_generate("<ButtonPress-1>", x=400, y=300)
    viewer.canvas.event_generate("<B1-Motion>", x=300, y=300)
    viewer.canvas.event_generate("<ButtonRelease-1>", x=300, y=300)
    assert viewer.view.x == pytest.approx(x_before - 100)

    press(app, "<Key-1>")
    assert viewer.view.percent == 100
    app.pump(lambda: viewer._same_scale(viewer._shown_region) and viewer.picture.shown,
             "100 %")
    app.shot(tmp_path, "viewer-100-percent-light")
    press(app, "<Key-0>")
    assert viewer.view.fitted

    # arrows follow the grid's order (by name) and the selection follows; stops at the end
    order = list(keys)                                # the grid's order
    at = order.index("sunset.jpg")
    press(app, "<Left>")
    assert viewer.key == keys[order[at - 1]]
    app.pump(lambda: grid.selected_keys() == [keys[order[at - 1]]], "the selection following")
    app.pump(lambda: window.inspector.asset is not None
             and window.inspector.asset["id"] == keys[order[at - 1]], "the inspector following")
    while viewer.key != keys[order[-1]]:
        press(app, "<Right>")
    press(app, "<Right>")
    assert viewer.key == keys[order[-1]]
    assert viewer.canvas.itemcget(viewer.message, "text") == "This is the last one."
    app.pump(lambda: viewer.sharp, "the last picture decoded for the screen")
    assert viewer.canvas.itemcget(viewer.message, "text") == "This is the last one."  # kept
    press(app, "<Left>")
    assert viewer.key == keys[order[-2]]

    press(app, "<Escape>")
    assert not viewer.is_open and grid.winfo_ismapped()
    assert grid.selected_keys() == [keys[order[-2]]]
    assert app.root.focus_get() is grid.canvas


def test_orientation_animation_other_files_and_damaged_ones(app: App, tmp_path: Path) -> None:
    keys = stocked(app, tmp_path)
    window = app.window
    viewer = window.viewer

    window.open_viewer([keys["portrait.jpg"]])
    app.pump(lambda: viewer.sharp, "the portrait")
    info = viewer.picture_info
    assert info is not None and (info.width, info.height) == (1600, 2400)
    width, height = viewer.picture.shown_size()
    assert height > width                                  # EXIF orientation applied

    window.open_viewer([keys["sunset.gif"]])
    app.pump(lambda: viewer.player.playing and viewer.player.frame_count == 6, "the GIF")
    shown = viewer.player.shown
    app.pump(lambda: viewer.player.shown >= shown + 4, "frames moving on")
    assert str(viewer.bar.zoom_in.state()) == "('disabled',)" or \
        "disabled" in viewer.bar.zoom_in.state()

    window.open_viewer([keys["spinner.webp"]])
    app.pump(lambda: viewer.player.playing and viewer.player.frame_count == 4, "the WebP")
    shown = viewer.player.shown
    app.pump(lambda: viewer.player.shown >= shown + 3, "WebP frames moving on")

    window.open_viewer([keys["brief.pdf"]])  # drawn: its first page, A4 portrait
    app.pump(lambda: viewer.sharp, "the PDF's first page")
    info = viewer.picture_info
    assert info is not None and (info.width, info.height) == (595, 842)
    assert not viewer.panel_shown
    app.shot(tmp_path, "viewer-pdf-light")

    opened: list[Path] = []
    window.actions.launch = opened.append
    window.open_viewer([keys["clip.mp4"]])  # its poster, and the strip of frames under it
    app.pump(lambda: viewer.sharp, "the video's poster")
    app.pump(lambda: len(viewer.strip.photos) == 8, "the strip of frames")
    assert viewer.strip.winfo_ismapped() and viewer.strip.times == sorted(viewer.strip.times)
    assert viewer.strip.times[-1] > 3.0
    app.shot(tmp_path, "viewer-video-light")
    viewer.strip.play_button.invoke()
    app.pump(lambda: opened, "the video handed to the system's player")
    assert opened[0].name == "clip.mp4"

    window.open_viewer([keys["scene.blend"]])
    app.pump(lambda: viewer.panel_shown, "the panel for a .blend")
    assert viewer.badge.cget("text") == "BLEND" and not viewer.strip.winfo_ismapped()

    window.open_viewer([keys["broken.jpg"]])
    app.pump(lambda: viewer.panel_shown, "the damaged file's panel")
    assert viewer.problem is not None
    assert viewer.panel_title.cget("text") in ("Damaged file", "Can't read this format")
    assert viewer.panel_text.cget("text")                       # and why, in words


def test_delete_in_the_viewer_trashes_and_shows_the_next(app: App, tmp_path: Path) -> None:
    keys = stocked(app, tmp_path)
    window = app.window
    viewer = window.viewer
    order = list(keys)
    window.grid.select_keys([keys["portrait.jpg"]], focus=keys["portrait.jpg"])
    window.open_viewer([keys["portrait.jpg"]])
    app.pump(lambda: viewer.sharp, "the portrait")
    press(app, "<Delete>")
    after = order[order.index("portrait.jpg") + 1]
    assert viewer.key == keys[after]
    app.pump(lambda: window.pages.count() == len(keys) - 1, "the trashed one gone")
    app.pump(lambda: any("Moved 1 asset to the Trash" in t for t in window.toasts.texts()),
             "the toast")
    assert "Undo" in window.toasts.actions()


@pytest.mark.parametrize("mode", ["dark"])
def test_the_viewer_in_the_dark(app: App, tmp_path: Path, mode: str) -> None:
    keys = stocked(app, tmp_path)
    window = app.window
    window.theme.apply(mode)
    window.open_viewer([keys["sunset.jpg"]])
    app.pump(lambda: window.viewer.sharp, "the picture")
    app.shot(tmp_path, f"viewer-fit-{mode}")
    window.open_viewer([keys["scene.blend"]])
    app.pump(lambda: window.viewer.panel_shown, "the panel")
    app.shot(tmp_path, f"viewer-file-{mode}")
