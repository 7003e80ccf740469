"""SVG drawings: their size, and a picture of them rendered safely with resvg.

Thread-safe (pure functions). resvg (`resvg-py`, Rust) has no scripting and no network code;
what it could still reach are files named by an `href` (an `<image>` of `/home/...`) — so the
drawing is parsed here first (Python's expat: internal entities are expanded with its
billion-laughs guard, external ones never), and every reference that is not inside the file
itself (`#id`, `data:`) is taken out, with `<script>` and `<foreignObject>`; the cleaned
tree is what resvg draws. Sizes follow SVG: width and height in px, pt, pc, mm, cm, in, em
(96 dpi), else the viewBox; a drawing with neither is 100 × 100 as browsers draw it.
`.svgz` is the same, gzipped.
"""

from __future__ import annotations

import gzip
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

MAX_BYTES = 64 * 1024 * 1024  # an SVG (or an unzipped .svgz) past this is not drawn
MAX_SIDE = 1_000_000  # px: a larger declared size is a damaged file
DEFAULT_SIZE = (100.0, 100.0)
_UNITS = {"": 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54,
          "in": 96.0, "em": 16.0, "ex": 8.0}
_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*$")
_XLINK = "{http://www.w3.org/1999/xlink}href"
_DROPPED = {"script", "foreignObject"}
_IMPORT = re.compile(r"@import[^;]*;?", re.IGNORECASE)


class BadSvg(Exception):
    """Not an SVG drawing resvg can draw (the message says why)."""


@dataclass(frozen=True)
class Drawing:
    """A parsed, cleaned drawing: its size in px and the text resvg is given."""

    width: float
    height: float
    root: ET.Element

    def text(self, width: int, height: int) -> str:
        """The drawing scaled to `width` × `height` px (its viewBox keeps the content)."""
        self.root.set("width", str(width))
        self.root.set("height", str(height))
        return ET.tostring(self.root, encoding="unicode")


def read(path: Path | str) -> Drawing:
    """Parse and clean the drawing; `BadSvg` when it is not one."""
    data = _content(Path(path))
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        raise BadSvg(f"not well-formed XML ({error})") from None
    if _local(root.tag) != "svg":
        raise BadSvg("its root element is not <svg>")
    _clean(root)
    width, height = _size(root)
    if "viewBox" not in root.attrib:  # user units are px: keep them when the size changes
        root.set("viewBox", f"0 0 {width:g} {height:g}")
    return Drawing(width, height, root)


def size(path: Path | str) -> tuple[int, int]:
    """Width and height in px (at least 1)."""
    drawing = read(path)
    return max(1, round(drawing.width)), max(1, round(drawing.height))


def render(path: Path | str, box: int) -> Image.Image:
    """The drawing scaled to fit a `box` square (RGBA: an SVG is transparent around it)."""
    import resvg_py

    drawing = read(path)
    scale = box / max(drawing.width, drawing.height)
    width = max(1, round(drawing.width * scale))
    height = max(1, round(drawing.height * scale))
    try:
        png = resvg_py.svg_to_bytes(svg_string=drawing.text(width, height), dpi=96.0,
                                    width=width, height=height)
    except BaseException as error:  # resvg raises ValueError or a Rust panic
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        raise BadSvg(f"resvg could not draw it ({error})") from None
    with Image.open(io.BytesIO(png)) as picture:
        picture.load()
        return picture.convert("RGBA")


def _content(path: Path) -> bytes:
    with path.open("rb") as file:
        head = file.read(2)
        file.seek(0)
        if head == b"\x1f\x8b":  # .svgz
            try:
                with gzip.GzipFile(fileobj=file) as unzipped:
                    data = unzipped.read(MAX_BYTES + 1)
            except (OSError, EOFError) as error:
                raise BadSvg(f"a damaged gzip stream ({error})") from None
        else:
            data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise BadSvg("larger than 64 MB")
    return data


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _clean(root: ET.Element) -> None:
    """Take out scripts, foreign content and every reference outside the file."""
    for parent in root.iter():
        for child in list(parent):
            if _local(child.tag) in _DROPPED or not isinstance(child.tag, str):
                parent.remove(child)
        for name in ("href", _XLINK):
            value = parent.get(name)
            if value is not None and not value.strip().startswith(("#", "data:")):
                del parent.attrib[name]
        if _local(parent.tag) == "style" and parent.text:
            parent.text = _IMPORT.sub("", parent.text)


def _size(root: ET.Element) -> tuple[float, float]:
    box = _view_box(root.get("viewBox"))
    width = _length(root.get("width"))
    height = _length(root.get("height"))
    if width is None or height is None:
        if box is not None:
            box_w, box_h = box
            if width is not None:
                height = width * box_h / box_w
            elif height is not None:
                width = height * box_w / box_h
            else:
                width, height = box_w, box_h
        else:
            width, height = width or DEFAULT_SIZE[0], height or DEFAULT_SIZE[1]
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise BadSvg(f"its size {width:g} × {height:g} cannot be drawn")
    return width, height


def _length(value: str | None) -> float | None:
    """A length in px; None for none, a percentage or an unknown unit."""
    if value is None:
        return None
    found = _LENGTH.match(value)
    if found is None or found.group(2) not in _UNITS:
        return None
    length = float(found.group(1)) * _UNITS[found.group(2)]
    return length if length > 0 else None


def _view_box(value: str | None) -> tuple[float, float] | None:
    if not value:
        return None
    try:
        parts = [float(part) for part in re.split(r"[\s,]+", value.strip())]
    except ValueError:
        return None
    if len(parts) != 4 or parts[2] <= 0 or parts[3] <= 0:
        return None
    return parts[2], parts[3]
