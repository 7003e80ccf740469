"""Colour you can search, through a real worker: asset.get returns the palette (colours with
their share), asset.search and smart rules filter by a colour (its close palette colours
covering a minimum share together), and sort by closeness to a colour or by the dominant
hue. tests/library/files/test_colour_match.py holds what "close" means."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from tests.library.factories import call, call_error
from tests.library.pictures import FINISHED
from tests.waiting import wait_until

pytestmark = pytest.mark.both_kinds  # a local and a studio library

COLOURS = {"red": (255, 0, 0), "orange": (255, 128, 0), "yellow": (255, 255, 0),
           "green": (0, 255, 0), "blue": (0, 0, 255), "grey": (128, 128, 128),
           "dark red": (150, 10, 10)}


def paint(sources):
    for name, rgb in COLOURS.items():
        Image.new("RGB", (200, 150), rgb).save(sources / f"{name}.png")
    two = Image.new("RGB", (200, 100), (0, 0, 255))
    ImageDraw.Draw(two).rectangle([0, 0, 119, 99], fill=(255, 0, 0))  # 60 % red, 40 % blue
    two.save(sources / "red and blue.png")
    accent = Image.new("RGB", (200, 100), (128, 128, 128))
    ImageDraw.Draw(accent).rectangle([0, 0, 19, 99], fill=(255, 0, 0))  # 10 % red
    accent.save(sources / "grey with red.png")


def near(hex_colour: str, rgb: tuple[int, int, int], slack: int = 8) -> bool:
    values = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    return all(abs(v - c) <= slack for v, c in zip(values, rgb, strict=True))


def found(host, library_id, **args) -> list[str]:
    return [a["name"] for a in call(host, library_id, "asset.search",
                                    {**args, "limit": 100})["items"]]


def ruled(host, library_id, op, value) -> set[str]:
    out = call(host, library_id, "collection.run-rules", {"rules": {"rules": [
        {"field": "color", "op": op, "value": value}]}, "limit": 100})
    return {a["name"] for a in out["items"]}


def test_palette_colour_filter_rules_and_sorts(host, library_id, sources):
    paint(sources)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False})
    ids = {a: i for i, a in ((i["assetId"], i["sourcePath"].rsplit("/", 1)[-1][:-4])
                             for i in result["items"])}
    assert found(host, library_id, color="#ff0000") == []  # no palette before analysis
    task = call(host, library_id, "analysis.run")["task"]
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task["id"]})["status"]
               in FINISHED, "the analysis")

    got = call(host, library_id, "asset.get", {"assetIds": [ids["red and blue"]]})["items"][0]
    palette = [c for c in got["palette"] if c["ratio"] >= 0.1]  # (and its edge's blends)
    assert [round(c["ratio"], 1) for c in palette] == [0.6, 0.4]
    assert got["palette"] == sorted(got["palette"], key=lambda c: -c["ratio"])
    assert near(palette[0]["color"], (255, 0, 0)) and near(palette[1]["color"], (0, 0, 255))

    # mostly red (by default its close colours cover 30 %): dark red is red, orange is not
    assert set(found(host, library_id, color="#ff0000")) == {"red", "red and blue",
                                                             "dark red"}
    assert set(found(host, library_id, color="#f01818")) == {"red", "red and blue",
                                                             "dark red"}
    assert set(found(host, library_id, color="#ff0000", colorMinRatio=0.05)) == {
        "red", "red and blue", "dark red", "grey with red"}  # the 10 % accent counts now
    assert set(found(host, library_id, color="#ff0000", colorTolerance=70)) >= {"dark red",
                                                                                 "orange"}
    assert "orange" not in found(host, library_id, color="#ff0000")  # another hue
    assert "grey" not in found(host, library_id, color="#ff0000", colorTolerance=100)
    assert set(found(host, library_id, color="#0000FF")) == {"blue", "red and blue"}

    closest = found(host, library_id, color="#ff2020", sort="color-similarity",
                    colorTolerance=100, colorMinRatio=0.05)
    assert set(closest[:4]) == {"red", "red and blue", "grey with red", "dark red"}
    assert closest.index("red") < closest.index("orange") and "green" not in closest
    assert call_error(host, library_id, "asset.search",
                      {"sort": "color-similarity"}).details["field"] == "sort"
    by_hue = found(host, library_id, sort="hue", kind=["image"])
    order = [by_hue.index(n) for n in ("red", "orange", "yellow", "green", "blue", "grey")]
    assert order == sorted(order)  # red to violet, then greys

    assert ruled(host, library_id, "is", "#00ff00") == {"green"}
    assert ruled(host, library_id, "is", {"color": "#0000ff", "minRatio": 0.5}) == {"blue"}
    assert ruled(host, library_id, "is-not", "#ff0000") == {
        "orange", "yellow", "green", "blue", "grey", "grey with red"}
    stored = call(host, library_id, "collection.create", {"name": "Reds", "rules": {
        "rules": [{"field": "color", "op": "is", "value": "#FF0000"}]}})
    assert stored["rules"]["rules"][0]["value"] == {"color": "#ff0000", "tolerance": 44.0,
                                                   "minRatio": 0.3}
    assert stored["assetCount"] == 3
    for bad in ("red", "#ff00", {"color": "#ff0000", "tolerance": 0},
                {"color": "#ff0000", "minRatio": 2}, {"colour": "#ff0000"}):
        error = call_error(host, library_id, "collection.run-rules", {"rules": {"rules": [
            {"field": "color", "op": "is", "value": bad}]}})
        assert error.code == "INVALID_ARGUMENT", bad
    assert call_error(host, library_id, "asset.search", {"color": "blue"}).code == \
        "INVALID_ARGUMENT"
