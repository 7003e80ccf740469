"""The dominant colours of a picture (Eagle-style palette: colour + share), with Pillow.

Runs in the worker process (pure functions, any thread). The picture is shrunk, flattened
onto white and quantized to a few colours (median cut); colours covering less than
`MIN_SHARE` of the picture are dropped. Each colour also comes in CIELAB (what colour search
compares in) with its hue sort key (`colours.hue_key`). Result, largest share first:
`[{"color": "#rrggbb", "ratio": 0.42, "lab": (l, a, b), "hue": 41.0}, ...]`.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from library.worker.files import colours

COLORS = 6
SAMPLE = 96  # the picture is shrunk to at most SAMPLE x SAMPLE first
MIN_SHARE = 0.02


def flattened(image: Image.Image) -> Image.Image:
    """An RGB copy of `image` with any transparency laid onto white."""
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P"
                                               and "transparency" in image.info):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        canvas.alpha_composite(rgba)
        return canvas.convert("RGB")
    return image.convert("RGB")


def palette(image: Image.Image, colors: int = COLORS) -> list[dict[str, Any]]:
    small = flattened(image)
    small.thumbnail((SAMPLE, SAMPLE), Image.Resampling.BILINEAR)
    quantized = small.quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    table = quantized.getpalette() or []
    counts = quantized.getcolors(colors) or []
    total = sum(count for count, _index in counts) or 1
    shares: dict[tuple[int, int, int], float] = {}
    for count, index in counts:
        slot = int(index)  # type: ignore[arg-type]  # a palette index for "P" images
        red, green, blue = table[slot * 3: slot * 3 + 3]
        shares[(red, green, blue)] = shares.get((red, green, blue), 0.0) + count / total
    found = []
    for rgb, share in sorted(shares.items(), key=lambda item: -item[1]):
        if share < MIN_SHARE:
            continue
        lab = colours.lab_of_rgb(*rgb)
        found.append({"color": "#{:02x}{:02x}{:02x}".format(*rgb), "ratio": round(share, 4),
                      "lab": tuple(round(v, 3) for v in lab), "hue": round(colours.hue_key(lab),
                                                                          3)})
    return found
