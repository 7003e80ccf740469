"""Tooltips: a short text under an icon button after the pointer rests on it. Tk thread only.

Delayed (`DELAY_MS`), gone on leaving, clicking or typing, coloured from the theme (the
toast colours: readable on either theme), placed below the widget and kept on screen.
`tooltip(widget, text)` attaches one; `tooltip_of(widget)` finds it again (tests, and
widgets whose text changes: "Undo “Tagged 3 assets”").
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from collections.abc import Callable

from serpent_tk.ui.shell.theme import FONT_CAPTION, Theme

DELAY_MS = 600
_TIPS: dict[str, Tooltip] = {}


class Tooltip:
    def __init__(self, widget: tk.Misc, theme: Theme, text: str | Callable[[], str]) -> None:
        self.widget = widget
        self.theme = theme
        self.text = text
        self.window: tk.Toplevel | None = None
        self._timer: str | None = None
        for sequence, handler in (("<Enter>", self._schedule), ("<Leave>", self.hide),
                                  ("<ButtonPress>", self.hide), ("<KeyPress>", self.hide),
                                  ("<Destroy>", self._forget)):
            widget.bind(sequence, handler, add="+")
        _TIPS[str(widget)] = self

    def words(self) -> str:
        return self.text() if callable(self.text) else self.text

    def _schedule(self, _event: object = None) -> None:
        self._cancel()
        self._timer = self.widget.after(DELAY_MS, self.show)

    def _cancel(self) -> None:
        if self._timer is not None:
            with contextlib.suppress(tk.TclError):
                self.widget.after_cancel(self._timer)
            self._timer = None

    def show(self) -> None:
        """Show now (also what the delay ends in)."""
        self._timer = None
        text = self.words()
        if not text or not self.widget.winfo_exists() or not self.widget.winfo_ismapped():
            return
        self.hide()
        p, px = self.theme.palette, self.theme.px
        window = self.window = tk.Toplevel(self.widget)
        window.withdraw()
        window.overrideredirect(True)
        with contextlib.suppress(tk.TclError):
            window.attributes("-type", "tooltip")     # X11: a tooltip to the window manager
        window.configure(background=p.toast_bg)
        label = tk.Label(window, text=text, justify="left", font=FONT_CAPTION,
                         background=p.toast_bg, foreground=p.toast_text,
                         padx=px(6), pady=px(3), wraplength=px(260))
        label.pack()
        window.update_idletasks()
        width, height = window.winfo_reqwidth(), window.winfo_reqheight()
        x = self.widget.winfo_rootx() + (self.widget.winfo_width() - width) // 2
        y = self.widget.winfo_rooty() + self.widget.winfo_height() + px(4)
        screen_w, screen_h = window.winfo_screenwidth(), window.winfo_screenheight()
        x = max(0, min(x, screen_w - width))
        if y + height > screen_h:
            y = self.widget.winfo_rooty() - height - px(4)
        window.geometry(f"+{x}+{y}")
        window.deiconify()
        window.lift()

    @property
    def shown(self) -> bool:
        return self.window is not None and bool(self.window.winfo_exists())

    def hide(self, _event: object = None) -> None:
        self._cancel()
        if self.window is not None:
            with contextlib.suppress(tk.TclError):
                self.window.destroy()
            self.window = None

    def _forget(self, event: tk.Event) -> None:
        if event.widget is self.widget:
            self.hide()
            _TIPS.pop(str(self.widget), None)


def tooltip(widget: tk.Misc, theme: Theme, text: str | Callable[[], str]) -> Tooltip:
    """Give `widget` a tooltip (replacing the text of one it has)."""
    existing = _TIPS.get(str(widget))
    if existing is not None and existing.widget is widget:
        existing.text = text
        return existing
    return Tooltip(widget, theme, text)


def tooltip_of(widget: tk.Misc) -> Tooltip | None:
    found = _TIPS.get(str(widget))
    return found if found is not None and found.widget is widget else None
