"""The colour filter finds what a person means by "the blue ones", through a real worker and
real analysis: with the defaults, blue (#1e88e5, the search bar's Blue) finds the fifteen
mostly-blue pictures — navy to sky blue, in one shade or several — and none of the teal or
cyan ones, nor pictures with only a touch of blue (issue 27: ΔE76 20 found 5 of them, 35 found
teal too). A looser tolerance or a smaller share finds those; greys are never a saturated
colour; smart rules agree; the SQL distance is the one `colourmatch.difference` computes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from library.worker.files import colours
from library.worker.rows import colourmatch
from tests.library.factories import call
from tests.library.pictures import FINISHED
from tests.waiting import wait_until

BLUE = "#1e88e5"
# mostly blue: a main shade, a second blue, a white stripe and an orange spot
BLUES = ["#4169e1", "#1a237e", "#1976d2", "#0d47a1", "#87ceeb", "#64b5f6", "#2196f3",
         "#6495ed", "#4682b4", "#1e90ff", "#3f51b5", "#00bfff", "#1565c0", "#2979ff",
         "#283593"]
TEALS = ["#00897b", "#009688", "#4db6ac", "#0097a7", "#40e0d0", "#008b8b", "#00bcd4",
         "#26a69a"]
OTHERS = ["#e53935", "#43a047", "#fdd835", "#8e24aa", "#795548", "#fb8c00", "#8a8a8a",
          "#2b2b2b"]


def rgb(colour: str) -> tuple[int, int, int]:
    return colours.rgb_of_hex(colour)


def mostly(path: Path, main: str, second: str) -> None:
    """`main` on 55 %, `second` on 15 %, white on 20 %, orange on 10 %."""
    image = Image.new("RGB", (200, 100), rgb(main))
    pen = ImageDraw.Draw(image)
    pen.rectangle([110, 0, 139, 99], fill=rgb(second))
    pen.rectangle([140, 0, 179, 99], fill=(250, 250, 250))
    pen.rectangle([180, 0, 199, 99], fill=(255, 140, 0))
    image.save(path)


def a_touch_of_blue(path: Path, main: str) -> None:
    """`main` on 90 %, a blue strip on 10 %."""
    image = Image.new("RGB", (200, 100), rgb(main))
    ImageDraw.Draw(image).rectangle([180, 0, 199, 99], fill=rgb(BLUE))
    image.save(path)


@pytest.fixture
def pictures(host, library_id, sources: Path) -> dict[str, str]:
    for n, main in enumerate(BLUES):
        mostly(sources / f"blue {n:02d}.png", main, BLUES[(n + 5) % len(BLUES)])
    for n, main in enumerate(TEALS):
        mostly(sources / f"teal {n:02d}.png", main, TEALS[(n + 3) % len(TEALS)])
    for n, main in enumerate(OTHERS):
        a_touch_of_blue(sources / f"other {n:02d}.png", main)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False})
    task = call(host, library_id, "analysis.run")["task"]
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task["id"]})["status"]
               in FINISHED, "the analysis", timeout=180)
    return {i["assetId"]: Path(i["sourcePath"]).stem for i in result["items"]}


def names(host, library_id, **args) -> set[str]:
    found = call(host, library_id, "asset.search", {**args, "limit": 200})["items"]
    return {a["name"] for a in found}


def test_blue_finds_the_mostly_blue_pictures_and_not_the_teal_ones(host, library_id,
                                                                   pictures) -> None:
    blue = {f"blue {n:02d}" for n in range(len(BLUES))}
    assert names(host, library_id, color=BLUE) == blue
    ruled = call(host, library_id, "collection.run-rules", {"rules": {"rules": [
        {"field": "color", "op": "is", "value": BLUE}]}, "limit": 200})
    assert {a["name"] for a in ruled["items"]} == blue
    # a touch of blue counts once the share asked for is small enough
    assert names(host, library_id, color=BLUE, colorMinRatio=0.05) == blue | {
        f"other {n:02d}" for n in range(len(OTHERS))}
    # teal is another hue: only a loose tolerance reaches it
    assert not names(host, library_id, color=BLUE) & {f"teal {n:02d}" for n in range(8)}
    assert names(host, library_id, color=BLUE, colorTolerance=100) >= {
        "teal 03", "teal 06"} | blue                        # cyans at the loosest
    assert names(host, library_id, color="#00897b") >= {f"teal {n:02d}"
                                                        for n in range(len(TEALS))}
    closest = [a["name"] for a in call(host, library_id, "asset.search", {
        "color": BLUE, "sort": "color-similarity", "limit": 200})["items"]]
    assert closest.index("blue 06") < closest.index("blue 01")   # azure before navy


def test_the_sql_distance_is_colourmatch_difference() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE asset_colors (asset_id, l, a, b, ratio, hue)")
    for colour in [*BLUES, *TEALS, *OTHERS]:
        lab = colours.lab_of_hex(colour)
        conn.execute("INSERT INTO asset_colors VALUES (?, ?, ?, ?, 1.0, ?)",
                     (colour, *lab, colours.hue_key(lab)))
    distance, params = colourmatch.distance_sql(BLUE)
    palette = colourmatch.PALETTE.format(first="1")
    for colour, squared in conn.execute(f"SELECT asset_id, {distance} FROM {palette} c",
                                        params):
        assert squared ** 0.5 == pytest.approx(colourmatch.difference(BLUE, colour))
    assert max(colourmatch.difference(BLUE, c) for c in BLUES) < \
        colourmatch.DEFAULT_TOLERANCE < min(colourmatch.difference(BLUE, c) for c in TEALS)
