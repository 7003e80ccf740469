"""Which pictures "have" a colour, in SQL over their palettes (`asset_colors`, in CIELAB):
shared by `asset.search`'s colour filter and sort and the smart rules' `color` field.

Runs in the worker process (pure; the SQL runs on whichever connection asks). How far a
palette colour is from the asked one is weighted as people name colours: hue counts most
(blue is not teal, red is not orange), saturation less the more saturated both are, and
lightness least (navy and sky blue are both blue, dark red is red):

    d² = (ΔL / 3)² + (ΔC / (1 + 0.045 · min(C1, C2)))² + (ΔH / 0.7)²

(CIELAB's ΔL, chroma difference ΔC and hue difference ΔH; the CIE94 form with its chroma
weight taken from the less saturated colour and the hue weighted up). A colour with less than
a quarter of a saturated asked colour's chroma is grey to it, never a match; asked for a grey
(black, white), d² = ΔL² + (2 · ΔC)²: lightness matters, colour in it counts double. A picture has
the colour when its close palette colours together cover at least `minRatio` of it: a
picture in three shades of blue is mostly blue though no single shade covers most of it.
"""

from __future__ import annotations

import math
from typing import Any

from library.worker.files import colours

DEFAULT_TOLERANCE = 44.0    # "blue" finds navy to sky blue, not teal or cyan (d 63)
DEFAULT_MIN_RATIO = 0.30    # "mostly": the close colours cover at least 30 % of the picture
LIGHTNESS_WEIGHT = 3.0      # a lightness difference counts a third
CHROMA_WEIGHT = 0.045       # ΔC / (1 + 0.045 · the lower chroma)
HUE_WEIGHT = 0.7            # ΔH / 0.7: hue counts more than in CIELAB's distance
GREY_SHARE = 0.25           # of a saturated colour's chroma: below it, a grey to it
SATURATED = 15.0            # chroma from which an asked colour has a hue to keep
GREY_CHROMA_WEIGHT = 2.0    # asked for a grey (black, white): any colour in it counts double


def _chroma_floor(chroma: float) -> float:
    """Below this chroma a colour is grey to an asked colour of `chroma` (a saturated
    colour's quarter, and never less than what analysis keeps no hue for)."""
    return max(colours.GREY_CHROMA, GREY_SHARE * chroma) if chroma >= SATURATED else 0.0


def distance_sql(colour: str) -> tuple[str, list[Any]]:
    """The squared difference between palette colour `c` and `colour`, as an SQL expression
    and its parameters (in order); a palette colour that is grey to a saturated `colour` is
    infinitely far (1e9)."""
    lightness, a, b = colours.lab_of_hex(colour)
    chroma = math.hypot(a, b)
    own = "c.ch"                                # the palette colour's chroma (`PALETTE`)
    if chroma < SATURATED:                      # a grey, black or white: no hue to keep
        return (f"((c.l - ?) * (c.l - ?) + {GREY_CHROMA_WEIGHT ** 2:.1f} * "
                f"(? - {own}) * (? - {own}))", [lightness, lightness, chroma, chroma])
    gap = f"(? - {own})"
    sql = (f"(CASE WHEN {own} < ? THEN 1e9 ELSE "
           f"(c.l - ?) * (c.l - ?) / {LIGHTNESS_WEIGHT ** 2:.1f} + "
           f"{gap} * {gap} / ((1 + {CHROMA_WEIGHT} * min(?, {own})) * "
           f"(1 + {CHROMA_WEIGHT} * min(?, {own}))) + "
           f"max(0.0, (c.a - ?) * (c.a - ?) + (c.b - ?) * (c.b - ?) - {gap} * {gap}) / "
           f"{HUE_WEIGHT ** 2:.2f} END)")
    return sql, [_chroma_floor(chroma), lightness, lightness, chroma, chroma, chroma, chroma,
                 a, a, b, b, chroma, chroma]


def prefilter_sql(colour: str, tolerance: float) -> tuple[str, list[Any]]:
    """A cheap test first, which no colour within `tolerance` fails: for a saturated colour
    the range of stored hue angles (its hue difference 2·√(C1·C2)·sin(Δh/2), with C2 at
    least a quarter of C1, would be too big outside it); for a grey, the lightness range
    (the index's) and a chroma below the tolerance's."""
    lightness, a, b = colours.lab_of_hex(colour)
    chroma = math.hypot(a, b)
    if chroma < SATURATED:
        reach = tolerance / GREY_CHROMA_WEIGHT + chroma
        return ("c.l BETWEEN ? AND ? AND c.a * c.a + c.b * c.b <= ?",
                [lightness - tolerance, lightness + tolerance, reach * reach])
    reach = HUE_WEIGHT * tolerance / chroma
    if reach >= 1.0:
        return "1", []
    hue = colours.hue_key((lightness, a, b))
    span = math.degrees(2 * math.asin(reach))
    low, high = hue - span, hue + span
    ranges = [(max(0.0, low), min(360.0, high))]
    if low < 0:
        ranges.append((360.0 + low, 360.0))
    if high > 360:
        ranges.append((0.0, high - 360.0))
    sql = "(" + " OR ".join("c.hue BETWEEN ? AND ?" for _range in ranges) + ")"
    return sql, [bound for pair in ranges for bound in pair]


# the palette rows with their chroma computed once (the distance uses it several times)
PALETTE = ("(SELECT asset_id, ratio, l, a, b, hue, sqrt(a * a + b * b) AS ch "
           "FROM asset_colors c WHERE {first})")


def having_sql(value: dict[str, Any]) -> tuple[str, list[Any]]:
    """Assets whose palette colours within `tolerance` of `color` cover `minRatio`."""
    distance, params = distance_sql(value["color"])
    tolerance = float(value["tolerance"])
    first, first_params = prefilter_sql(value["color"], tolerance)
    palette = PALETTE.format(first=first)
    sql = (f"a.id IN (SELECT c.asset_id FROM {palette} c WHERE {distance} <= ? "
           "GROUP BY c.asset_id HAVING sum(c.ratio) >= ?)")
    return sql, [*first_params, *params, tolerance * tolerance, value["minRatio"]]


def closeness_sql(colour: str) -> tuple[str, list[Any]]:
    """Sort key: the difference of the asset's closest palette colour (no palette: last)."""
    distance, params = distance_sql(colour)
    palette = PALETTE.format(first="c.asset_id = a.id AND c.ratio >= 0.01")
    return f"coalesce((SELECT min({distance}) FROM {palette} c), 1e9)", params


def difference(asked: str, other: str) -> float:
    """The difference of `other` from `asked`, as the SQL computes it (tests, docs)."""
    l1, a1, b1 = colours.lab_of_hex(asked)
    l2, a2, b2 = colours.lab_of_hex(other)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    if c1 < SATURATED:
        return math.hypot(l1 - l2, GREY_CHROMA_WEIGHT * (c1 - c2))
    if c2 < _chroma_floor(c1):
        return math.sqrt(1e9)
    hue_gap = max(0.0, (a1 - a2) ** 2 + (b1 - b2) ** 2 - (c1 - c2) ** 2)
    return math.sqrt(((l1 - l2) / LIGHTNESS_WEIGHT) ** 2
                     + ((c1 - c2) / (1 + CHROMA_WEIGHT * min(c1, c2))) ** 2
                     + hue_gap / HUE_WEIGHT ** 2)
