"""Builds the Tk root and runs the event loop. Tk thread only (the process's main thread).

This module owns the root (DPI awareness before `Tk()`, the icon, tkdnd), the UiBus drain
loop and the ordered close; the window itself is `main_window.MainWindow`. The window's
modules are imported when the window is built, not with this module: the app makes its
root (`create_root`) while they are still being imported on another thread.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from typing import TYPE_CHECKING

from serpent_tk import APP_NAME
from serpent_tk.shipped_files import icon_path
from serpent_tk.ui.shell.theme import enable_windows_dpi_awareness

if TYPE_CHECKING:
    from serpent_tk.ui.shell.bus import UiBus
    from serpent_tk.ui.shell.main_window import MainWindow, WindowServices

log = logging.getLogger(__name__)

DRAIN_INTERVAL_MS = 15
SOON_INTERVAL_MS = 3   # after a tick that handled events, at most SOON_TICKS times in a row
SOON_TICKS = 4
ICON_SIZES = (16, 32, 48, 64, 128, 256)


class NoDisplayError(RuntimeError):
    """Tk could not open a display (for example over SSH without X forwarding)."""


def create_root() -> tk.Tk:
    enable_windows_dpi_awareness()
    try:
        root = tk.Tk(className=APP_NAME)
    except tk.TclError as error:
        raise NoDisplayError(  # i18n: not words (the terminal's, before any window)
            f"Serpent needs a display to open its window ({error}). "
            "Run it on a desktop session, or use `serpent-tk serve` for the headless MCP "
            "server.") from error
    root.title(APP_NAME)
    set_icon(root)
    return root


def set_icon(root: tk.Tk) -> None:
    try:
        images = [tk.PhotoImage(master=root, file=str(icon_path(size))) for size in ICON_SIZES]
    except (FileNotFoundError, tk.TclError) as error:
        log.warning("app icon not loaded: %s", error)
        return
    root.iconphoto(True, *images)
    root._serpent_icons = images  # type: ignore[attr-defined]  # keep references alive


def enable_drops(root: tk.Misc) -> bool:
    """Load tkdnd into this Tk; False (and a log line) when it cannot load. Tcl loads it
    without holding Python's lock, so the app does it while its modules import."""
    try:
        from tkinterdnd2 import TkinterDnD

        TkinterDnD._require(root)
        return True
    except Exception as error:  # no tkdnd build for this platform, or a broken install
        log.warning("drag and drop from the file manager is off: %s", error)
        return False


def pump_bus(root: tk.Misc, bus: UiBus) -> None:
    """Drain the bus every few milliseconds, on the Tk thread, within a time budget. After
    a tick that handled something the next comes sooner (a reply usually starts calls whose
    replies follow within milliseconds: the first page is three such hops), a few times in
    a row at most, so a flood of events still leaves Tk its time to draw."""
    soon = 0

    def tick() -> None:
        nonlocal soon
        handled = 0
        try:
            handled = bus.drain()
        finally:
            soon = soon + 1 if handled and soon < SOON_TICKS else 0
            root.after(SOON_INTERVAL_MS if soon else DRAIN_INTERVAL_MS, tick)

    root.after(DRAIN_INTERVAL_MS, tick)


def cancel_timers(root: tk.Misc) -> None:
    """Cancel every pending `after` of this interpreter, so none fires into destroyed widgets
    (the Tcl event loop outlives the root when another root is made in the same thread)."""
    for timer in root.tk.splitlist(root.tk.call("after", "info")):
        root.tk.call("after", "cancel", timer)


def attach(root: tk.Tk, services: WindowServices,
           on_close: Callable[[], None] | None = None) -> tuple[MainWindow, Callable[[], None]]:
    """Build the main window on `root` and wire the bus; returns it and its close function.

    Tests use this with their own root; `run_window` is the app's path.
    """
    from serpent_tk.ui.shell import window_state
    from serpent_tk.ui.shell.events import ActivateWindow, CloseRequested, RunOnTk
    from serpent_tk.ui.shell.main_window import MainWindow

    bus = services.bus
    bus.subscribe(RunOnTk, lambda event: event.fn(*event.args))
    window = MainWindow(root, services)
    pump_bus(root, bus)
    closed = False

    def rebuild() -> MainWindow:
        """The window again, in the language now spoken, showing what it showed (the
        libraries stay open in the gateway; only the widgets are made anew)."""
        nonlocal window
        state = window_state.capture(window)
        old = window
        old.detach()
        cancel_timers(root)                 # the old widgets' timers (the bus's too)
        window_state.destroy_children(root)
        window = MainWindow(root, services, theme=old.theme)
        window.rebuild = rebuild
        services.window = window
        pump_bus(root, bus)
        window_state.restore(window, state)
        return window

    window.rebuild = rebuild
    services.window = window

    def close() -> None:
        nonlocal closed
        if closed:
            return
        closed = True
        window.close()
        if on_close is not None:
            on_close()
        cancel_timers(root)
        root.destroy()
        bus.discard_pending()

    root.protocol("WM_DELETE_WINDOW", close)
    bus.subscribe(CloseRequested, lambda _event: close())
    bus.subscribe(ActivateWindow, lambda _event: window_state.bring_to_front(root))
    return window, close


def run_window(services: WindowServices, on_close: Callable[[], None] | None = None,
               on_ready: Callable[[], None] | None = None, *, root: tk.Tk | None = None,
               drops: bool | None = None) -> int:
    """The desktop app: build the window (on `root`, else on a new root), open the first
    library, run. `on_ready` runs once the window is drawn (the app starts the MCP service
    there). `drops`: whether `enable_drops` already loaded tkdnd into `root`."""
    root = root or create_root()
    services.drops = enable_drops(root) if drops is None else drops
    window, _close = attach(root, services, on_close)
    window.start()                   # the library opens (in its worker) while Tk lays out
    root.update_idletasks()          # lay out and draw before saying so
    log.info("window ready")
    if on_ready is not None:
        on_ready()
    root.mainloop()
    return 0
