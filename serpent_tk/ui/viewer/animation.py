"""Plays an animated GIF or WebP in the viewer: frames decoded off the Tk thread, shown in
turn with `after()`. Tk thread only.

Each frame becomes a PhotoImage when it is first shown (one small copy per tick, never all
of them at once), and the decoded frame is let go then, so memory holds one copy of each.
The schedule keeps to the file's own timing: a late tick shortens the next wait.
"""

from __future__ import annotations

import time
import tkinter as tk
from collections.abc import Callable
from typing import Any

from serpent_tk.ui.viewer.decoder import Frames


class FramePlayer:
    def __init__(self, canvas: tk.Canvas, item: int,
                 make_photo: Callable[[Any], tk.PhotoImage]) -> None:
        self.canvas = canvas
        self.item = item
        self.make_photo = make_photo
        self._frames: list[Any] = []
        self._photos: list[tk.PhotoImage | None] = []
        self._durations: list[int] = []
        self._loop = 0
        self._index = 0
        self._rounds = 0
        self._due = 0.0
        self._timer: str | None = None
        self.shown = 0           # frames shown so far (tests watch it move)

    @property
    def playing(self) -> bool:
        return self._timer is not None

    @property
    def frame_count(self) -> int:
        return len(self._durations)

    def play(self, frames: Frames) -> None:
        self.stop()
        self._frames = list(frames.images)
        self._photos = [None] * len(self._frames)
        self._durations = list(frames.durations)
        self._loop = frames.loop
        self._index = 0
        self._rounds = 0
        self._due = time.monotonic()
        self._show()

    def stop(self) -> None:
        if self._timer is not None:
            self.canvas.after_cancel(self._timer)
            self._timer = None
        self._frames, self._photos, self._durations = [], [], []

    def _show(self) -> None:
        self._timer = None
        if not self._durations or not self.canvas.winfo_exists():
            return
        index = self._index
        photo = self._photos[index]
        if photo is None:
            photo = self._photos[index] = self.make_photo(self._frames[index])
            self._frames[index] = None           # the PhotoImage holds it now
        self.canvas.itemconfigure(self.item, image=photo)
        self.shown += 1
        self._due += self._durations[index] / 1000
        self._index = (index + 1) % len(self._durations)
        if self._index == 0:
            self._rounds += 1
            if self._loop and self._rounds >= self._loop:
                return                            # played as often as the file says
        wait = max(1, round((self._due - time.monotonic()) * 1000))
        if wait <= 1:
            self._due = time.monotonic()          # far behind (a busy moment): no catch-up
        self._timer = self.canvas.after(wait, self._show)
