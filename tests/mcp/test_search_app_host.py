"""The search grid (MCP App) as a guest of a real MCP Apps host.

The official `@modelcontextprotocol/ext-apps` host bridge (`AppBridge` + `PostMessageTransport`)
in Debian's headless Chromium, with a double-iframe sandbox on a second origin, an MCP client
connected to a real `serpent-tk serve`, and a library of real imported pictures
(tests/mcp/app_host.py runs it all once per module). Screenshots land in this module's tmp
folder; with SERPENT_SHOTS_DIR=DIR they are also copied there to look at.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from serpent_tk.mcp.apps import search_app
from tests.mcp.app_host import BULK_COUNT, GRID_PICTURES, run_host

pytestmark = pytest.mark.timeout(1200)  # the module's host run has its own deadline

MAX_THUMBNAILS_IN_FLIGHT = 4  # the page's MAX_THUMBNAILS_IN_FLIGHT


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("mcp-app-host")
    shots = work / "screenshots"
    shots.mkdir()
    result = run_host(work, shots)
    copy_to = os.environ.get("SERPENT_SHOTS_DIR")
    if copy_to:
        Path(copy_to).mkdir(parents=True, exist_ok=True)
        for png in shots.glob("*.png"):
            shutil.copy2(png, Path(copy_to) / png.name)
    return result


def facts(report: dict[str, Any], scenario: str) -> dict[str, Any]:
    assert scenario in report["scenarios"], report["failure"] or f"{scenario} did not run"
    found: dict[str, Any] = report["scenarios"][scenario]
    assert "error" not in found, found["error"]
    return found


def fits(seen: dict[str, Any], sizes: list[dict[str, Any]], iframe_height: float) -> None:
    """The host knows the view's real height and the view shows all of it."""
    assert sizes, "the view never reported its size"
    assert sizes[-1]["height"] == seen["contentHeight"]
    assert round(iframe_height) == seen["contentHeight"] == seen["viewportHeight"]


def luminance(css_colour: str) -> float:
    red, green, blue = (int(v) for v in re.findall(r"\d+", css_colour)[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def test_the_host_finds_the_app_and_its_no_network_policy(report: dict[str, Any]) -> None:
    connected = report["connected"]
    assert connected["uri"] == search_app.SEARCH_APP_URI
    assert connected["mimeType"] == search_app.APP_MIME_TYPE
    assert connected["csp"] == {"connectDomains": [], "resourceDomains": []}


def test_the_grid_draws_every_result_with_its_thumbnail(report: dict[str, Any]) -> None:
    grid = facts(report, "grid")
    seen = grid["wide"]["seen"]
    assert grid["total"] == len(GRID_PICTURES)
    assert seen["state"] == "results" and seen["figures"] == len(GRID_PICTURES)
    assert seen["imagesLoaded"] == len(GRID_PICTURES)
    assert seen["names"] == grid["resultNames"]  # in the result's order
    assert sorted(seen["names"]) == sorted(name for name, *_ in GRID_PICTURES)
    assert seen["count"] == f"{len(GRID_PICTURES)} of {len(GRID_PICTURES)} assets"
    fits(seen, grid["wide"]["sizes"], grid["wide"]["iframeHeight"])
    assert grid["thumbnails"]["finished"] == len(GRID_PICTURES)
    assert sorted(grid["thumbnails"]["started"]) == sorted(seen["ids"])  # each one once
    shots = [Path(p) for p in grid["screenshots"]]
    assert shots and all(p.stat().st_size > 10_000 for p in shots)


def test_host_requests_are_answered(report: dict[str, Any]) -> None:
    grid = facts(report, "grid")
    assert grid["ping"]["answered"] and grid["ping"]["result"] == {}
    assert grid["teardown"]["answered"] and grid["teardown"]["result"] == {}
    unknown = grid["unknown"]
    assert not unknown["answered"] and unknown["code"] == -32601  # JSON-RPC method not found
    assert "ui/no-such-method" in unknown["message"]


def test_the_size_is_reported_again_when_the_host_narrows_the_view(
        report: dict[str, Any]) -> None:
    grid = facts(report, "grid")
    wide, narrow = grid["wide"], grid["narrow"]
    assert narrow["iframeWidth"] == 420 and narrow["seen"]["viewportWidth"] == 420
    assert narrow["sizes"][-1]["height"] > wide["sizes"][-1]["height"]  # more rows now
    fits(narrow["seen"], narrow["sizes"], narrow["iframeHeight"])
    assert narrow["seen"]["imagesLoaded"] == len(GRID_PICTURES)


def test_an_error_result_shows_its_code_and_message(report: dict[str, Any]) -> None:
    error = facts(report, "error")
    envelope = error["envelope"]
    assert error["isError"] and envelope["status"] == "error"
    seen = error["seen"]
    assert seen["state"] == "error" and seen["problemShown"] and seen["problemRole"] == "alert"
    assert seen["problemCode"] == envelope["error"]["code"] == "LIBRARY_NOT_FOUND"
    assert seen["problemMessage"] == envelope["error"]["message"]
    assert seen["figures"] == 0 and not seen["statusShown"]
    fits(seen, error["sizes"], error["iframeHeight"])


def test_a_cancelled_call_says_so(report: dict[str, Any]) -> None:
    cancelled = facts(report, "cancelled")
    assert cancelled["outcome"] == "cancelled"
    seen = cancelled["seen"]
    assert seen["state"] == "cancelled" and seen["statusShown"]
    assert seen["statusTitle"] == "Search cancelled"
    assert seen["statusDetail"] == cancelled["reason"]
    assert not seen["problemShown"] and seen["figures"] == 0
    fits(seen, cancelled["sizes"], cancelled["iframeHeight"])


def test_an_empty_result_says_no_assets_match(report: dict[str, Any]) -> None:
    empty = facts(report, "empty")
    seen = empty["seen"]
    assert seen["state"] == "empty" and seen["statusTitle"] == "No assets match"
    assert empty["text"] in seen["statusDetail"]  # what was searched for, from tool-input
    assert seen["figures"] == 0 and not seen["problemShown"]
    fits(seen, empty["sizes"], empty["iframeHeight"])


def test_tool_input_shows_what_is_being_searched(report: dict[str, Any]) -> None:
    seen = facts(report, "searching")["seen"]
    assert seen["state"] == "searching" and seen["statusTitle"] == "Searching…"
    assert "“sky”" in seen["statusDetail"] and "clouds" in seen["statusDetail"]


def test_the_host_theme_and_style_variables_are_followed(report: dict[str, Any]) -> None:
    dark = facts(report, "dark")
    assert dark["dark"]["theme"] == "dark"
    assert luminance(dark["dark"]["background"]) < 0.2 < 0.8 < luminance(dark["dark"]["color"])
    assert dark["dark"]["imagesLoaded"] == len(GRID_PICTURES)
    assert dark["light"]["theme"] == "light"  # host-context-changed switches it back
    assert luminance(dark["light"]["background"]) > 0.9 > 0.3 > luminance(dark["light"]["color"])
    assert dark["styled"]["background"] == "rgb(10, 40, 70)"  # the host's own variable
    assert dark["screenshots"]


def test_a_host_max_height_keeps_the_view_within_it(report: dict[str, Any]) -> None:
    tall = facts(report, "maxHeight")
    assert tall["sizes"][-1]["height"] <= tall["maxHeight"]
    assert tall["iframeHeight"] <= tall["maxHeight"]
    assert tall["seen"]["scrollerScrollable"]  # the rest scrolls inside the view
    assert tall["seen"]["figures"] == len(GRID_PICTURES)


def test_a_200_item_result_loads_a_few_thumbnails_at_a_time_visible_first(
        report: dict[str, Any]) -> None:
    flood = facts(report, "flood")
    assert flood["items"] == BULK_COUNT
    held = flood["whileHeld"]
    # while the host holds the calls, the view waits for them instead of sending more
    assert 1 < len(held["started"]) <= MAX_THUMBNAILS_IN_FLIGHT
    assert set(held["started"]) <= set(flood["visibleAtTop"])
    # scrolled to the bottom, the cells now on screen come next, not the next ones in order
    assert set(flood["afterScroll"]) <= set(flood["visibleAtBottom"])
    done = flood["thumbnails"]
    assert done["maxInFlight"] <= MAX_THUMBNAILS_IN_FLIGHT
    assert done["finished"] == BULK_COUNT and done["failed"] == 0
    assert len(done["started"]) == len(set(done["started"])) == BULK_COUNT
    assert flood["seen"]["imagesLoaded"] == BULK_COUNT


def test_teardown_stops_the_thumbnails(report: dict[str, Any]) -> None:
    stops = facts(report, "teardownStops")
    before, after = stops["before"], stops["after"]
    assert stops["teardown"]["answered"]
    assert after["started"] == before["started"]  # nothing new after teardown
    assert stops["cancelled"] == len(before["started"])  # the calls in flight were cancelled
    assert after["inFlight"] == 0
    assert stops["ping"]["answered"]


def test_a_new_result_drops_the_old_thumbnails(report: dict[str, Any]) -> None:
    replaced = facts(report, "replaced")
    first = len(replaced["before"]["started"])
    started = replaced["after"]["started"]
    assert set(started[:first]) <= set(replaced["bulkIds"])
    assert started[first:] and set(started[first:]) == set(replaced["gridIds"])
    assert replaced["after"]["finished"] == len(replaced["gridIds"])


def test_messages_from_other_frames_are_ignored(report: dict[str, Any]) -> None:
    foreign = facts(report, "foreign")
    assert foreign["ping"]["answered"]
    assert not foreign["answeredForeign"]
    assert foreign["after"]["state"] == "results" and not foreign["after"]["problemShown"]
    assert foreign["after"]["ids"] == foreign["before"]["ids"]


def test_the_app_logs_no_errors_in_the_browser(report: dict[str, Any]) -> None:
    assert report["complete"], report["failure"]
    assert report["console"] == []
