"""The inspector's colour swatches: the asset's palette (largest share first; shades too
close to tell apart shown once), each swatch a button that finds the assets with that
colour; its tooltip says the colour and its share.

Tk thread only. Layout and input only: a click reports `on_pick("#rrggbb")`.
"""

from __future__ import annotations

import tkinter as tk
from collections.abc import Callable, Sequence
from functools import partial
from tkinter import ttk
from typing import Any

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.theme import Theme
from serpent_tk.ui.shell.tooltip import tooltip
from serpent_tk.ui.tk_typed import ignoring_event

SWATCH_PT = 24
SAME_SHADE = 24          # sRGB distance under which two palette colours show as one swatch


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def merged(palette: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The palette with shades too close to tell apart shown once (their shares added),
    largest share first."""
    kept: list[dict[str, Any]] = []
    for entry in palette:
        colour = str(entry.get("color") or "")
        if len(colour) != 7:
            continue
        rgb = _rgb(colour)
        twin = next((k for k in kept if sum((a - b) ** 2 for a, b in zip(
            _rgb(k["color"]), rgb, strict=True)) < SAME_SHADE ** 2), None)
        if twin is not None:
            twin["ratio"] = float(twin.get("ratio") or 0) + float(entry.get("ratio") or 0)
        else:
            kept.append({"color": colour, "ratio": float(entry.get("ratio") or 0)})
    return sorted(kept, key=lambda k: -k["ratio"])


def share_words(entry: dict[str, Any]) -> str:
    """'#c83232 · 34 % of the picture'."""
    ratio = float(entry.get("ratio") or 0)
    if ratio < 0.01:
        return _("{color} · under 1 % of the picture").format(color=entry.get("color"))
    return _("{color} · {percent} % of the picture").format(color=entry.get("color"),
                                                            percent=round(ratio * 100))


class PaletteSwatches(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme) -> None:
        super().__init__(master)
        self.theme = theme
        self.on_pick: Callable[[str], None] = lambda colour: None
        self.palette: list[dict[str, Any]] = []
        self.swatches: list[tk.Frame] = []
        self.note = ttk.Label(self, style="Caption.TLabel")
        theme.on_change(self._restyle)

    def show(self, palette: Sequence[dict[str, Any]], note: str = "") -> None:
        """These colours (an `asset.get` palette); none: `note` instead ("Not analysed yet")."""
        palette = merged(palette)
        if palette == self.palette and self.swatches:
            return
        self.palette = palette
        for swatch in self.swatches:
            swatch.destroy()
        self.swatches = []
        self.note.pack_forget()
        size = self.theme.px(SWATCH_PT)
        for entry in palette:
            colour = str(entry["color"])
            swatch = tk.Frame(self, width=size, height=size, background=colour,
                              cursor="hand2", highlightthickness=1,
                              highlightbackground=self.theme.palette.text_muted)
            swatch.pack(side="left", padx=(0, self.theme.px(4)))
            swatch.bind("<Button-1>", ignoring_event(partial(self._picked, colour)))
            tooltip(swatch, self.theme, _("{share}. Click to find assets with this "
                                          "colour.").format(share=share_words(entry)))
            self.swatches.append(swatch)
        if not palette and note:
            self.note.configure(text=note)
            self.note.pack(side="left")

    def pick(self, index: int) -> None:
        """What a click on swatch `index` does (tests)."""
        self.on_pick(str(self.palette[index]["color"]))

    def _picked(self, colour: str) -> None:
        self.on_pick(colour)

    def _restyle(self) -> None:
        for swatch in self.swatches:
            swatch.configure(highlightbackground=self.theme.palette.text_muted)
