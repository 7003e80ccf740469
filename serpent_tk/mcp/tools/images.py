"""Thumbnails (and contact sheets) as MCP image content, downscaled until they fit the output
budget.

Thread-safe (pure functions; call from a worker thread, decoding is CPU work). Only reads the
thumbnail file the library worker wrote; never writes anything.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

SENT_AS_IS = {"image/png", "image/jpeg", "image/webp", "image/gif"}
MIN_SIDE = 48
SHRINK = 0.8


@dataclass(frozen=True)
class FittedImage:
    data_b64: str
    mime: str
    width: int
    height: int


def b64_size(raw_bytes: int) -> int:
    return 4 * ((raw_bytes + 2) // 3)


def fit_image(path: Path, max_b64_bytes: int) -> FittedImage:
    """The image at `path`, as base64 no longer than `max_b64_bytes` (re-encoded if needed)."""
    raw = path.read_bytes()
    with Image.open(io.BytesIO(raw)) as image:
        mime = Image.MIME.get(image.format or "", "")
        width, height = image.size
        if mime in SENT_AS_IS and b64_size(len(raw)) <= max_b64_bytes:
            return FittedImage(base64.b64encode(raw).decode("ascii"), mime, width, height)
        image.load()
        has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
        frame = image.convert("RGBA" if has_alpha else "RGB")
    return fit_frame(frame, has_alpha, max_b64_bytes)


def fit_frame(frame: Image.Image, has_alpha: bool, max_b64_bytes: int) -> FittedImage:
    """`frame` encoded (WebP with alpha, else JPEG), lowering quality, then size, until its
    base64 fits `max_b64_bytes`; ValueError when not even a tiny one fits."""
    width, height = frame.size
    scale = 1.0
    quality = 85
    while True:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        candidate = frame if size == frame.size else frame.resize(size, Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        if has_alpha:
            candidate.save(buffer, "WEBP", quality=quality, method=4)
            out_mime = "image/webp"
        else:
            candidate.save(buffer, "JPEG", quality=quality, optimize=True)
            out_mime = "image/jpeg"
        data = buffer.getvalue()
        if b64_size(len(data)) <= max_b64_bytes or max(size) <= MIN_SIDE:
            if b64_size(len(data)) > max_b64_bytes:
                raise ValueError("the thumbnail does not fit the output budget")
            return FittedImage(base64.b64encode(data).decode("ascii"), out_mime, *size)
        if quality > 70:
            quality -= 10
        else:
            scale *= SHRINK
