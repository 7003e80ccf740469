"""The full-screen viewer and the slideshow (issue 27): F11 or a double-click on the picture
shows it alone over the whole screen, Esc brings the window back as it was; the slideshow
goes through the view in the grid's order and starts again after the last; toasts wait
while the picture is full screen; the slideshow interval is remembered. Screenshots:
test-artifacts/viewer-full-screen*.png."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.desktop import attach, cancel_timers
from serpent_tk.ui.shell.main_window import WindowServices
from tests.ui.conftest import _ROOTS, App, make_images

pytestmark = pytest.mark.gui


def press(app: App, key: str) -> None:
    widget = app.root.focus_get() or app.window.grid.canvas
    widget.event_generate(key)
    app.root.update()


def chrome(app: App) -> dict[str, bool]:
    """Which parts of the window are on screen."""
    w = app.window
    return {"menu bar": bool(str(app.root.cget("menu"))),
            "toolbar": bool(w.toolbar.winfo_ismapped()),
            "status bar": bool(w.status.winfo_ismapped()),
            "sidebar": w.panes.shown("sidebar"), "inspector": w.panes.shown("inspector"),
            "viewer bar": bool(w.viewer.bar.winfo_ismapped())}


def test_f11_and_double_click_show_the_picture_alone_and_esc_brings_the_window_back(
        app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    viewer, grid, full = window.viewer, window.grid, window.full_screen
    first = window.pages.cell(0).key  # type: ignore[union-attr]
    grid.select_keys([first], focus=first)
    grid.canvas.focus_force()
    app.settle(0.1)
    press(app, "<space>")
    app.pump(lambda: viewer.sharp, "the picture in the viewer")
    windowed = chrome(app)
    assert all(windowed.values()), windowed
    canvas_before = viewer.canvas.winfo_width()

    press(app, "<F11>")
    assert full.active and viewer.is_open
    # (Xvfb has no window manager to grant `wm attributes -fullscreen`: on a desktop the
    # window then covers the screen; here the picture takes the whole window)
    app.pump(lambda: not any(chrome(app).values()), "everything but the picture gone")
    assert viewer.canvas.cget("background") == "#000000"
    app.pump(lambda: viewer.canvas.winfo_width() > canvas_before, "the picture wider")
    app.pump(lambda: viewer.sharp, "the picture again")
    app.shot(tmp_path, "viewer-full-screen", app.root)
    press(app, "<Right>")                                    # the viewer's keys still work
    app.pump(lambda: viewer.key == window.pages.cell(1).key, "the next picture")  # type: ignore[union-attr]

    press(app, "<Escape>")                                   # out of full screen, still viewing
    assert not full.active and viewer.is_open
    app.pump(lambda: chrome(app) == windowed, "the window as it was")
    assert viewer.canvas.cget("background") == window.theme.palette.surface

    for _click in range(2):                                   # a double-click
        viewer.canvas.event_generate("<ButtonPress-1>", x=40, y=40)
        viewer.canvas.event_generate("<ButtonRelease-1>", x=40, y=40)
    app.root.update()
    assert full.active
    viewer.on_double()                                       # a second double-click
    assert not full.active
    press(app, "<Escape>")
    assert not viewer.is_open and grid.winfo_ismapped()

    # F11 from the grid opens the selected asset full screen; closing the viewer (a new
    # view) leaves full screen too
    grid.select_keys([first], focus=first)
    grid.canvas.focus_force()
    press(app, "<F11>")
    assert full.active and viewer.key == first
    window.close_viewer()
    assert not full.active
    app.pump(lambda: chrome(app) == {**windowed, "viewer bar": False}, "the window back")


def test_the_slideshow_goes_through_the_view_and_starts_again(app: App,
                                                               tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    viewer, grid, full = window.viewer, window.grid, window.full_screen
    keys = [window.pages.cell(i).key for i in range(3)]  # type: ignore[union-attr]
    full.slide_ms = 150
    grid.select_keys([keys[1]], focus=keys[1])
    grid.canvas.focus_force()
    app.settle(0.1)
    labels = [label for label, _keys, _state in window.menubar.labels("View")]
    assert "Slideshow" in labels and "Full screen" in labels
    press(app, "s")
    assert full.active and full.slideshow and viewer.key == keys[1]
    seen = [keys[1]]

    def moved_on() -> bool:
        if viewer.key != seen[-1]:
            seen.append(str(viewer.key))
        return len(seen) >= 4

    app.pump(moved_on, "three slides on")
    assert seen == [keys[1], keys[2], keys[0], keys[1]]      # after the last: the first
    app.shot(tmp_path, "viewer-full-screen-slideshow", app.root)

    press(app, "s")                                          # pause
    assert not full.slideshow and full.active
    paused_on = viewer.key
    app.settle(0.5)
    assert viewer.key == paused_on
    # View → Slideshow interval: 2 to 15 seconds, the one in use ticked
    def intervals() -> tk.Menu:
        view = window.menubar.refresh("View")
        entry = next(i for i in range(int(view.index("end")) + 1)
                     if view.type(i) == "cascade"
                     and view.entrycget(i, "label") == "Slideshow interval")
        return view.nametowidget(view.entrycget(entry, "menu"))

    menu = intervals()
    labels = [menu.entrycget(i, "label") for i in range(int(menu.index("end")) + 1)]
    assert labels == ["2 seconds", "4 seconds", "8 seconds", "15 seconds"]
    menu.invoke(2)
    assert full.slide_ms == 8000
    assert intervals().entrycget(2, "label") == "✓ 8 seconds"
    press(app, "s")                                          # goes on, at the new pace
    assert full.slideshow and full.slide_ms == 8000
    press(app, "<Escape>")
    assert not full.active and not full.slideshow and viewer.is_open


def test_toasts_wait_while_the_picture_is_full_screen_and_come_back_after(
        app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 3))
    window = app.window
    toasts, full, viewer = window.toasts, window.full_screen, window.viewer
    toasts.clear()
    window.toast("Imported 3 files", "success")
    app.pump(lambda: toasts.on_screen() == ["Imported 3 files"], "the toast on screen")

    full.start_slideshow()
    assert full.active and full.slideshow
    app.root.update()
    assert toasts.on_screen() == []                          # off the picture at once
    window.toast("Tagged 2 assets", "info")                 # news during the slideshow
    window.toast("Could not read b.psd", "error")
    app.settle(0.3)
    assert toasts.on_screen() == []                          # nothing over the picture
    app.pump(lambda: viewer.sharp, "the picture")
    app.shot(tmp_path, "viewer-full-screen-no-toasts", app.root)

    full.leave()
    # back in the window: everything that came meanwhile, none lost and none run out
    app.pump(lambda: toasts.on_screen() == ["Imported 3 files", "Tagged 2 assets",
                                            "Could not read b.psd"], "the toasts back")


@pytest.fixture
def restart(display: str, gateway: Gateway) -> Iterator[Any]:
    """Builds the window again on a root of its own from the saved settings (a restart)."""
    made: list[tuple[tk.Tk, Any]] = []

    def build() -> Any:
        root = tk.Tk(className="Serpent")
        store = SettingsStore(app_dirs().ensure().settings_file)
        services = WindowServices(bus=UiBus(), gateway=gateway, settings_store=store,
                                  settings=store.load().settings)
        window, close = attach(root, services)
        made.append((root, close))
        root.update()
        return window

    yield build
    for root, close in made:
        close()
        cancel_timers(root)
        _ROOTS.append(root)


def test_the_slideshow_interval_is_remembered_after_a_restart(
        app: App, tmp_path: Path, restart: Any) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 2))
    full = app.window.full_screen
    assert full.slide_ms == 4000                             # the first time: 4 s
    view = app.window.menubar.refresh("View")
    entry = next(i for i in range(int(view.index("end")) + 1)
                 if view.type(i) == "cascade"
                 and view.entrycget(i, "label") == "Slideshow interval")
    view.nametowidget(view.entrycget(entry, "menu")).invoke(3)   # 15 seconds
    assert full.slide_ms == 15000
    store = SettingsStore(app_dirs().settings_file)
    app.pump(lambda: store.load().settings.ui.slideshow_seconds == 15, "the interval saved")
    app.close()

    again = restart().full_screen
    assert again.slide_ms == 15000
    assert [label for label, _run in again.intervals()] == [
        "2 seconds", "4 seconds", "8 seconds", "✓ 15 seconds"]
