"""Builds the Tk root and runs the event loop. Tk thread only (the process's main thread).

The window itself is assembled from view modules; this module owns the root, the icon, the
UiBus drain loop and the ordered shutdown.
"""

from __future__ import annotations

import logging
import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass, field
from tkinter import ttk

from serpent_tk import APP_NAME
from serpent_tk.resources import icon_path
from serpent_tk.ui.bus import UiBus
from serpent_tk.ui.events import ActivateWindow, CloseRequested, Notice

log = logging.getLogger(__name__)

DRAIN_INTERVAL_MS = 20
ICON_SIZES = (16, 32, 48, 64, 128, 256)


class NoDisplayError(RuntimeError):
    """Tk could not open a display (for example over SSH without X forwarding)."""


@dataclass
class DesktopContext:
    bus: UiBus
    library_name: str
    notices: list[str] = field(default_factory=list)
    on_close: Callable[[], None] | None = None


def create_root() -> tk.Tk:
    try:
        root = tk.Tk(className=APP_NAME)
    except tk.TclError as error:
        raise NoDisplayError(
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


def bring_to_front(root: tk.Tk) -> None:
    root.deiconify()
    root.lift()
    root.attributes("-topmost", True)
    root.after(200, lambda: root.attributes("-topmost", False))
    root.focus_force()


def pump_bus(root: tk.Tk, bus: UiBus) -> None:
    def tick() -> None:
        bus.drain()
        root.after(DRAIN_INTERVAL_MS, tick)

    root.after(DRAIN_INTERVAL_MS, tick)


def build_window(root: tk.Tk, context: DesktopContext) -> None:
    root.title(f"{context.library_name} — {APP_NAME}")
    root.geometry("1100x720")
    root.minsize(640, 420)
    frame = ttk.Frame(root, padding=24)
    frame.pack(fill="both", expand=True)
    banner = ttk.Label(frame, text="", wraplength=900, foreground="#8a4b00")
    banner.pack(anchor="w")
    ttk.Label(frame, text=context.library_name, font=("TkDefaultFont", 16, "bold")).pack(
        anchor="w", pady=(8, 4))
    ttk.Label(frame, text="This library is empty.").pack(anchor="w")

    def show_notice(event: Notice) -> None:
        banner.configure(text=event.text)

    context.bus.subscribe(Notice, show_notice)
    context.bus.subscribe(ActivateWindow, lambda _event: bring_to_front(root))
    for text in context.notices:
        context.bus.post(Notice(text))


def run_window(context: DesktopContext) -> int:
    root = create_root()
    build_window(root, context)
    pump_bus(root, context.bus)

    def close() -> None:
        if context.on_close is not None:
            context.on_close()
        root.destroy()

    root.protocol("WM_DELETE_WINDOW", close)
    context.bus.subscribe(CloseRequested, lambda _event: close())
    log.info("window ready")
    root.mainloop()
    return 0
