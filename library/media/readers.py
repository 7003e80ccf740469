"""Which reader takes which file: the facts of an SVG, video, sound, font or PDF, and its picture.

Thread-safe (pure functions). `reads(ext)` says whether a reader takes files with this
extension; `facts` reads what the file says about itself (size as displayed, duration,
pages, codec, font family and style), `picture` draws it to fit a square (an SVG's
drawing, a video's poster frame, a sound's waveform, a font's specimen, a PDF's first
page). A file its reader cannot read raises `Unreadable` (the asset is then flagged
damaged, as a picture that cannot be decoded); a missing file, FileNotFoundError.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from library.media import audio, fonts, pdf, svg, video

READERS: dict[str, tuple[str, ...]] = {
    "svg": ("svg", "svgz"),
    "video": ("mp4", "mov", "m4v", "mkv", "webm", "avi", "wmv", "flv", "mpg", "mpeg", "3gp",
              "ogv"),
    "audio": ("mp3", "wav", "flac", "ogg", "oga", "m4a", "aac", "aif", "aiff", "opus", "wma"),
    "font": ("ttf", "otf", "ttc", "otc", "woff", "woff2"),
    "pdf": ("pdf", "ai"),
}
READER_BY_EXT = {ext: reader for reader, exts in READERS.items() for ext in exts}
_BAD = (svg.BadSvg, video.BadVideo, audio.BadAudio, fonts.BadFont, pdf.BadPdf)


class Unreadable(Exception):
    """The file's reader cannot read it: `message` says why (for the log, not people)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Facts:
    width: int | None = None  # px as displayed (a PDF: points of its first page)
    height: int | None = None
    format: str | None = None  # "SVG", "PDF", "MP4", ...
    duration: float | None = None  # seconds (video, sound)
    pages: int | None = None
    codec: str | None = None
    family: str | None = None  # fonts
    style: str | None = None


def reads(ext: str) -> bool:
    return ext in READER_BY_EXT


def facts(path: Path | str, ext: str) -> Facts:
    """What the file says about itself. Raises Unreadable, FileNotFoundError."""
    reader = READER_BY_EXT[ext]
    try:
        if reader == "svg":
            width, height = svg.size(path)
            return Facts(width, height, "SVG")
        if reader == "video":
            found = video.probe(path)
            return Facts(found.width, found.height, ext.upper(), duration=found.duration,
                         codec=found.codec)
        if reader == "audio":
            sound = audio.probe(path)
            return Facts(format=ext.upper(), duration=sound.duration, codec=sound.codec)
        if reader == "font":
            font = fonts.probe(path)
            return Facts(format=ext.upper(), family=font.family, style=font.style)
        document = pdf.probe(path)
        return Facts(document.width, document.height, "PDF", pages=document.pages)
    except _BAD as bad:
        raise Unreadable(f"{reader}: {bad}") from None


def picture(path: Path | str, ext: str, box: int) -> Image.Image:
    """The file drawn to fit a `box` square. Raises Unreadable, FileNotFoundError."""
    reader = READER_BY_EXT[ext]
    try:
        if reader == "svg":
            return svg.render(path, box)
        if reader == "video":
            return video.poster(path, box)
        if reader == "audio":
            return audio.waveform(path, box)
        if reader == "font":
            return fonts.specimen(path, box)
        return pdf.first_page(path, box)
    except _BAD as bad:
        raise Unreadable(f"{reader}: {bad}") from None
