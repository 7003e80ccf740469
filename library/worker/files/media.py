"""What kind of file an asset is: kind and mime from the extension, image facts from Pillow.

Runs in the worker process. Pillow only reads an image's header here (`Image.open` is
lazy), so probing a 50 MP photo costs no more than a thumbnail-sized one. Width and height
are as the picture is displayed (EXIF orientation applied: a phone's portrait photo stored
sideways is portrait); date taken, camera and lens come from EXIF (`exif`). A file Pillow
cannot read (a truncated header, an unknown format) is still an asset: it keeps the kind
its extension says and has no width, height or format; when a decoder claims its extension
it is `damaged` (`ImageFacts.problem`).
"""

from __future__ import annotations

import mimetypes
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from library.worker.files import exif, imageformats

Image.MAX_IMAGE_PIXELS = None  # header probing only: huge scans are legitimate assets

_KINDS: dict[str, tuple[str, ...]] = {
    "image": ("jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "bmp", "tif", "tiff", "heic",
              "heif", "avif", "svg", "psd", "ico", "icns", "tga", "dds", "exr", "hdr", "raw",
              "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "kra", "xcf", "clip", "procreate",
              "ai", "eps", "jxl", "qoi", "pcx", "ppm", "pgm", "pbm"),
    "video": ("mp4", "mov", "m4v", "mkv", "webm", "avi", "wmv", "flv", "mpg", "mpeg", "3gp"),
    "audio": ("mp3", "wav", "flac", "ogg", "oga", "m4a", "aac", "aif", "aiff", "opus", "wma"),
    "document": ("pdf", "txt", "md", "rtf", "doc", "docx", "odt", "xls", "xlsx", "ods", "ppt",
                 "pptx", "odp", "csv", "html", "htm", "epub", "json", "xml"),
    "font": ("ttf", "otf", "woff", "woff2", "ttc", "fon"),
    "model": ("obj", "fbx", "blend", "gltf", "glb", "stl", "dae", "3ds", "usd", "usdz", "ply",
              "abc", "max", "ma", "mb", "c4d", "skp"),
    "archive": ("zip", "rar", "7z", "tar", "gz", "tgz", "bz2", "xz", "zst"),
}
KIND_BY_EXT = {ext: kind for kind, exts in _KINDS.items() for ext in exts}
_EXT_OK = re.compile(r"^[a-z0-9]{1,16}$")
_MIME_EXTRA = {"psd": "image/vnd.adobe.photoshop", "webp": "image/webp", "heic": "image/heic",
               "avif": "image/avif", "kra": "application/x-krita", "blend": "application/x-blender",
               "glb": "model/gltf-binary", "gltf": "model/gltf+json", "woff2": "font/woff2",
               "jxl": "image/jxl"}


def normalized_ext(path: Path) -> str:
    """The lowercase extension without the dot, or '' when it is not a plain short word."""
    ext = path.suffix[1:].lower()
    return ext if _EXT_OK.match(ext) else ""


def kind_of(ext: str) -> str:
    return KIND_BY_EXT.get(ext, "other")


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


NO_FACTS = ImageFacts(None, None, None)
DAMAGED = ImageFacts(None, None, None, problem="damaged")


def facts_of(image: Image.Image) -> ImageFacts:
    """The facts of an opened image (its header is enough)."""
    photo = exif.read(image)
    width, height = exif.displayed_size(int(image.size[0]), int(image.size[1]),
                                        photo.orientation)
    return ImageFacts(width, height, image.format, photo.taken_at, photo.camera, photo.lens)


def probe_image(path: Path, ext: str = "") -> ImageFacts:
    """The image's facts from its header; nothing if Pillow cannot tell (`DAMAGED` when
    a decoder claims `ext` but cannot read the file)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(path) as image:
                return facts_of(image)
    except FileNotFoundError:
        raise
    except Exception:  # any decoder complaint: the file stays an asset without image facts
        if ext and imageformats.decodable_ext(ext):
            return DAMAGED
        return NO_FACTS
