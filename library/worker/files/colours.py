"""Colour arithmetic: sRGB to CIELAB (D65), CIE76 delta E, and the hue sort key.

Runs in the worker process (pure functions, any thread). CIELAB is the perceptual space
colour search measures in: a delta E (the straight distance between two Lab colours, CIE76)
of about 2 is a just-noticeable difference, 10 a clearly different shade, 30 and more
another colour. `lab_of_pixels` converts whole pictures with numpy (analysis); `lab_of_hex`
one colour in plain Python (a search's colour).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported by the one function that needs it: every worker
    import numpy as np  # imports this module (rules name colours), few convert pictures,
    from numpy.typing import NDArray  # and importing numpy costs ~60 ms of a worker's start

_HEX = re.compile(r"^#?([0-9a-fA-F]{6})$")
# sRGB (D65) -> XYZ, and the D65 white point
_M = ((0.4124564, 0.3575761, 0.1804375),
      (0.2126729, 0.7151522, 0.0721750),
      (0.0193339, 0.1191920, 0.9503041))
_WHITE = (0.95047, 1.0, 1.08883)
_EPSILON = (6 / 29) ** 3
GREY_CHROMA = 8.0  # below this chroma a colour has no hue worth sorting by
GREYS_AFTER = 400.0  # hue keys of greys: GREYS_AFTER + lightness (after every hue)


def normal_hex(text: str) -> str:
    """'#FF8800' / 'ff8800' -> '#ff8800'; ValueError for anything else."""
    found = _HEX.match(text.strip())
    if not found:
        raise ValueError(f"{text!r} is not a colour like #ff8800")
    return "#" + found.group(1).lower()


def rgb_of_hex(text: str) -> tuple[int, int, int]:
    value = normal_hex(text)
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def _linear(channel: float) -> float:
    c = channel / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _f(t: float) -> float:
    return math.copysign(abs(t) ** (1 / 3), t) if t > _EPSILON else t / (3 * (6 / 29) ** 2) \
        + 4 / 29


def lab_of_rgb(red: int, green: int, blue: int) -> tuple[float, float, float]:
    rgb = (_linear(red), _linear(green), _linear(blue))
    x, y, z = (sum(m * c for m, c in zip(row, rgb, strict=True)) / w
               for row, w in zip(_M, _WHITE, strict=True))
    fx, fy, fz = _f(x), _f(y), _f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def lab_of_hex(text: str) -> tuple[float, float, float]:
    return lab_of_rgb(*rgb_of_hex(text))


def lab_of_pixels(rgb: NDArray[np.uint8]) -> NDArray[np.float64]:
    """An (..., 3) array of sRGB bytes as (..., 3) CIELAB."""
    import numpy as np

    c = rgb.astype(np.float64) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = c @ np.array(_M).T / np.array(_WHITE)
    f = np.where(xyz > _EPSILON, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e(one: tuple[float, float, float], other: tuple[float, float, float]) -> float:
    """CIE76: the distance of two CIELAB colours."""
    return math.dist(one, other)


def hue_key(lab: tuple[float, float, float]) -> float:
    """Sort key of a dominant colour: its hue angle (0-360: red, yellow, green, blue,
    violet) when it has colour; GREYS_AFTER + lightness for greys, black to white."""
    lightness, a, b = lab
    if math.hypot(a, b) < GREY_CHROMA:
        return GREYS_AFTER + lightness
    return math.degrees(math.atan2(b, a)) % 360.0
