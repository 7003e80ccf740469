"""The picture on the viewer's canvas, put there in bands so the window never stalls. Tk thread
only.

Making a Tk PhotoImage costs the Tk thread about 15 ns per pixel; a 2,000 × 1,300 picture
would hold it for 40 ms and a 4K screen's worth for over 100 ms. So a decoded picture becomes
bands of at most `BAND_PIXELS`, one band per idle moment; the old picture stays until the
last band of the new one is ready, then they swap in one step (no tearing). Panning moves
every band together (one canvas tag).
"""

from __future__ import annotations

import contextlib
import tkinter as tk
from collections.abc import Callable
from typing import Any

BAND_PIXELS = 200_000          # ~3 ms of Tk time per band (more while threads are busy)


class CanvasPicture:
    def __init__(self, canvas: tk.Canvas) -> None:
        self.canvas = canvas
        self._serial = 0
        self._shown_tag: str | None = None
        self._photos: list[tk.PhotoImage] = []
        self._pending: dict[str, Any] | None = None
        self.swaps = 0                 # pictures completed (tests wait on it)
        self._carry = (0.0, 0.0)

    @property
    def tag(self) -> str | None:
        return self._shown_tag

    def show(self, image: Any, x: float, y: float,
             done: Callable[[], None] | None = None) -> None:
        """Put the PIL `image` with its top-left corner at canvas (x, y), band by band;
        `done` runs once it is all on screen. A newer `show` cancels an unfinished one."""
        self._cancel_pending()
        self._serial += 1
        tag = f"picture-{self._serial}"
        x, y = round(x), round(y)          # whole pixels: bands meet without a seam
        rows = max(1, BAND_PIXELS // max(1, image.width))
        bands = [(top, min(image.height, top + rows)) for top in range(0, image.height, rows)]
        self._pending = {"tag": tag, "image": image, "bands": bands, "x": x, "y": y,
                         "photos": [], "done": done, "timer": None}
        self._next_band()

    def _next_band(self) -> None:
        job = self._pending
        if job is None:
            return
        job["timer"] = None
        from PIL import ImageTk

        if job["bands"]:
            top, bottom = job["bands"].pop(0)
            image = job["image"]
            band = image if (top, bottom) == (0, image.height) else image.crop(
                (0, top, image.width, bottom))
            try:
                photo = ImageTk.PhotoImage(band, master=self.canvas)
            except tk.TclError:          # the window is closing
                self._pending = None
                return
            job["photos"].append(photo)
            self.canvas.create_image(job["x"], job["y"] + top, image=photo, anchor="nw",
                                     state="hidden", tags=(job["tag"], "picture"))
        if job["bands"]:
            job["timer"] = self.canvas.after(1, self._next_band)
            return
        self._swap(job)

    def _swap(self, job: dict[str, Any]) -> None:
        self._pending = None
        if self._shown_tag is not None:
            self.canvas.delete(self._shown_tag)
        self._shown_tag = job["tag"]
        self._photos = job["photos"]
        self.canvas.itemconfigure(job["tag"], state="normal")
        self.canvas.tag_lower(job["tag"])
        self.swaps += 1
        if job["done"] is not None:
            job["done"]()

    def show_photo(self, photo: tk.PhotoImage, x: float, y: float) -> int:
        """Show one ready PhotoImage (animation frames), replacing the picture; returns the
        canvas item, whose image the caller may change."""
        self._cancel_pending()
        self.clear()
        self._serial += 1
        tag = self._shown_tag = f"picture-{self._serial}"
        self._photos = [photo]
        self.swaps += 1
        return int(self.canvas.create_image(x, y, image=photo, anchor="nw",
                                            tags=(tag, "picture")))

    def move(self, dx: float, dy: float) -> None:
        """Move by whole pixels (the fractions are carried to the next move), so the bands
        always meet exactly."""
        self._carry = (self._carry[0] + dx, self._carry[1] + dy)
        dx, dy = round(self._carry[0]), round(self._carry[1])
        self._carry = (self._carry[0] - dx, self._carry[1] - dy)
        if not dx and not dy:
            return
        if self._shown_tag is not None:
            self.canvas.move(self._shown_tag, dx, dy)
        if self._pending is not None:
            self._pending["x"] += dx
            self._pending["y"] += dy
            self.canvas.move(self._pending["tag"], dx, dy)

    def clear(self) -> None:
        self._cancel_pending()
        if self._shown_tag is not None:
            self.canvas.delete(self._shown_tag)
        self._shown_tag = None
        self._photos = []

    @property
    def shown(self) -> bool:
        return self._shown_tag is not None

    def shown_size(self) -> tuple[int, int]:
        """Width and height of the picture on screen (0, 0 for none)."""
        if self._shown_tag is None:
            return 0, 0
        box = self.canvas.bbox(self._shown_tag)
        return (box[2] - box[0], box[3] - box[1]) if box else (0, 0)

    def _cancel_pending(self) -> None:
        job, self._pending = self._pending, None
        if job is None:
            return
        if job["timer"] is not None:
            with contextlib.suppress(tk.TclError):
                self.canvas.after_cancel(job["timer"])
        with contextlib.suppress(tk.TclError):
            self.canvas.delete(job["tag"])
