"""`plugin.contact-sheet.make`: one PNG with the given assets side by side, each named under
its picture, added to the library as a new asset.

Runs in the plugin's host process. Pictures come from Serpent's own previews
(`asset.thumbnail`, so every format Serpent can show works, HEIC included); an asset without
a preview gets a plain tile with its extension. The sheet is written to the invocation's
work folder and imported with `file.import`, so it is an ordinary asset: searchable, undoable
(Undo moves it to the trash), and the window shows it at once.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from PIL import Image, ImageDraw, ImageFont, ImageOps
from pydantic import Field

from serpent_tk.plugins.api import (
    Api,
    AssetId,
    CommandFailed,
    FolderId,
    Model,
    Plugin,
    PluginError,
    get_assets,
)

plugin = Plugin()

MARGIN = 16
GAP = 12
LABEL_PX = 14
TITLE_PX = 20
BACKGROUND = (250, 250, 250)
INK = (40, 40, 40)
QUIET = (120, 120, 120)
TILE = (225, 225, 228)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]+")


class MakeIn(Model):
    asset_ids: list[AssetId] = Field(min_length=1, max_length=200, description="The assets "
                                     "to show, in this order.")
    columns: int | None = Field(default=None, ge=1, le=12, description="Pictures per row "
                                "(default: about as many rows as columns).")
    cell_size: int = Field(default=256, ge=96, le=512, description="The longest side of "
                           "each picture, in pixels.")
    title: str | None = Field(default=None, max_length=120, description="Printed at the "
                              "top and used as the new asset's name (default: \"Contact "
                              "sheet\" with the date and time).")
    folder_id: FolderId | None = Field(default=None, description="Put the sheet in this "
                                       "folder (default: in no folder).")
    tags: list[str] = Field(default_factory=list, max_length=20,
                            description="Tags for the new sheet.")


class MakeOut(Model):
    asset_id: str = Field(description="The new asset: the sheet.")
    name: str
    width: int
    height: int
    count: int = Field(description="How many assets are on the sheet.")
    duplicate: bool = Field(description="The same sheet was in the library already; "
                            "assetId is that one.")


@plugin.command(
    "make", input=MakeIn, output=MakeOut, risk="normal", title="Make contact sheet",
    summary="Make a contact sheet: one PNG showing the given assets side by side with their "
            "names, added to the library as a new asset (e.g. to share a selection or "
            "review a folder at a glance).",
    returns="assetId of the new sheet, its size and how many assets it shows.",
    example={"libraryId": "lib_01j9z3k4m5n6p7q8",
             "assetIds": ["ast_01j9z3k4m5n6p7q8", "ast_01j9z3k4m5n6p7q9"], "columns": 4})
def make(api: Api, args: MakeIn) -> MakeOut:
    assets = get_assets(api, args.asset_ids)
    title = one_line(args.title or "") or f"Contact sheet {datetime.now():%Y-%m-%d %H.%M}"
    sheet = draw_sheet([(_picture(api, a, args.cell_size), _label(a)) for a in assets],
                       title, args.cell_size, args.columns)
    file_name = (_UNSAFE.sub("-", title).strip(" .-") or "Contact sheet")[:120]
    path = api.work_dir() / f"{file_name}.png"
    sheet.save(path, "PNG", optimize=True)
    imported = api.call("file.import", {
        "sourcePaths": [str(path)], "tags": args.tags,
        **({"folderId": args.folder_id} if args.folder_id else {})})
    item = imported["items"][0]
    if item.get("status") not in ("imported", "duplicate") or not item.get("assetId"):
        raise PluginError(item.get("error") or "The sheet could not be added to the library.",
                          item.get("errorCode") or "INTERNAL")
    return MakeOut(asset_id=item["assetId"], name=file_name, width=sheet.width,
                   height=sheet.height, count=len(assets),
                   duplicate=item["status"] == "duplicate")


def one_line(text: str) -> str:
    """`text` on one line: line breaks, tabs and runs of spaces become one space (a title or
    name with a line break cannot be measured or cut to fit)."""
    return " ".join(text.split())


def _label(asset: dict[str, Any]) -> str:
    ext = asset.get("ext")
    return one_line(f"{asset['name']}.{ext}" if ext else str(asset["name"]))


def _picture(api: Api, asset: dict[str, Any], size: int) -> Image.Image | None:
    """Serpent's preview of the asset at `size`, or None when there is none."""
    try:
        preview = api.call("asset.thumbnail", {"assetId": asset["id"], "size": size})
        with Image.open(preview["path"]) as image:
            image.load()
            return ImageOps.exif_transpose(image).convert("RGB")
    except (CommandFailed, OSError, KeyError, ValueError):
        return None


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: the small bitmap font
        return ImageFont.load_default()


def draw_sheet(cells: list[tuple[Image.Image | None, str]], title: str, cell: int,
               columns: int | None) -> Image.Image:
    """The sheet: a title, then a grid of pictures fitted in `cell` squares, named below."""
    count = len(cells)
    columns = columns or max(1, math.ceil(math.sqrt(count)))
    columns = min(columns, count)
    rows = math.ceil(count / columns)
    label_font, title_font = _font(LABEL_PX), _font(TITLE_PX)
    label_h = LABEL_PX + 10
    top = MARGIN + TITLE_PX + GAP
    width = 2 * MARGIN + columns * cell + (columns - 1) * GAP
    height = top + rows * (cell + label_h) + (rows - 1) * GAP + MARGIN
    sheet = Image.new("RGB", (width, height), BACKGROUND)
    pen = ImageDraw.Draw(sheet)
    pen.text((MARGIN, MARGIN), _fit(pen, one_line(title), title_font, width - 2 * MARGIN),
             fill=INK, font=title_font)
    for index, (picture, label) in enumerate(cells):
        row, column = divmod(index, columns)
        x = MARGIN + column * (cell + GAP)
        y = top + row * (cell + label_h + GAP)
        if picture is None:
            pen.rectangle((x, y, x + cell - 1, y + cell - 1), fill=TILE)
            ext = label.rsplit(".", 1)[-1].upper() if "." in label else "?"
            pen.text((x + cell / 2, y + cell / 2), ext, fill=QUIET, font=title_font,
                     anchor="mm")
        else:
            picture.thumbnail((cell, cell))
            sheet.paste(picture, (x + (cell - picture.width) // 2,
                                  y + (cell - picture.height) // 2))
        pen.text((x, y + cell + 4), _fit(pen, one_line(label), label_font, cell), fill=INK,
                 font=label_font)
    return sheet


def _fit(pen: ImageDraw.ImageDraw, text: str, font: Any, room: float) -> str:
    """`text`, cut with an ellipsis to fit `room` pixels."""
    if pen.textlength(text, font=font) <= room:
        return text
    while text and pen.textlength(text + "…", font=font) > room:
        text = text[:-1]
    return text + "…"
