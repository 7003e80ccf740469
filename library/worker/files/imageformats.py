"""Which image formats the worker decodes: Pillow's own plus HEIC/HEIF through pillow-heif.

Runs in the worker process. Importing this module registers the pillow-heif opener once
(when the package is installed), so imports learn the size of iPhone photos and thumbnails
show them; AVIF is built into Pillow (11.3 and later). EPS is never opened: Pillow would
start Ghostscript for it.
"""

from __future__ import annotations

import threading

import PIL
from PIL import Image

NEVER_OPENED = frozenset({"EPS"})

_lock = threading.Lock()
_heif_version: str | None = None
_registered = False


def register() -> None:
    """Teach Pillow HEIC/HEIF, once per process; a missing pillow-heif only loses HEIC."""
    global _registered, _heif_version
    with _lock:
        if _registered:
            return
        _registered = True
        try:
            import pillow_heif
        except ImportError:
            return
        pillow_heif.register_heif_opener()
        _heif_version = str(pillow_heif.__version__)


def thumbnail_formats() -> tuple[str, ...]:
    """Pillow format names a thumbnail may be decoded from, in Pillow's own order (the
    common ones, JPEG and PNG, among the first it tries: `Image.open` asks each in turn,
    and sorted by name JPEG came 22nd, which doubled the time of an open). Made once for
    each set of registered formats."""
    Image.init()
    global _formats
    if _formats is None or _formats[0] != len(Image.ID):
        _formats = (len(Image.ID), tuple(f for f in Image.ID if f not in NEVER_OPENED))
    return _formats[1]


_formats: tuple[int, tuple[str, ...]] | None = None


def decodable_ext(ext: str) -> bool:
    """Does some registered decoder claim files with this extension?"""
    Image.init()
    return Image.registered_extensions().get(f".{ext}") not in (None, *NEVER_OPENED)


def decoder_versions() -> str:
    return f"pillow {PIL.__version__}; pillow-heif {_heif_version or 'absent'}"


register()
