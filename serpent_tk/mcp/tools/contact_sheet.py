"""Contact sheets: up to 36 thumbnails in one picture, each cell numbered, so an agent looks at
a whole page of assets in one `serpent_asset_thumbnail` call.

Thread-safe (pure functions; call from a worker thread, decoding and drawing is CPU work).
Reads only the thumbnail files the library worker wrote. The numbers drawn are the cells'
`index`; which asset each one is travels in the answer's text (the `items` of the result).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from serpent_tk.mcp.tools.images import FittedImage, fit_frame

CELL = 256  # px of one cell before the sheet is scaled to fit the output budget
GAP = 4
BACKGROUND = (40, 40, 40)
EMPTY_CELL = (70, 70, 70)
LABEL_BACKGROUND = (0, 0, 0)
LABEL_TEXT = (255, 255, 255)
NOTHING_TO_SHOW = {"not_found": "no such asset", "no_preview": "no preview",
                   "file_missing": "file missing"}


@dataclass(frozen=True)
class Cell:
    index: int  # the number drawn on it
    status: str  # shown / not_found / no_preview / file_missing
    path: Path | None = None  # the thumbnail file, when shown


def grid(count: int) -> tuple[int, int]:
    """(columns, rows) of a near-square grid for `count` cells."""
    columns = max(1, math.ceil(math.sqrt(count)))
    return columns, max(1, math.ceil(count / columns))


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (OSError, ValueError, TypeError):  # Pillow without FreeType: the bitmap font
        return ImageFont.load_default()


def draw_sheet(cells: list[Cell]) -> Image.Image:
    """The sheet at full size: each thumbnail centred in its cell, its number in a black box
    at the top left (large enough to read after the sheet is scaled down to fit)."""
    columns, rows = grid(len(cells))
    sheet = Image.new("RGB", (columns * (CELL + GAP) + GAP, rows * (CELL + GAP) + GAP),
                      BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    label_font = _font(CELL // 5)
    note_font = _font(CELL // 10)
    for position, cell in enumerate(cells):
        left = GAP + (position % columns) * (CELL + GAP)
        top = GAP + (position // columns) * (CELL + GAP)
        shown = _paste(sheet, cell, left, top)
        if not shown:
            draw.rectangle((left, top, left + CELL - 1, top + CELL - 1), fill=EMPTY_CELL)
            text = NOTHING_TO_SHOW.get(cell.status, cell.status)
            width = draw.textlength(text, font=note_font)
            draw.text((left + (CELL - width) / 2, top + CELL / 2), text, fill=LABEL_TEXT,
                      font=note_font)
        label = str(cell.index)
        box = draw.textbbox((0, 0), label, font=label_font)
        pad = CELL // 32
        draw.rectangle((left, top, left + box[2] + 2 * pad, top + box[3] + 2 * pad),
                       fill=LABEL_BACKGROUND)
        draw.text((left + pad, top + pad), label, fill=LABEL_TEXT, font=label_font)
    return sheet


def _paste(sheet: Image.Image, cell: Cell, left: int, top: int) -> bool:
    if cell.status != "shown" or cell.path is None:
        return False
    try:
        with Image.open(cell.path) as picture:
            picture.load()
            frame = picture.convert("RGBA")
    except (OSError, ValueError):  # a thumbnail that vanished or broke meanwhile
        return False
    frame.thumbnail((CELL, CELL), Image.Resampling.LANCZOS)
    offset = (left + (CELL - frame.width) // 2, top + (CELL - frame.height) // 2)
    sheet.paste(frame, offset, frame)
    return True


def contact_sheet(cells: list[Cell], max_b64_bytes: int) -> FittedImage:
    """The sheet as a JPEG, scaled down until its base64 fits `max_b64_bytes`."""
    return fit_frame(draw_sheet(cells), has_alpha=False, max_b64_bytes=max_b64_bytes)
