"""The viewer's zoom and pan model on its own: fit, 100 %, zoom at the cursor, pan limits and
what to decode for the screen."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serpent_tk.ui.viewer.zoom import MAX_SCALE, ZoomPan, reduction_for


def test_fit_shrinks_a_big_picture_and_never_enlarges_a_small_one() -> None:
    big = ZoomPan(6000, 4000, 1200, 900)
    assert big.scale == pytest.approx(0.2)
    assert (big.x, big.y) == pytest.approx((0, 50))           # centred vertically
    small = ZoomPan(320, 240, 1200, 900)
    assert small.scale == 1.0
    assert (small.x, small.y) == pytest.approx((440, 330))


def test_zoom_keeps_the_point_under_the_cursor_where_it_is() -> None:
    view = ZoomPan(6000, 4000, 1200, 900)
    cursor = (300.0, 200.0)
    before = view.image_point(*cursor)
    view.zoom_by(4, cursor)
    assert view.scale == pytest.approx(0.8)
    assert view.image_point(*cursor) == pytest.approx(before)
    assert not view.fitted


def test_wheeling_back_snaps_to_fit_and_stops_at_the_limits() -> None:
    view = ZoomPan(6000, 4000, 1200, 900)
    for _ in range(3):
        view.zoom_by(1.25, (600, 450))
    for _ in range(3):
        view.zoom_by(1 / 1.25, (600, 450))
    assert view.fitted and view.scale == pytest.approx(0.2)
    for _ in range(100):
        view.zoom_by(2, (10, 10))
    assert view.scale == MAX_SCALE
    for _ in range(100):
        view.zoom_by(0.5)
    assert view.scale == pytest.approx(0.1)


def test_actual_size_and_double_click_toggle() -> None:
    view = ZoomPan(6000, 4000, 1200, 900)
    view.toggle_actual((600, 450))
    assert view.scale == 1.0 and view.percent == 100
    assert view.image_point(600, 450) == pytest.approx((3000, 2000), abs=1)
    view.toggle_actual((600, 450))
    assert view.fitted and view.scale == pytest.approx(0.2)


def test_panning_stops_at_the_edges() -> None:
    view = ZoomPan(2000, 1000, 1000, 800)
    view.actual_size()
    moved = view.pan(10_000, 0)
    assert view.x == 0 and moved[0] < 10_000
    view.pan(-10_000, 0)
    assert view.x == pytest.approx(1000 - 2000)
    # taller view than picture: stays centred vertically whatever the drag
    view.pan(0, 500)
    assert view.y == pytest.approx((800 - 1000) / 2) or view.y <= 0


def test_resizing_keeps_fit_or_the_middle_point() -> None:
    view = ZoomPan(6000, 4000, 1200, 900)
    view.set_view(600, 450)
    assert view.fitted and view.scale == pytest.approx(0.1)
    view.zoom_to(1.0, (300, 225))
    middle = view.image_point(300, 225)
    view.set_view(1000, 700)
    assert view.image_point(500, 350) == pytest.approx(middle, abs=1)


def test_region_is_what_the_screen_needs_plus_a_margin() -> None:
    view = ZoomPan(6000, 4000, 1200, 900)
    fitted = view.region()
    assert (fitted.left, fitted.top, fitted.right, fitted.bottom) == (0, 0, 6000, 4000)
    assert (fitted.out_width, fitted.out_height) == (1200, 800)   # screen pixels, not 24 MP
    view.actual_size((600, 450))
    zoomed = view.region(margin=0.5)
    assert zoomed.width == 2400 and zoomed.height == 1800
    assert (zoomed.out_width, zoomed.out_height) == (2400, 1800)
    assert view.covers(zoomed)
    view.pan(-700, 0)
    assert not view.covers(zoomed)                  # panned past the margin: decode again


def test_reduction_is_the_coarsest_that_still_has_enough_pixels() -> None:
    assert reduction_for(1.0) == 1
    assert reduction_for(0.6) == 1
    assert reduction_for(0.5) == 2
    assert reduction_for(0.2) == 4
    assert reduction_for(0.05) == 8


@given(st.integers(1, 20_000), st.integers(1, 20_000), st.integers(50, 4000),
       st.integers(50, 3000), st.floats(0.1, 40), st.floats(0, 4000), st.floats(0, 3000))
def test_zooming_anywhere_keeps_the_picture_on_screen(iw: int, ih: int, vw: int, vh: int,
                                                      factor: float, cx: float,
                                                      cy: float) -> None:
    view = ZoomPan(iw, ih, vw, vh)
    view.zoom_by(factor, (min(cx, vw), min(cy, vh)))
    left, top, right, bottom = view.visible()
    assert 0 <= left <= right <= iw and 0 <= top <= bottom <= ih
    assert right > left or iw * view.scale < 1
    region = view.region()
    assert view.covers(region)
    # at most two views of pixels (the view and its margins), give or take the image pixel
    # cut at each edge
    slack = 2 * view.scale + 2
    assert region.out_width <= vw * 2 + slack and region.out_height <= vh * 2 + slack
