"""Font files (TTF, OTF, TTC, WOFF, WOFF2): family and style, and a specimen drawn in the font.

Thread-safe (pure functions). fontTools reads the names (the typographic family and style
when the font has them, else the legacy ones) and which characters the font has; Pillow's
FreeType draws the specimen in the font itself: its name, "Aa Bb Cc", a pangram and digits
for the Latin characters it has, and a line of Chinese, Japanese and Korean characters when
it has those — a CJK font shows its CJK glyphs, a Latin font never shows empty boxes. A
collection (`.ttc`) shows its first font. A file neither can read is `BadFont`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

INK = (24, 24, 28)
PAPER = (255, 255, 255)
NAME_INK = (110, 110, 120)
LATIN_LINES = ("Aa Bb Cc Gg Rr", "The quick brown fox jumps", "0123456789 &?!")
CJK_LINES = ("永字八法 中文字体 漢字", "あいうえお アイウエオ", "한글 글꼴")
MAX_GLYPHS = 24  # a symbol font shows this many of its characters


class BadFont(Exception):
    """Not a font file Serpent can read (the message says why)."""


@dataclass(frozen=True)
class FontFacts:
    family: str | None
    style: str | None


def probe(path: Path | str) -> FontFacts:
    family, style, _characters = _read(path)
    return FontFacts(family, style)


def specimen(path: Path | str, box: int) -> Image.Image:
    """A `box`-wide specimen, three quarters as high, drawn in the font."""
    family, style, characters = _read(path)
    width, height = box, max(8, box * 3 // 4)
    lines = _lines(characters)
    picture = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(picture)
    margin = max(2, box // 24)
    label = " ".join(part for part in (family, style) if part) or Path(path).stem
    label_font = ImageFont.load_default(size=max(6, box // 18))
    draw.text((margin, margin), label[:60], font=label_font, fill=NAME_INK)
    top = margin * 2 + max(6, box // 18)
    room = height - top - margin
    size = max(6, int(room / max(1, len(lines)) / 1.35))
    try:
        font = ImageFont.truetype(str(path), size, index=0)
    except OSError as error:
        raise BadFont(f"FreeType cannot draw it ({error})") from None
    for line in lines:
        font = _fitting(path, font, line, width - 2 * margin)
        draw.text((margin, top), line, font=font, fill=INK)
        top += int(font.size * 1.35)
    return picture


def _lines(characters: set[int] | None) -> list[str]:
    """The specimen's lines, with only characters the font has (None: not known, Latin)."""
    if characters is None:
        return list(LATIN_LINES)
    lines = [line for line in LATIN_LINES if _has(characters, line)]
    cjk = [line for line in CJK_LINES if _has(characters, line)]
    if cjk:
        lines = lines[:2] + cjk[:2]
    if not lines:  # a symbol or another script's font: its own characters
        shown = [chr(c) for c in sorted(characters) if c > 0x20 and chr(c).isprintable()]
        lines = ["".join(shown[i:i + MAX_GLYPHS // 2])
                 for i in range(0, min(len(shown), MAX_GLYPHS), MAX_GLYPHS // 2)]
    return lines or ["Aa"]


def _has(characters: set[int], line: str) -> bool:
    return all(ord(c) in characters for c in line if not c.isspace())


def _fitting(path: Path | str, font: ImageFont.FreeTypeFont, line: str,
             room: int) -> ImageFont.FreeTypeFont:
    """The font at a size at which `line` fits `room` px."""
    size = font.size
    while size > 6 and font.getlength(line) > room:
        size = max(6, int(size * room / max(1.0, font.getlength(line))))
        font = ImageFont.truetype(str(path), size, index=0)
        if font.getlength(line) > room:
            size -= 1
            font = ImageFont.truetype(str(path), size, index=0)
    return font


def _read(path: Path | str) -> tuple[str | None, str | None, set[int] | None]:
    """Family, style and the characters the font has (None when only FreeType reads it)."""
    try:
        from fontTools.ttLib import TTFont, TTLibError

        try:
            with TTFont(str(path), fontNumber=0, lazy=True) as font:
                names = font.get("name", None)
                family = names.getBestFamilyName() if names is not None else None
                style = names.getBestSubFamilyName() if names is not None else None
                cmap = font.getBestCmap() if "cmap" in font else None
                return _clean(family), _clean(style), set(cmap) if cmap else None
        except (TTLibError, ImportError) as error:
            problem: Exception = error
        except Exception as error:  # a damaged table: FreeType may still read it
            problem = error
    except ImportError as error:  # pragma: no cover - fontTools is a dependency
        problem = error
    try:
        family, style = ImageFont.truetype(str(path), 12, index=0).getname()
    except OSError:
        raise BadFont(f"not a font Serpent can read ({problem})") from None
    return _clean(family), _clean(style), None


def _clean(text: str | None) -> str | None:
    text = " ".join((text or "").split())
    return text[:200] or None
