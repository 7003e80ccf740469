"""Layouts that survive (issue 27): at 800 × 560 and narrower every toolbar control is on
screen whole or in the ⋯ menu (the sort is in View → Sort by too), in English and in 简体中文;
the sidebar comes back to its width when the window grows again and that width is what is
remembered; the sort is remembered; a window saved on a 96-dpi screen opens twice as big on
a 192-dpi one."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Iterator
from pathlib import Path

import pytest

from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from serpent_tk.ui.language import translate
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.desktop import attach, cancel_timers
from serpent_tk.ui.shell.main_window import WindowServices
from serpent_tk.ui.shell.toolbar import MIN_SEARCH_PT
from tests.ui.conftest import _ROOTS, App, make_images

pytestmark = pytest.mark.gui


def whole(widget: tk.Misc) -> bool:
    return widget.winfo_width() >= widget.winfo_reqwidth() - 2


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("width", [800, 560])
def test_every_toolbar_control_is_whole_or_in_the_overflow_menu(
        app: App, tmp_path: Path, language: str, width: int) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    window = app.window
    if language != "en":
        window = app.window = window.change_language(language)
        app.pump(lambda: window.pages.known, "the rebuilt window's page")
    app.root.minsize(400, 300)                  # a window manager that ignores the minimum
    app.root.geometry(f"{width}x560")
    app.settle(0.6)
    toolbar = window.toolbar
    assert app.root.winfo_width() == width
    assert toolbar.search.winfo_ismapped()
    assert toolbar.search.winfo_width() >= window.theme.px(MIN_SEARCH_PT) - 2
    shown = [w for w in toolbar.winfo_children() if w.winfo_ismapped()]
    assert all(whole(w) for w in shown if w is not toolbar.search), \
        [(str(w), w.winfo_width(), w.winfo_reqwidth()) for w in shown if not whole(w)]
    assert toolbar.import_button.winfo_ismapped() and whole(toolbar.import_button)
    hidden = toolbar.hidden_for_room
    assert "zoom" in hidden
    assert toolbar.overflow.winfo_ismapped()
    toolbar._fill_overflow()
    menu = toolbar.overflow_menu
    labels = [menu.entrycget(i, "label") for i in range(int(menu.index("end")) + 1)]
    assert translate._("Bigger thumbnails") in labels
    if "sort" in hidden:
        assert translate._("Sort by") in labels
    view = [label for label, _keys, _state in window.menubar.labels("View")]
    assert translate._("Sort by") in view
    app.shot(tmp_path, f"toolbar-{width}-{language}")
    app.root.geometry("1400x860")
    app.settle(0.5)
    assert not toolbar.hidden_for_room and not toolbar.overflow.winfo_ismapped()


def test_the_sidebar_comes_back_to_its_width_and_the_sort_is_remembered(
        app: App, tmp_path: Path) -> None:
    app.open_default()
    app.import_images(make_images(tmp_path / "refs", 4))
    window, panes = app.window, app.window.panes
    app.root.minsize(400, 300)
    panes.set_width("sidebar", window.theme.px(260))
    app.settle(0.3)
    chosen = panes.width("sidebar")
    app.root.geometry("560x560")                # squeezed for a while
    app.settle(0.5)
    assert panes.width("sidebar") < chosen
    app.root.geometry("1400x860")               # grown back
    app.settle(0.5)
    assert abs(panes.width("sidebar") - chosen) <= 2
    window.sort.choose("Name A–Z")
    app.pump(lambda: SettingsStore(app_dirs().settings_file).load().settings.ui.sort ==
             "name-asc", "the sort saved")
    app.root.geometry("560x560")
    app.settle(0.5)
    app.close()                                 # closed while squeezed
    saved = SettingsStore(app_dirs().settings_file).load().settings.ui
    assert abs(saved.sidebar_width - window.theme.unscaled(chosen)) <= 2
    assert saved.sort == "name-asc"


@pytest.fixture
def second_window(display: str, gateway: Gateway) -> Iterator[object]:
    """Builds a window on a root of its own, at a chosen display scale (a restart)."""
    made: list[tuple[tk.Tk, object, float]] = []

    def build(dpi: float) -> tuple[tk.Tk, object]:
        root = tk.Tk(className="Serpent")
        before = float(root.tk.call("tk", "scaling"))
        root.tk.call("tk", "scaling", dpi / 72)
        store = SettingsStore(app_dirs().ensure().settings_file)
        services = WindowServices(bus=UiBus(), gateway=gateway, settings_store=store,
                                  settings=store.load().settings)
        window, close = attach(root, services)
        made.append((root, close, before))
        return root, window

    yield build
    for root, close, before in made:
        root.tk.call("tk", "scaling", before)
        close()  # type: ignore[operator]
        cancel_timers(root)
        _ROOTS.append(root)


def test_a_window_saved_at_96_dpi_opens_scaled_on_a_192_dpi_screen(second_window) -> None:  # type: ignore[no-untyped-def]
    store = SettingsStore(app_dirs().ensure().settings_file)
    store.update(lambda s: (setattr(s.ui, "window_geometry", "700x500+0+0"),
                            setattr(s.ui, "window_scale", 96 / 72),
                            setattr(s.ui, "sort", "size-desc")))
    root, window = second_window(192)
    root.update()
    for _ in range(50):
        root.update()
    assert root.winfo_width() >= 1300 and root.winfo_height() >= 900   # 2 × as big (on screen)
    assert window.browser.sort == "size-desc"                         # the sort kept
