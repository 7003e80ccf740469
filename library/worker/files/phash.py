"""A 64-bit perceptual hash (pHash, as Hydrus and imagehash compute it) with Pillow only.

Runs in the worker process (pure functions, any thread). The picture is flattened onto white,
turned grey, shrunk to 32x32, and put through a 2-D DCT; the 8x8 lowest frequencies are
compared with their median, one bit each. The same picture resized, re-encoded or slightly
retouched lands within a few bits (Hamming distance 0-4); unrelated pictures differ in about
half of them. Stored in SQLite as a signed 64-bit integer (`to_signed`).
"""

from __future__ import annotations

import math

from PIL import Image

SIZE = 32  # the picture is shrunk to SIZE x SIZE
LOW = 8  # and its LOW x LOW lowest frequencies give the 64 bits
BITS = LOW * LOW

# DCT-II basis, only for the LOW frequencies we keep: _COS[u][x] = cos((2x + 1) u pi / 2N).
_COS = [[math.cos((2 * x + 1) * u * math.pi / (2 * SIZE)) for x in range(SIZE)]
        for u in range(LOW)]


def flattened(image: Image.Image) -> Image.Image:
    """An RGB copy of `image` with any transparency laid onto white."""
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P"
                                               and "transparency" in image.info):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        canvas.alpha_composite(rgba)
        return canvas.convert("RGB")
    return image.convert("RGB")


def phash(image: Image.Image) -> int:
    """The 64-bit perceptual hash of `image`, as an unsigned int."""
    grey = flattened(image).convert("L").resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    pixels = list(grey.getdata())
    rows = [pixels[y * SIZE:(y + 1) * SIZE] for y in range(SIZE)]
    # 1-D DCT along every row, keeping the LOW lowest frequencies ...
    row_freq = [[sum(c * p for c, p in zip(_COS[u], row, strict=True)) for u in range(LOW)]
                for row in rows]
    # ... then along the columns of that.
    low = [sum(_COS[v][y] * row_freq[y][u] for y in range(SIZE))
           for v in range(LOW) for u in range(LOW)]
    median = sorted(low)[BITS // 2 - 1: BITS // 2 + 1]
    threshold = (median[0] + median[1]) / 2
    value = 0
    for coefficient in low:
        value = (value << 1) | (coefficient > threshold)
    return value


def distance(a: int, b: int) -> int:
    """Hamming distance of two hashes (signed or unsigned)."""
    return ((a ^ b) & 0xFFFF_FFFF_FFFF_FFFF).bit_count()


def to_signed(value: int) -> int:
    """An unsigned 64-bit hash as the signed integer SQLite stores."""
    return value - (1 << 64) if value >= 1 << 63 else value


def to_unsigned(value: int) -> int:
    return value & 0xFFFF_FFFF_FFFF_FFFF


def to_hex(value: int) -> str:
    return f"{to_unsigned(value):016x}"
