"""A five-star rating control. Tk thread only.

Click a star to set that rating; click the current rating again to clear it. Also works
from the keyboard (0-5, Left/Right) when focused.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from functools import partial

from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.tk_typed import ignoring_event

STARS = 5


class RatingStars(tk.Canvas):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        self.theme = theme
        self._size = theme.px(14)
        self._gap = theme.px(3)
        super().__init__(master, width=STARS * (self._size + self._gap), height=self._size + 4,
                         highlightthickness=0, borderwidth=0, takefocus=1,
                         background=theme.palette.background, cursor="hand2")
        self.value = 0
        self._hover = 0
        self.mixed = False
        self.on_change: Callable[[int], None] = lambda rating: None
        self._items = [self.create_text(i * (self._size + self._gap) + self._size / 2,
                                        self._size / 2 + 2, text="★",
                                        font=("TkDefaultFont", -self._size))
                       for i in range(STARS)]
        self.bind("<Motion>", self._on_motion)
        self.bind("<Leave>", lambda e: self._set_hover(0))
        self.bind("<Button-1>", self._on_click)
        for digit in range(STARS + 1):
            self.bind(str(digit), ignoring_event(partial(self._choose, digit)))
        self.bind("<Left>", lambda e: self._choose(max(0, self.value - 1)))
        self.bind("<Right>", lambda e: self._choose(min(STARS, self.value + 1)))
        theme.on_change(self._paint)
        self._paint()

    def set(self, value: int, mixed: bool = False) -> None:
        self.value = max(0, min(STARS, int(value)))
        self.mixed = mixed
        self._paint()

    def _star_at(self, x: float) -> int:
        return max(1, min(STARS, int(x // (self._size + self._gap)) + 1))

    def _on_motion(self, event: tk.Event) -> None:
        self._set_hover(self._star_at(event.x))

    def _set_hover(self, star: int) -> None:
        self._hover = star
        self._paint()

    def _on_click(self, event: tk.Event) -> None:
        self.focus_set()
        star = self._star_at(event.x)
        self._choose(0 if star == self.value and not self.mixed else star)

    def _choose(self, value: int) -> None:
        self.set(value)
        self.on_change(value)

    def _paint(self) -> None:
        p = self.theme.palette
        self.configure(background=p.background)
        shown = self._hover or (0 if self.mixed else self.value)
        for i, item in enumerate(self._items):
            colour = p.star_on if i < shown else p.star_off
            if self._hover and i < shown:
                colour = p.accent
            self.itemconfigure(item, fill=colour)
