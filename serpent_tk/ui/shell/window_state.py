"""What the window keeps: its size and place and the panes' widths in the settings (saved on
close, read on start), and everything it shows across a rebuild (`WindowState`): a language
change builds the window anew and puts back the library, the view, the search, the
selection, the viewer, the panes and the Settings page that were there. Also bringing the
window to the front. Tk thread only.
"""

from __future__ import annotations

import contextlib
import logging
import re
import tkinter as tk
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from serpent_tk.settings import Settings

if TYPE_CHECKING:
    from serpent_tk.ui.shell.main_window import MainWindow

log = logging.getLogger(__name__)

MIN_WINDOW = (720, 480)          # pixels of a 96-dpi display (scaled on others)
FIRST_SIZE = (1280, 820)         # the first start's size, of a 96-dpi display, at most
SCREEN_SHARE = (0.92, 0.88)      # ... and at most this share of the screen


@dataclass
class WindowState:
    """What a rebuilt window shows again."""

    library: dict[str, Any] | None
    scope: Any
    text: str
    color: str | None
    tolerance: float
    share: float
    sort: str
    selection: list[str]
    focus: str | None
    viewer: str | None
    shown: dict[str, bool]
    widths: dict[str, int]
    settings_page: str | None
    extra: dict[str, Any] = field(default_factory=dict)


def capture(window: MainWindow) -> WindowState:
    browser, panes = window.browser, window.panes
    settings = window.settings_window
    page = settings.page() if settings is not None and settings.winfo_exists() else None
    return WindowState(
        library=dict(window.session.current) if window.session.current else None,
        scope=browser.scope, text=browser.text, color=browser.color,
        tolerance=browser.color_tolerance, share=browser.color_share, sort=browser.sort,
        selection=window.grid.selected_keys(), focus=window.grid.selection.focus_key,
        viewer=window.viewer.key if window.viewer.is_open else None,
        shown={name: panes.shown(name) for name in ("sidebar", "inspector")},
        widths={name: panes.preferred(name) for name in ("sidebar", "inspector")},
        settings_page=page)


def restore(window: MainWindow, state: WindowState) -> None:
    """Show `state` in a window just built (its library is open already: nothing is opened
    again; the view, search and selection come back once the first page is there)."""
    for name, shown in state.shown.items():
        window.panes.widths[name] = state.widths.get(name) or window.panes.widths[name]
        window.panes.show(name, shown)
    if state.library is None:
        return
    window.session.resume(state.library)
    browser = window.browser
    browser.sort = state.sort
    if state.scope.kind == "similar":
        window.sidebar.show_outside(state.scope)
    elif state.scope.kind != "all":
        window.sidebar.current = state.scope        # its row is chosen once it is listed
        window.sidebar.select_when_shown(state.scope.iid)
    browser.set_scope(state.scope)
    if state.color:
        window.search.color.set(state.color, state.tolerance, state.share, notify=False)
        browser.set_color(state.color, state.tolerance, state.share)
    if state.text:
        window.search.set(state.text)

    def first_page() -> None:
        if state.selection:
            window.grid.select_keys(state.selection, focus=state.focus)
            index = window.pages.index_of(state.focus or state.selection[0])
            if index is not None:
                window.grid.ensure_visible(index)
        if state.viewer:
            window.open_viewer([state.viewer])

    window.pages.on_loaded_first = _once(window.pages, first_page)
    if state.settings_page:
        window.open_settings(state.settings_page)


def _once(pages: Any, then: Any) -> Any:
    def run() -> None:
        pages.on_loaded_first = lambda: None
        then()
    return run


# -- size and place ------------------------------------------------------------------------
def first_geometry(root: tk.Misc, scaled: Any) -> str:
    """The first start's size: the usual size at this display's scale (a 192-dpi screen
    gets twice the pixels), never more than most of the screen."""
    width = min(scaled(FIRST_SIZE[0]), int(root.winfo_screenwidth() * SCREEN_SHARE[0]))
    height = min(scaled(FIRST_SIZE[1]), int(root.winfo_screenheight() * SCREEN_SHARE[1]))
    return f"{width}x{height}"


def rescaled_geometry(geometry: str, saved_scale: float | None, scale: float,
                      root: tk.Misc) -> str:
    """`geometry` ("WxH+X+Y") saved at `saved_scale` pixels per point, for a screen of
    `scale`: the size scaled by their ratio and kept on the screen (an older settings file
    without a scale: as saved)."""
    found = re.fullmatch(r"(\d+)x(\d+)([+-]-?\d+)?([+-]-?\d+)?", geometry.strip())
    if not found or not saved_scale or abs(saved_scale - scale) < 0.01:
        return geometry
    ratio = scale / saved_scale
    width = min(round(int(found.group(1)) * ratio), root.winfo_screenwidth())
    height = min(round(int(found.group(2)) * ratio), root.winfo_screenheight())
    return f"{width}x{height}{found.group(3) or ''}{found.group(4) or ''}"


def restore_geometry(window: MainWindow) -> None:
    ui = window.services.settings.ui
    scaled, root = window.theme.scaled, window.root
    root.minsize(min(scaled(MIN_WINDOW[0]), root.winfo_screenwidth()),
                 min(scaled(MIN_WINDOW[1]), root.winfo_screenheight()))
    root.geometry(rescaled_geometry(ui.window_geometry, ui.window_scale,
                                    window.theme.px(100) / 100, root)
                  if ui.window_geometry else first_geometry(root, scaled))
    window.panes.widths = {"sidebar": scaled(ui.sidebar_width),
                           "inspector": scaled(ui.inspector_width)}
    window.sidebar.configure(width=scaled(ui.sidebar_width))
    window.inspector_holder.configure(width=scaled(ui.inspector_width))
    root.after_idle(lambda: place_sashes(window))


def place_sashes(window: MainWindow) -> None:
    if not window.paned.winfo_exists():
        return
    if window.paned.winfo_width() <= 1:
        window.root.after(50, lambda: place_sashes(window))
        return
    for name in ("sidebar", "inspector"):
        window.panes.set_width(name, window.panes.widths[name])


def remember_layout(window: MainWindow) -> None:
    """Save the window's size and place and the panes' widths (a pane's width while it is
    hidden is the one it comes back at)."""
    theme, panes = window.theme, window.panes
    geometry = window.root.geometry()
    scale = theme.px(100) / 100
    sidebar = theme.unscaled(panes.preferred("sidebar"))
    inspector = theme.unscaled(panes.preferred("inspector"))

    def remember(settings: Settings) -> None:
        settings.ui.window_geometry = geometry
        settings.ui.window_scale = scale
        if sidebar and 120 <= sidebar <= 800:
            settings.ui.sidebar_width = sidebar
        if inspector and 160 <= inspector <= 900:
            settings.ui.inspector_width = inspector

    try:
        window.services.settings_store.update(remember)
    except Exception as error:  # never keep the window open because of this
        log.warning("window layout not saved: %s", error)


def choose_sort(window: MainWindow, sort: str) -> None:
    """The person chose a sort: the grid follows; a sort of every view is remembered (the
    collection's own order and "closest colour" belong to their views)."""
    window.browser.set_sort(sort)
    window.grid.header.set_sort(sort)
    if sort not in ("collection-order", "color-similarity", "similar"):
        keep_setting(window, "sort", sort)


def first_sort(window: MainWindow) -> None:
    """The sort remembered from last time, when the sort menu still offers it."""
    from serpent_tk.ui.browser.sort_chooser import SORTS

    sort = window.services.settings.ui.sort
    if sort in {key for key, _label in SORTS}:
        window.browser.sort = window.browser._sort_elsewhere = sort
        window.browser._sort_before_color = sort


def keep_setting(window: MainWindow, name: str, value: Any) -> None:
    """Set the window's setting `ui.<name>` now and save it in the background."""
    setattr(window.services.settings.ui, name, value)
    store = window.services.settings_store
    window.commands.background(lambda: store.update(lambda s: setattr(s.ui, name, value)))


def bring_to_front(root: tk.Tk) -> None:
    """Show the window above the others, with the focus (a second start, `show-in-desktop`)."""
    root.deiconify()
    root.lift()
    root.attributes("-topmost", True)
    root.after(200, lambda: root.attributes("-topmost", False))
    root.focus_force()


def destroy_children(root: tk.Misc) -> None:
    for child in list(root.winfo_children()):
        with contextlib.suppress(tk.TclError):
            child.destroy()
