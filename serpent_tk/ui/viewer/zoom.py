"""Where the picture sits in the viewer: fit, 100 %, zoom at the cursor, pan, and what part of
the image must be decoded at which size for the screen.

Pure logic (no Tk, no Pillow): thread-safe as long as one thread owns an instance. Image
coordinates are in the picture's own pixels (after EXIF orientation); view coordinates are
pixels of the viewer's canvas. `scale` is view pixels per image pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_SCALE = 32.0        # 3200 %: single pixels are squares a finger wide
WHEEL_FACTOR = 1.25     # one wheel notch
STEP_FACTOR = 1.5       # one press of + or -
RENDER_MARGIN = 0.25    # decode a quarter view more on every side: a small pan shows no edge


@dataclass(frozen=True)
class Region:
    """A rectangle of the image to decode and the size to draw it at."""

    left: int
    top: int
    right: int
    bottom: int
    out_width: int      # view pixels
    out_height: int
    view_x: float       # where its top-left corner goes on the canvas
    view_y: float

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top


class ZoomPan:
    """Fit (never enlarged past 100 %), 100 %, zoom in/out around a point, drag to pan."""

    def __init__(self, image_width: int = 1, image_height: int = 1, view_width: int = 1,
                 view_height: int = 1) -> None:
        self.image_width = max(1, image_width)
        self.image_height = max(1, image_height)
        self.view_width = max(1, view_width)
        self.view_height = max(1, view_height)
        self.fitted = True           # keep fitting when the view or the picture changes
        self.scale = self.fit_scale()
        self.x = 0.0                 # view position of the image's top-left corner
        self.y = 0.0
        self._place()

    # sizes -------------------------------------------------------------------------------
    def fit_scale(self) -> float:
        return min(1.0, self.view_width / self.image_width,
                   self.view_height / self.image_height)

    def min_scale(self) -> float:
        return min(self.fit_scale(), 0.1)

    def set_image(self, width: int, height: int) -> None:
        """A new picture (or its true size became known): fitted again."""
        self.image_width, self.image_height = max(1, width), max(1, height)
        self.fit()

    def set_view(self, width: int, height: int) -> None:
        """The viewer was resized: a fitted picture stays fitted, a zoomed one keeps the
        point at the middle of the view where it was."""
        width, height = max(1, width), max(1, height)
        if (width, height) == (self.view_width, self.view_height):
            return
        middle = self.image_point(self.view_width / 2, self.view_height / 2)
        self.view_width, self.view_height = width, height
        if self.fitted:
            self.scale = self.fit_scale()
            self._place()
            return
        self.x = width / 2 - middle[0] * self.scale
        self.y = height / 2 - middle[1] * self.scale
        self._clamp()

    @property
    def percent(self) -> int:
        return round(self.scale * 100)

    # conversions -------------------------------------------------------------------------
    def image_point(self, view_x: float, view_y: float) -> tuple[float, float]:
        return (view_x - self.x) / self.scale, (view_y - self.y) / self.scale

    def view_point(self, image_x: float, image_y: float) -> tuple[float, float]:
        return self.x + image_x * self.scale, self.y + image_y * self.scale

    @property
    def shown_width(self) -> float:
        return self.image_width * self.scale

    @property
    def shown_height(self) -> float:
        return self.image_height * self.scale

    # changes -----------------------------------------------------------------------------
    def fit(self) -> None:
        self.fitted = True
        self.scale = self.fit_scale()
        self._place()

    def actual_size(self, at: tuple[float, float] | None = None) -> None:
        """100 %: one image pixel per screen pixel, the point `at` (default: the middle of
        the view) staying where it is."""
        self.zoom_to(1.0, at)

    def zoom_to(self, scale: float, at: tuple[float, float] | None = None) -> None:
        vx, vy = at if at is not None else (self.view_width / 2, self.view_height / 2)
        ix, iy = self.image_point(vx, vy)
        self.scale = min(MAX_SCALE, max(self.min_scale(), scale))
        self.fitted = math.isclose(self.scale, self.fit_scale())
        self.x = vx - ix * self.scale
        self.y = vy - iy * self.scale
        self._clamp()

    def zoom_by(self, factor: float, at: tuple[float, float] | None = None) -> None:
        """Zoom by `factor` around the view point `at` (the cursor): the image point under it
        stays under it. Passing through "fit" snaps to it, so wheeling back lands there."""
        target = self.scale * factor
        fit = self.fit_scale()
        if (self.scale < fit < target) or (target < fit < self.scale):
            target = fit
        self.zoom_to(target, at)

    def toggle_actual(self, at: tuple[float, float] | None = None) -> None:
        """Double-click: 100 % at the point, or back to fit."""
        if self.fitted and not math.isclose(self.scale, 1.0):
            self.actual_size(at)
        else:
            self.fit()

    def pan(self, dx: float, dy: float) -> tuple[float, float]:
        """Move the picture by (dx, dy) view pixels, as far as it goes; returns how far it
        actually moved."""
        old = (self.x, self.y)
        self.x += dx
        self.y += dy
        self._clamp()
        return self.x - old[0], self.y - old[1]

    def _place(self) -> None:
        self.x = (self.view_width - self.shown_width) / 2
        self.y = (self.view_height - self.shown_height) / 2

    def _clamp(self) -> None:
        """Centred along an axis where the picture is smaller than the view; otherwise no
        empty space between the picture's edge and the view's."""
        if self.shown_width <= self.view_width:
            self.x = (self.view_width - self.shown_width) / 2
        else:
            self.x = min(0.0, max(self.view_width - self.shown_width, self.x))
        if self.shown_height <= self.view_height:
            self.y = (self.view_height - self.shown_height) / 2
        else:
            self.y = min(0.0, max(self.view_height - self.shown_height, self.y))

    # what to decode ----------------------------------------------------------------------
    def visible(self) -> tuple[int, int, int, int]:
        """The part of the image on screen (left, top, right, bottom) in image pixels."""
        left, top = self.image_point(0, 0)
        right, bottom = self.image_point(self.view_width, self.view_height)
        return (max(0, math.floor(left)), max(0, math.floor(top)),
                min(self.image_width, math.ceil(right)),
                min(self.image_height, math.ceil(bottom)))

    def region(self, margin: float = RENDER_MARGIN) -> Region:
        """What to decode for the screen now: the visible part plus `margin` of a view on
        every side (so a little panning needs nothing new), clipped to the image, and the
        view size to draw it at (never more pixels than the screen shows, plus the margin)."""
        extra_x = self.view_width * margin / self.scale
        extra_y = self.view_height * margin / self.scale
        left, top = self.image_point(0, 0)
        right, bottom = self.image_point(self.view_width, self.view_height)
        left = max(0, math.floor(left - extra_x))
        top = max(0, math.floor(top - extra_y))
        right = min(self.image_width, math.ceil(right + extra_x))
        bottom = min(self.image_height, math.ceil(bottom + extra_y))
        right, bottom = max(right, left + 1), max(bottom, top + 1)
        view_x, view_y = self.view_point(left, top)
        out_w = max(1, round((right - left) * self.scale))
        out_h = max(1, round((bottom - top) * self.scale))
        return Region(left, top, right, bottom, out_w, out_h, view_x, view_y)

    def covers(self, region: Region) -> bool:
        """Does `region` (drawn at the current scale) still cover everything on screen?"""
        left, top, right, bottom = self.visible()
        return (region.left <= left and region.top <= top and region.right >= right
                and region.bottom >= bottom)


def reduction_for(scale: float) -> int:
    """The coarsest power-of-two reduction (1, 2, 4, 8) whose pixels are still at least as
    many as the screen shows at `scale`: JPEG's `draft()` decodes at 1/2, 1/4 or 1/8 for
    nearly free, other formats `reduce()` after decoding."""
    reduction = 1
    while reduction < 8 and scale * reduction * 2 <= 1.0:
        reduction *= 2
    return reduction
