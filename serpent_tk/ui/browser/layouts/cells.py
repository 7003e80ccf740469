"""The canvas items of the grid's cells, and the batch that changes them in one Tcl call.
Tk thread only."""

from __future__ import annotations

import tkinter as tk
from tkinter import _stringify as tkinter_stringify  # type: ignore[attr-defined]

from serpent_tk.ui.shell.theme import FONT_BODY, FONT_CAPTION


def _tcl_word(value: object) -> str:
    return str(tkinter_stringify(value if not isinstance(value, float) else round(value, 1)))


class Batch:
    """Canvas changes gathered into one Tcl script. Each Tk call from Python gives up the GIL
    and must win it back; while the MCP server is busy that wait repeats per call, so one
    script per redraw keeps the window smooth."""

    def __init__(self, canvas: tk.Canvas) -> None:
        self.path = str(canvas)
        self.tk = canvas.tk
        self.lines: list[str] = []

    def coords(self, item: int, *values: float) -> None:
        self.lines.append(f"{self.path} coords {item} " + " ".join(f"{v:.1f}" for v in values))

    def config(self, item: int, **options: object) -> None:
        self.lines.append(f"{self.path} itemconfigure {item} " + " ".join(
            f"-{name} {_tcl_word(value)}" for name, value in options.items()))

    def flush(self) -> None:
        """Run the gathered changes; one that fails (say, a picture freed meanwhile) is
        skipped without stopping the others."""
        if self.lines:
            script = "\n".join(f"catch {{{line}}}" for line in self.lines)
            self.lines = []
            self.tk.eval(script)


class Cell:
    """The canvas items of one visible slot, reused as the view scrolls; the list's extra
    columns are made the first time the slot shows a row of the list."""

    __slots__ = ("index", "bg", "mat", "page", "image", "badge", "title", "detail", "chip_bg",
                 "chip", "columns", "shown", "canvas")

    def __init__(self, canvas: tk.Canvas) -> None:
        self.canvas = canvas
        self.index = -1
        self.bg = canvas.create_rectangle(0, 0, 0, 0, width=0, tags=("cell",))
        self.mat = canvas.create_rectangle(0, 0, 0, 0, width=0, tags=("cell",))
        self.page = canvas.create_polygon(0, 0, 0, 0, 0, 0, tags=("cell",), state="hidden")
        self.image = canvas.create_image(0, 0, tags=("cell",))
        self.badge = canvas.create_text(0, 0, tags=("cell",), font=FONT_CAPTION)
        self.title = canvas.create_text(0, 0, tags=("cell",), font=FONT_BODY, anchor="n")
        self.detail = canvas.create_text(0, 0, tags=("cell",), font=FONT_CAPTION, anchor="n")
        self.chip_bg = canvas.create_rectangle(0, 0, 0, 0, width=0, tags=("cell",),
                                               state="hidden")
        self.chip = canvas.create_text(0, 0, tags=("cell",), font=FONT_CAPTION, anchor="sw",
                                       state="hidden")
        self.columns: list[int] = []
        self.shown: tuple[object, ...] = ()

    def ensure_columns(self, count: int) -> list[int]:
        while len(self.columns) < count:
            self.columns.append(self.canvas.create_text(0, 0, tags=("cell",), font=FONT_BODY,
                                                        anchor="w", state="hidden"))
        return self.columns

    def items(self) -> tuple[int, ...]:
        return (self.bg, self.mat, self.page, self.image, self.badge, self.title, self.detail,
                self.chip_bg, self.chip, *self.columns)
