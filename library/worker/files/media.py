"""What kind of file an asset is: kind and mime from the extension, its facts from Pillow (a
picture) or from its reader in `library.media` (SVG, video, sound, font, PDF).

Runs in the worker process. Pillow only reads an image's header here (`Image.open` is
lazy), so probing a 50 MP photo costs no more than a thumbnail-sized one. Width and height
are as the picture is displayed (EXIF orientation applied: a phone's portrait photo stored
sideways is portrait); date taken, camera and lens come from EXIF (`exif`). A file Pillow
cannot read (a truncated header, an unknown format) is still an asset: it keeps the kind
its extension says and has no width, height or format; when a decoder claims its extension
it is `damaged` (`ImageFacts.problem`).
"""

from __future__ import annotations

import functools
import io
import mimetypes
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from library.media import readers
from library.worker.files import exif, imageformats

Image.MAX_IMAGE_PIXELS = None  # header probing only: huge scans are legitimate assets

_KINDS: dict[str, tuple[str, ...]] = {
    "image": ("jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "bmp", "tif", "tiff", "heic",
              "heif", "avif", "psd", "ico", "icns", "tga", "dds", "exr", "hdr", "raw",
              "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "kra", "xcf", "clip", "procreate",
              "jxl", "qoi", "pcx", "ppm", "pgm", "pbm"),
    "vector": ("svg", "svgz", "ai", "eps"),
    "video": ("mp4", "mov", "m4v", "mkv", "webm", "avi", "wmv", "flv", "mpg", "mpeg", "3gp",
              "ogv"),
    "audio": ("mp3", "wav", "flac", "ogg", "oga", "m4a", "aac", "aif", "aiff", "opus", "wma"),
    "document": ("pdf", "txt", "md", "rtf", "doc", "docx", "odt", "xls", "xlsx", "ods", "ppt",
                 "pptx", "odp", "csv", "html", "htm", "epub", "json", "xml"),
    "font": ("ttf", "otf", "woff", "woff2", "ttc", "otc", "fon"),
    "model": ("obj", "fbx", "blend", "gltf", "glb", "stl", "dae", "3ds", "usd", "usdz", "ply",
              "abc", "max", "ma", "mb", "c4d", "skp"),
    "archive": ("zip", "rar", "7z", "tar", "gz", "tgz", "bz2", "xz", "zst"),
}
KIND_BY_EXT = {ext: kind for kind, exts in _KINDS.items() for ext in exts}
_EXT_OK = re.compile(r"^[a-z0-9]{1,16}$")
_MIME_EXTRA = {"psd": "image/vnd.adobe.photoshop", "webp": "image/webp", "heic": "image/heic",
               "avif": "image/avif", "kra": "application/x-krita", "blend": "application/x-blender",
               "glb": "model/gltf-binary", "gltf": "model/gltf+json", "woff2": "font/woff2",
               "jxl": "image/jxl", "svg": "image/svg+xml", "svgz": "image/svg+xml",
               "ai": "application/postscript", "ttc": "font/collection", "otc": "font/collection",
               "ttf": "font/ttf", "otf": "font/otf", "woff": "font/woff"}


def normalized_ext(path: Path) -> str:
    """The lowercase extension without the dot, or '' when it is not a plain short word."""
    ext = path.suffix[1:].lower()
    return ext if _EXT_OK.match(ext) else ""


def kind_of(ext: str) -> str:
    return KIND_BY_EXT.get(ext, "other")


def load_decoders() -> None:
    """Load what the first probe would: Pillow's common decoders (`preinit`, some 25 ms) and
    the system's mime table. Cheap once done."""
    Image.preinit()
    if not mimetypes.inited:
        mimetypes.init()


@functools.lru_cache(maxsize=256)  # a handful of extensions, asked once per imported file
def mime_of(ext: str) -> str:
    if ext in _MIME_EXTRA:
        return _MIME_EXTRA[ext]
    guessed, _ = mimetypes.guess_type(f"x.{ext}", strict=False) if ext else (None, None)
    return guessed or "application/octet-stream"


@dataclass(frozen=True)
class ImageFacts:
    width: int | None
    height: int | None
    format: str | None
    taken_at: str | None = None
    camera: str | None = None
    lens: str | None = None
    problem: str | None = None  # "damaged": a decoder claims the file but cannot read it
    duration: float | None = None  # seconds: videos and sounds (`library.media`)
    pages: int | None = None  # documents
    codec: str | None = None  # videos and sounds
    family: str | None = None  # fonts
    style: str | None = None


NO_FACTS = ImageFacts(None, None, None)
DAMAGED = ImageFacts(None, None, None, problem="damaged")


def facts_of(image: Image.Image, data: bytes | None = None) -> ImageFacts:
    """The facts of an opened image (its header is enough; `data`: the whole file, when the
    image was opened from it)."""
    photo = exif.read(image) if _may_have_exif(image, data) else exif.NOTHING
    width, height = exif.displayed_size(int(image.size[0]), int(image.size[1]),
                                        photo.orientation)
    return ImageFacts(width, height, image.format, photo.taken_at, photo.camera, photo.lens)


def probe(path: Path | str, ext: str, kind: str, data: bytes | None = None) -> ImageFacts:
    """What a file of this kind says about itself: an image's facts from its header, those
    of an SVG, video, sound, font or PDF from its reader (`library.media`); nothing for the
    other kinds. A file a reader cannot read is DAMAGED."""
    if kind == "image":
        return probe_image(path, ext, data)
    if not readers.reads(ext):
        return NO_FACTS
    try:
        found = readers.facts(path, ext)
    except readers.Unreadable:
        return DAMAGED
    return ImageFacts(found.width, found.height, found.format, duration=found.duration,
                      pages=found.pages, codec=found.codec, family=found.family,
                      style=found.style)


def previewed(ext: str, kind: str) -> bool:
    """Does a file of this kind and extension get a preview (a picture, or a reader's)?"""
    return kind == "image" or readers.reads(ext)


def probe_image(path: Path | str, ext: str = "", data: bytes | None = None) -> ImageFacts:
    """The image's facts from its header; nothing if Pillow cannot tell (`DAMAGED` when
    a decoder claims `ext` but cannot read the file). `data`: the file's whole content
    when it is at hand (a small file just copied), read instead of the file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _open(path if data is None else io.BytesIO(data), ext) as image:
                return facts_of(image, data)
    except FileNotFoundError:
        raise
    except Exception:  # any decoder complaint: the file stays an asset without image facts
        if ext and imageformats.decodable_ext(ext):
            return DAMAGED
        return NO_FACTS


def _open(source: Path | str | io.BytesIO, ext: str) -> Image.Image:
    """Pillow's open, trying first the decoder the extension names (one header parse instead
    of asking each decoder in turn); a file whose extension lies is opened as Pillow finds."""
    expected = _format_of(ext)
    if expected is not None:
        try:
            return Image.open(source, formats=[expected])
        except UnidentifiedImageError:
            if isinstance(source, io.BytesIO):
                source.seek(0)
    return Image.open(source)


def _format_of(ext: str) -> str | None:
    return _HINTS.get(ext)


# the decoders Pillow loads first anyway (`preinit`): naming another would load them all
_HINTS = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "jpe": "JPEG", "jfif": "JPEG",
          "gif": "GIF", "bmp": "BMP", "ppm": "PPM", "pgm": "PPM", "pbm": "PPM"}


def _may_have_exif(image: Image.Image, data: bytes | None = None) -> bool:
    """Whether asking Pillow for the EXIF block is worth it. Pillow looks for a PNG's eXIf
    chunk by decoding the whole picture when none came before the pixels; here the chunks
    after the pixels are walked instead (their headers only), and a late eXIf is handed to
    Pillow as one that came early. A PNG whose whole content (`data`) does not even hold
    the chunk's name has none."""
    if image.format != "PNG" or "exif" in image.info:
        return True
    if data is not None and b"eXIf" not in data:
        return False
    late = _late_png_exif(getattr(image, "fp", None))
    if late is None:
        return False
    image.info["exif"] = late
    return True


def _late_png_exif(fp: Any) -> bytes | None:
    """A PNG's eXIf chunk after its first IDAT, as Pillow keeps it (b"Exif\\0\\0" + TIFF
    data); None when there is none (or the file cannot be walked)."""
    if not hasattr(fp, "seek") or not hasattr(fp, "read"):
        return None
    try:
        position = fp.tell()
        try:
            fp.seek(8)
            for _ in range(1_000_000):  # a PNG of a million chunks is not a picture
                header = fp.read(8)
                if len(header) < 8:
                    return None
                length = int.from_bytes(header[:4], "big")
                kind = header[4:]
                if kind == b"eXIf":
                    block = bytes(fp.read(length))
                    block = block[6:] if block.startswith(b"Exif\x00\x00") else block
                    return b"Exif\x00\x00" + block
                if kind == b"IEND":
                    return None
                fp.seek(length + 4, io.SEEK_CUR)  # the data and its CRC
            return None
        finally:
            fp.seek(position)
    except (OSError, ValueError):
        return None
