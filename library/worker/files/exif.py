"""What a photo's EXIF block says: orientation, date taken, camera, lens.

Runs in the worker process (pure functions over an open Pillow image, any thread). Dates
stay the camera's local wall-clock time (`2024-07-01T18:30:05`): EXIF rarely says which
time zone, and "taken in the evening" means the photographer's evening. A broken or absent
EXIF block simply gives nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

ORIENTATION = 0x0112
MAKE = 0x010F
MODEL = 0x0110
EXIF_IFD = 0x8769
DATE_TAKEN = 0x9003  # DateTimeOriginal
DATE_DIGITIZED = 0x9004
LENS_MAKE = 0xA433
LENS_MODEL = 0xA434
SWAPS_SIDES = frozenset({5, 6, 7, 8})  # rotated a quarter turn: displayed w x h = stored h x w
MAX_TEXT = 200
_DATE = re.compile(r"^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})")


@dataclass(frozen=True)
class PhotoFacts:
    orientation: int = 1
    taken_at: str | None = None
    camera: str | None = None
    lens: str | None = None


NOTHING = PhotoFacts()


def read(image: Image.Image) -> PhotoFacts:
    try:
        exif = image.getexif()
        if not exif:
            return NOTHING
        details = exif.get_ifd(EXIF_IFD)
        orientation = exif.get(ORIENTATION, 1)
        return PhotoFacts(
            orientation=orientation if isinstance(orientation, int) and 1 <= orientation <= 8
            else 1,
            taken_at=_date(details.get(DATE_TAKEN)) or _date(details.get(DATE_DIGITIZED)),
            camera=_camera(exif.get(MAKE), exif.get(MODEL)),
            lens=_text(details.get(LENS_MODEL)) or _text(details.get(LENS_MAKE)))
    except Exception:  # a malformed EXIF block: the picture itself is still fine
        return NOTHING


def displayed_size(width: int, height: int, orientation: int) -> tuple[int, int]:
    return (height, width) if orientation in SWAPS_SIDES else (width, height)


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    cleaned = " ".join(value.replace("\x00", " ").split())
    return cleaned[:MAX_TEXT] or None


def _camera(make: object, model: object) -> str | None:
    """'Canon' + 'Canon EOS R5' -> 'Canon EOS R5'; 'SONY' + 'ILCE-7M3' -> 'SONY ILCE-7M3'."""
    maker, name = _text(make), _text(model)
    if maker and name and name.casefold().startswith(maker.casefold().split()[0]):
        return name
    return " ".join(part for part in (maker, name) if part) or None


def _date(value: object) -> str | None:
    text = _text(value)
    found = _DATE.match(text or "")
    if not found:
        return None
    year, month, day, hour, minute, second = (int(g) for g in found.groups())
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60
            and second < 61 and year >= 1800):
        return None  # "0000:00:00 00:00:00" and other placeholders
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{min(second, 59):02d}"
