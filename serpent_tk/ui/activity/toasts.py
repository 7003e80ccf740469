"""Toasts: short, non-blocking messages stacked in the bottom-right corner of the window's
content (the grid: never over the inspector's fields and buttons).

Tk thread only. A toast never takes focus and never waits for anyone; it goes away by
itself (later while the pointer rests on it) or with its close button. Toasts with the
same `key` replace each other, so a busy agent yields one updating toast, not fifty. A toast
about an undoable change carries an action button ("Undo") that runs it and closes the toast.
While the viewer is full screen the toasts are held (`hold`): none covers the picture or
runs out unseen; they come back when the window does.
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from serpent_tk.ui.shell.theme import DARK, FONT_BODY, FONT_STRONG, LIGHT, Theme

Level = Literal["info", "warning", "error", "success"]
ToastAction = tuple[str, Callable[[], None]]      # ("Undo", what it does)
SHOW_MS = {"info": 5000, "success": 4000, "warning": 8000, "error": 10000}
ACTION_EXTRA_MS = 4000   # a toast with a button stays a little longer
MAX_VISIBLE = 5


@dataclass
class _Toast:
    key: str | None
    frame: tk.Frame
    title: tk.Label
    body: tk.Label
    bar: tk.Frame
    level: Level
    button: tk.Label
    action: ToastAction | None = None
    timer: str | None = None
    hovered: bool = False
    count: int = 1


class ToastStack:
    """The toasts of one window."""

    def __init__(self, window: tk.Misc, theme: Theme,
                 bottom: Callable[[], int] = lambda: 0,
                 right: Callable[[], int] = lambda: 0) -> None:
        self.window = window
        self.theme = theme
        self.bottom = bottom       # pixels kept free at the bottom (the status bar)
        self.right = right         # ... and at the right (the inspector)
        self._toasts: list[_Toast] = []
        self._restack_pending = False
        self._held = False
        # after sv-ttk's own pass over every Tk widget (tk_setPalette, at idle), which would
        # otherwise put the window's text colour on the toasts' inverted colours
        theme.on_change(lambda: self.window.after_idle(self._recolour))

    def show(self, text: str, level: Level = "info", *, title: str | None = None,
             key: str | None = None, action: ToastAction | None = None) -> None:
        """Show `text`; with `key`, replace the toast that has the same key; with `action`,
        offer its button (the toast closes when it is pressed)."""
        existing = next((t for t in self._toasts if key is not None and t.key == key), None)
        if existing is not None:
            existing.count += 1
            existing.action = action
            self._fill(existing, text, title, level)
            self._arm(existing)
            self._schedule_restack()
            return
        toast = self._build(key, level)
        toast.action = action
        self._fill(toast, text, title, level)
        self._toasts.append(toast)
        while len(self._toasts) > MAX_VISIBLE:
            self._dismiss(self._toasts[0])
        self._arm(toast)
        self._schedule_restack()

    def hold(self, held: bool) -> None:
        """Hold the toasts (`held`): off the screen, their clocks stopped, new ones kept
        (the full-screen viewer). Let go: they come back, each for its full time."""
        if held == self._held:
            return
        self._held = held
        for toast in self._toasts:
            self._arm(toast)
            if held:
                toast.frame.place_forget()
        self._schedule_restack()

    def texts(self) -> list[str]:
        """The toasts, oldest first (title and text): on screen, or held."""
        result = []
        for toast in self._toasts:
            title = toast.title.cget("text")
            body = toast.body.cget("text")
            result.append(f"{title}: {body}" if title else body)
        return result

    def on_screen(self) -> list[str]:
        """The toasts a person sees now (mapped: not held, placed), oldest first."""
        return [text for toast, text in zip(self._toasts, self.texts(), strict=True)
                if toast.frame.winfo_exists() and toast.frame.winfo_ismapped()]

    def actions(self) -> list[str]:
        """The action buttons on screen now, oldest toast first ("" for none)."""
        return [t.action[0] if t.action else "" for t in self._toasts]

    def press(self, index: int) -> None:
        """Press the action button of toast `index` (what a click does; tests too)."""
        toast = self._toasts[index]
        if toast.action is not None:
            _label, run = toast.action
            self._dismiss(toast)
            run()

    def dismiss_undoable(self) -> None:
        """An undo or redo went through: a toast's Undo would now take back something else,
        so the toasts offering one go (their news is old)."""
        for toast in [t for t in self._toasts if t.action is not None]:
            self._dismiss(toast)

    def clear(self) -> None:
        for toast in list(self._toasts):
            self._dismiss(toast)

    # ---------------------------------------------------------------------------------------
    def _colour(self, level: Level) -> str:
        p = self.theme.palette
        return {"info": p.accent, "success": p.success, "warning": p.warning,
                "error": p.danger}[level]

    def _build(self, key: str | None, level: Level) -> _Toast:
        p, px = self.theme.palette, self.theme.px
        frame = tk.Frame(self.window, background=p.toast_bg, highlightthickness=0,
                         borderwidth=0)
        bar = tk.Frame(frame, width=px(3), background=self._colour(level))
        bar.pack(side="left", fill="y")
        inner = tk.Frame(frame, background=p.toast_bg)
        inner.pack(side="left", fill="both", expand=True, padx=(px(9), px(4)), pady=px(7))
        close = tk.Label(inner, text="✕", background=p.toast_bg, foreground=p.toast_text,
                         font=FONT_BODY, cursor="hand2")
        close.pack(side="right", anchor="n", padx=(px(6), 0))
        title = tk.Label(inner, background=p.toast_bg, foreground=p.toast_text,
                         font=FONT_STRONG, anchor="w", justify="left")
        body = tk.Label(inner, background=p.toast_bg, foreground=p.toast_text, font=FONT_BODY,
                        anchor="w", justify="left", wraplength=px(250))
        body.pack(side="top", fill="x")
        button = tk.Label(inner, background=p.toast_bg, foreground=self._action_colour(),
                          font=FONT_STRONG, cursor="hand2", anchor="w")
        toast = _Toast(key, frame, title, body, bar, level, button)
        button.bind("<Button-1>", lambda e: self._pressed(toast))
        close.bind("<Button-1>", lambda e: self._dismiss(toast))
        # its height settles a moment after its text changes: stack again then (no overlap)
        frame.bind("<Configure>", lambda e: self._schedule_restack())
        for widget in (frame, inner, title, body, button):
            widget.bind("<Enter>", lambda e: self._hover(toast, True), add="+")
            widget.bind("<Leave>", lambda e: self._hover(toast, False), add="+")
        return toast

    def _recolour(self) -> None:
        """Light/dark switched: the toasts on screen take the new colours."""
        p = self.theme.palette
        for toast in [t for t in self._toasts if t.frame.winfo_exists()]:
            stack: list[tk.Misc] = [toast.frame]
            while stack:
                widget = stack.pop()
                stack.extend(widget.winfo_children())
                if widget is not toast.bar:
                    widget["background"] = p.toast_bg
                if isinstance(widget, tk.Label):
                    widget.configure(foreground=p.toast_text)
            toast.button.configure(foreground=self._action_colour())
            toast.bar.configure(background=self._colour(toast.level))

    def _action_colour(self) -> str:
        # the accent of the *other* theme: the toast's colours are the inverse of the window's
        return DARK.accent if self.theme.mode == "light" else LIGHT.accent

    def _pressed(self, toast: _Toast) -> None:
        if toast in self._toasts:
            self.press(self._toasts.index(toast))

    def _fill(self, toast: _Toast, text: str, title: str | None, level: Level) -> None:
        toast.level = level
        if toast.action is not None:
            toast.button.configure(text=toast.action[0])
            toast.button.pack(side="top", anchor="w", pady=(self.theme.px(4), 0))
        else:
            toast.button.pack_forget()
        toast.bar.configure(background=self._colour(level))
        toast.title.configure(text=title or "")
        toast.body.configure(text=text)
        if title:
            toast.title.pack(side="top", fill="x", before=toast.body)
        else:
            toast.title.pack_forget()

    def _arm(self, toast: _Toast) -> None:
        if toast.timer is not None:
            self.window.after_cancel(toast.timer)
            toast.timer = None
        if not toast.hovered and not self._held:
            shown = SHOW_MS[toast.level] + (ACTION_EXTRA_MS if toast.action else 0)
            toast.timer = self.window.after(shown, lambda: self._dismiss(toast))

    def _hover(self, toast: _Toast, inside: bool) -> None:
        toast.hovered = inside
        if inside and toast.timer is not None:
            self.window.after_cancel(toast.timer)
            toast.timer = None
        elif not inside:
            self._arm(toast)

    def _dismiss(self, toast: _Toast) -> None:
        if toast.timer is not None:
            with contextlib.suppress(tk.TclError):
                self.window.after_cancel(toast.timer)
            toast.timer = None
        if toast in self._toasts:
            self._toasts.remove(toast)
        with contextlib.suppress(tk.TclError):
            toast.frame.destroy()
        self._schedule_restack()

    def _schedule_restack(self) -> None:
        """Stack the toasts at the next idle moment, when Tk knows their heights (never
        force a layout pass here: a busy agent updates its toast many times a second)."""
        if not self._restack_pending:
            self._restack_pending = True
            self.window.after_idle(self._restack)

    def _restack(self) -> None:
        self._restack_pending = False
        if self._held:
            return
        px = self.theme.px
        y = -px(14) - self.bottom()
        x = -px(14) - max(0, self.right())
        for toast in reversed(self._toasts):
            if not toast.frame.winfo_exists():
                continue
            toast.frame.place(relx=1.0, rely=1.0, x=x, y=y, anchor="se", width=px(300))
            toast.frame.lift()
            y -= toast.frame.winfo_reqheight() + px(8)
