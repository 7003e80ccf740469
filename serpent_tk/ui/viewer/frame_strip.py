"""The viewer's strip of frames under a video: eight frames spread over it, each with its
time, and "Play" (the system's player, on a copy as "Open with system app" makes). Tk thread
only; the frames are decoded on the viewer's decoder thread (`PictureDecoder.strip`)."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable
from tkinter import ttk
from typing import TYPE_CHECKING, Any

from serpent_tk.ui.language import humanize
from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.theme import FONT_CAPTION, Theme
from serpent_tk.ui.shell.tooltip import tooltip

if TYPE_CHECKING:
    from serpent_tk.ui.viewer.decoder import DecodeError, PictureDecoder

FRAMES = 8
FRAME_BOX = 120  # px (before the display's scale)


class FrameStrip(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, play: Callable[[], None],
                 token: Callable[[], int], decoder: Callable[[], PictureDecoder]) -> None:
        super().__init__(master, padding=(theme.px(8), theme.px(6)))
        self.theme = theme
        self._token = token
        self._decoder = decoder
        self.before: tk.Misc | None = None  # the widget the strip is packed under
        self.photos: list[tk.PhotoImage] = []  # kept alive while shown
        self.times: list[float] = []
        self.play_button = ttk.Button(self, text=_("▶ Play"), style="Accent.TButton",
                                      command=play)
        self.play_button.pack(side="left", padx=(0, theme.px(8)))
        tooltip(self.play_button, theme, _("Play the video in the app your system uses for "
                                           "it"))
        self.row = ttk.Frame(self)
        self.row.pack(side="left", fill="x", expand=True)
        self.note = ttk.Label(self, style="Muted.TLabel", font=FONT_CAPTION)

    def load(self, token: int, path: str) -> None:
        """Show the strip of the video at `path` once its frames are decoded."""
        self._decoder().strip(token, path, FRAMES, self.theme.px(FRAME_BOX), self._got)

    def hide(self) -> None:
        self.pack_forget()
        for child in self.row.winfo_children():
            child.destroy()
        self.photos, self.times = [], []

    def _got(self, token: int, frames: Any, error: DecodeError | None) -> None:
        if token != self._token():
            return
        self.hide()
        kwargs: dict[str, Any] = {"before": self.before} if self.before is not None else {}
        self.pack(side="bottom", fill="x", **kwargs)
        if not frames:
            self.note.configure(text=error.message if error is not None else "")
            self.note.pack(side="left", in_=self.row)
            return
        from PIL import ImageTk

        for seconds, picture in frames:
            photo = ImageTk.PhotoImage(picture, master=self)
            self.photos.append(photo)  # type: ignore[arg-type]
            self.times.append(seconds)
            cell = ttk.Frame(self.row)
            cell.pack(side="left", padx=(0, self.theme.px(4)))
            ttk.Label(cell, image=photo).pack()
            ttk.Label(cell, text=humanize.duration(seconds), style="Muted.TLabel",
                      font=FONT_CAPTION).pack()
