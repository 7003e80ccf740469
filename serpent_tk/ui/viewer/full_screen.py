"""The viewer over the whole screen, and the slideshow. Tk thread only.

F11 (View → Full screen) or a double-click on the picture: the window goes full screen and
shows the picture alone on black — the menu bar, the toolbar, the sidebar, the inspector,
the viewer's bar and the status bar step aside, and come back as they were with F11, Esc or
another double-click. The viewer's keys go on working (arrows, zoom, 0, 1, Delete). Toasts
are held meanwhile (`ToastStack.hold`) and shown when the window comes back: someone
watching a slideshow wants the picture whole, and the news ("Imported 3 files") kept.

View → Slideshow (S in the viewer) shows the view's assets one after another in full screen,
4 s each (View → Slideshow interval: 2 to 15 s, remembered in
settings.ui.slideshow_seconds), in the grid's order from the one
selected, and starts again at the first after the last; S pauses and goes on, the arrows
step (the next slide waits its full time), Esc ends it.
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from typing import Any

from serpent_tk.ui.language.translate import _, ngettext
from serpent_tk.ui.viewer.order import LOADING

INTERVALS_S = (2, 4, 8, 15)   # View → Slideshow interval
RETRY_MS = 150           # the next page of the view is on its way
BACKDROP = "#000000"
CAPTION = "#b4b4b4"      # what the viewer says under the picture, readable on black


class FullScreen:
    def __init__(self, window: Any) -> None:
        self.window = window
        self.active = False
        self.slideshow = False
        self.slide_ms = window.services.settings.ui.slideshow_seconds * 1000
        self._restore: list[Any] = []         # what enter() changed, undone by leave()
        self._timer: str | None = None
        self._shown_key: str | None = None    # what the running slide timer is for
        viewer = window.viewer
        closed = viewer.on_closed

        def on_closed(key: str) -> None:
            self.leave()                      # the viewer went: so does the full screen
            closed(key)

        viewer.on_closed = on_closed
        viewer.on_double = self.toggle

    # full screen -------------------------------------------------------------------------
    def toggle(self) -> None:
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self) -> None:
        """Show the asset in the viewer (or the selected one, or the view's first) alone
        over the whole screen."""
        w = self.window
        if self.active or not self._open_viewer():
            return
        root, viewer = w.root, w.viewer
        packed = root.pack_slaves()
        at = packed.index(w.paned)
        chrome = [(s, s.pack_info(), i < at) for i, s in enumerate(packed) if s is not w.paned]
        for slave, _info, _before in chrome:
            slave.pack_forget()
        bar = [(s, s.pack_info()) for s in viewer.pack_slaves() if s is not viewer.canvas]
        for slave, _info in bar:
            slave.pack_forget()
        panes = {name: w.panes.shown(name) for name in ("sidebar", "inspector")}
        for name in panes:
            w.panes.show(name, False)
        menu = str(root.cget("menu"))
        root.configure(menu="")
        viewer.canvas.configure(background=BACKDROP)
        viewer.canvas.itemconfigure(viewer.message, fill=CAPTION)
        self._restore = [chrome, bar, panes, menu, w.paned]
        self.active = True
        w.toasts.hold(True)
        with contextlib.suppress(tk.TclError):
            root.attributes("-fullscreen", True)
        viewer.canvas.focus_set()

    def leave(self) -> None:
        """Back to the window as it was (also ends a slideshow)."""
        self.stop_slideshow()
        if not self.active:
            return
        self.active = False
        w = self.window
        root, viewer = w.root, w.viewer
        chrome, bar, panes, menu, paned = self._restore
        self._restore = []
        with contextlib.suppress(tk.TclError):
            root.attributes("-fullscreen", False)
        root.configure(menu=menu)
        for slave, info, before in chrome:
            info.pop("in", None)
            slave.pack(**info, **({"before": paned} if before else {}))
        for slave, info in bar:
            info.pop("in", None)
            slave.pack(**info, before=viewer.canvas)
        for name, shown in panes.items():
            w.panes.show(name, shown)
        viewer._restyle()
        w.toasts.hold(False)                  # what came meanwhile, over the window again
        if viewer.is_open:
            viewer.canvas.focus_set()

    def _open_viewer(self) -> bool:
        w = self.window
        if w.viewer.is_open:
            return True
        keys = w.grid.selected_keys()
        if not keys and w.pages.count():
            first = w.pages.cell(0)
            keys = [first.key] if first is not None else []
        if keys:
            w.open_viewer(keys)
        return bool(w.viewer.is_open)

    # the slideshow -----------------------------------------------------------------------
    def start_slideshow(self) -> None:
        self.enter()
        if not self.active:
            return
        self.slideshow = True
        self.window.viewer.flash(_("Slideshow: S pauses, Esc ends it"))
        self._schedule()

    def stop_slideshow(self) -> None:
        self.slideshow = False
        self._cancel()

    def toggle_slideshow(self) -> None:
        """S: start, pause, go on."""
        if self.slideshow:
            self.stop_slideshow()
            self.window.viewer.flash(_("Slideshow paused (S goes on)"))
        else:
            self.start_slideshow()

    def intervals(self) -> list[tuple[str, Any]]:
        """View → Slideshow interval: "2 seconds"... (the one in use ticked)."""
        return [((("✓ " if seconds * 1000 == self.slide_ms else "") +
                  ngettext("{n} second", "{n} seconds", seconds).format(n=seconds)),
                 lambda seconds=seconds: self.set_interval(seconds)) for seconds in INTERVALS_S]

    def set_interval(self, seconds: float) -> None:
        """Each slide shows for `seconds` from now on (a running slideshow: from this one);
        remembered for the next start."""
        from serpent_tk.ui.shell import window_state

        self.slide_ms = int(seconds * 1000)
        if self.window.services.settings.ui.slideshow_seconds != int(seconds):
            window_state.keep_setting(self.window, "slideshow_seconds", int(seconds))
        if self.slideshow:
            self._schedule()
            self.window.viewer.flash(ngettext("Next slide in {n} second",
                                              "Next slide in {n} seconds",
                                              int(seconds)).format(n=int(seconds)))

    def _schedule(self) -> None:
        self._cancel()
        self._shown_key = self.window.viewer.key
        self._timer = self.window.root.after(self.slide_ms, self._next_slide)

    def _cancel(self) -> None:
        if self._timer is not None:
            with contextlib.suppress(tk.TclError):
                self.window.root.after_cancel(self._timer)
            self._timer = None

    def _next_slide(self) -> None:
        self._timer = None
        viewer = self.window.viewer
        if not self.slideshow or not viewer.is_open or viewer.key is None:
            return
        if viewer.key != self._shown_key:
            self._schedule()                  # stepped by hand: this one gets its time
            return
        following = viewer.order.neighbour(viewer.key, 1)
        if following is None:                 # the last one: again from the first
            first = self.window.pages.cell(0)
            if first is None:
                self.window.grid.ensure_visible(0)
                following = LOADING
            else:
                following = first.key
        if following == LOADING:
            self._timer = self.window.root.after(RETRY_MS, self._next_slide)
            return
        viewer.show(following)
        self._schedule()
