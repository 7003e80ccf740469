"""The dominant colours of a picture (Eagle-style palette: colour + share), with Pillow.

Runs in the worker process (pure functions, any thread). The picture is shrunk, flattened
onto white and quantized to a few colours (median cut); colours covering less than
`MIN_SHARE` of the picture are dropped. Result: `[{"color": "#rrggbb", "ratio": 0.42}, ...]`,
largest share first.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from library.worker.files.phash import flattened

COLORS = 6
SAMPLE = 96  # the picture is shrunk to at most SAMPLE x SAMPLE first
MIN_SHARE = 0.02


def palette(image: Image.Image, colors: int = COLORS) -> list[dict[str, Any]]:
    small = flattened(image)
    small.thumbnail((SAMPLE, SAMPLE), Image.Resampling.BILINEAR)
    quantized = small.quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    table = quantized.getpalette() or []
    counts = quantized.getcolors(colors) or []
    total = sum(count for count, _index in counts) or 1
    shares: dict[str, float] = {}
    for count, index in counts:
        slot = int(index)  # type: ignore[arg-type]  # a palette index for "P" images
        red, green, blue = table[slot * 3: slot * 3 + 3]
        key = f"#{red:02x}{green:02x}{blue:02x}"
        shares[key] = shares.get(key, 0.0) + count / total
    return [{"color": color, "ratio": round(share, 4)}
            for color, share in sorted(shares.items(), key=lambda item: -item[1])
            if share >= MIN_SHARE]
