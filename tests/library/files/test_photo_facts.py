"""True image facts through a real worker: EXIF-rotated photos report the size they are
displayed at, date taken, camera and lens are kept, shown by asset.get and searchable, rules
and search filters for orientation, aspect ratio and date taken; a library whose facts were
recorded before (stored sizes, no dates) gets them right from analysis."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PIL import Image

from tests.library.factories import call, call_error
from tests.library.pictures import FINISHED
from tests.waiting import wait_until


def photo(path: Path, size: tuple[int, int], *, orientation: int = 1,
          taken: str | None = None, camera: tuple[str, str] | None = None,
          lens: str | None = None, colour: tuple[int, int, int] = (200, 30, 30)) -> Path:
    """A JPEG as a camera writes it: stored `size`, EXIF orientation, date, camera, lens."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    if camera:
        exif[0x010F], exif[0x0110] = camera
    details = exif.get_ifd(0x8769)
    if taken:
        details[0x9003] = taken
    if lens:
        details[0xA434] = lens
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path, "JPEG", exif=exif)
    return path


def shoot(sources: Path) -> list[Path]:
    return [
        photo(sources / "phone portrait.jpg", (800, 600), orientation=6,
              taken="2024:07:01 18:30:05", camera=("Apple", "iPhone 15 Pro"),
              lens="iPhone 15 Pro back triple camera 6.86mm f/1.78"),
        photo(sources / "upside portrait.jpg", (900, 600), orientation=8,
              taken="2023:12:24 09:00:00", camera=("Canon", "Canon EOS R5"),
              lens="RF24-70mm F2.8 L IS USM"),
        photo(sources / "landscape.jpg", (600, 400), taken="2022:05:01 12:00:00",
              camera=("SONY", "ILCE-7M3")),
        photo(sources / "square.jpg", (500, 510)),
        photo(sources / "pano.jpg", (1200, 400), taken="0000:00:00 00:00:00"),
        photo(sources / "tall.jpg", (300, 550), orientation=3),
    ]


def names(found: dict) -> set[str]:
    return {item["name"] for item in found["items"]}


def rules(shelf_call, *rule: tuple[str, str, object]) -> set[str]:
    return names(shelf_call("collection.run-rules", {"rules": {"rules": [
        {"field": f, "op": o, "value": v} for f, o, v in rule]}, "limit": 100}))


def test_rotated_photos_and_their_facts(host, library_id, sources):
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in
                                                                    shoot(sources)]})
    ids = {Path(i["sourcePath"]).stem: i["assetId"] for i in result["items"]}
    got = {a["name"]: a for a in call(host, library_id, "asset.get",
                                      {"assetIds": list(ids.values())})["items"]}
    portrait = got["phone portrait"]
    assert (portrait["width"], portrait["height"]) == (600, 800)  # as it is displayed
    assert (got["upside portrait"]["width"], got["upside portrait"]["height"]) == (600, 900)
    assert (got["tall"]["width"], got["tall"]["height"]) == (300, 550)  # 180°: same sides
    assert portrait["takenAt"] == "2024-07-01T18:30:05"
    assert portrait["camera"] == "Apple iPhone 15 Pro"
    assert portrait["lens"].startswith("iPhone 15 Pro back")
    assert got["upside portrait"]["camera"] == "Canon EOS R5"  # not "Canon Canon EOS R5"
    assert got["landscape"]["camera"] == "SONY ILCE-7M3" and got["landscape"]["lens"] is None
    assert got["pano"]["takenAt"] is None  # a camera's "no date" placeholder is no date
    thumb = call(host, library_id, "asset.thumbnail", {"assetId": ids["phone portrait"],
                                                       "size": 256})
    assert (thumb["width"], thumb["height"]) == (192, 256)  # the preview is upright too

    def run(command, args):
        return call(host, library_id, command, args)

    assert rules(run, ("orientation", "is", "portrait")) == {"phone portrait",
                                                              "upside portrait", "tall"}
    assert rules(run, ("orientation", "is", ["square", "panoramic"])) == {"square", "pano"}
    assert rules(run, ("orientation", "is", "landscape")) == {"landscape"}
    assert rules(run, ("orientation", "is-not", "portrait")) == {"landscape", "square", "pano"}
    assert rules(run, ("aspect-ratio", "gte", "16:9")) == {"pano"}
    assert rules(run, ("aspect-ratio", "is", 1.5)) == {"landscape"}
    assert rules(run, ("aspect-ratio", "lte", 0.6)) == {"tall"}
    assert rules(run, ("taken-at", "before", "2024-01-01")) == {"upside portrait", "landscape"}
    assert rules(run, ("taken-at", "after", "2023-12-24")) == {"phone portrait"}
    assert rules(run, ("taken-at", "after", "2023-12-24T08:59:59")) == {"phone portrait",
                                                                       "upside portrait"}
    assert rules(run, ("camera", "contains", "canon")) == {"upside portrait"}
    assert rules(run, ("lens", "contains", "RF24")) == {"upside portrait"}
    assert rules(run, ("camera", "is", "")) == {"square", "pano", "tall"}

    search = {name: names(call(host, library_id, "asset.search", args)) for name, args in {
        "portrait": {"orientation": ["portrait"]},
        "wide": {"rules": {"rules": [{"field": "aspect-ratio", "op": "gte", "value": 1.7}]}},
        "2023": {"takenAfter": "2023-01-01T00:00:00", "takenBefore": "2024-01-01T00:00:00"},
        "canon": {"text": "CANON"}, "rf": {"text": "rf24"}, "text": {"text": "iphone 15"},
    }.items()}
    assert search == {"portrait": {"phone portrait", "upside portrait", "tall"},
                      "wide": {"pano"}, "2023": {"upside portrait"},
                      "canon": {"upside portrait"}, "rf": {"upside portrait"},
                      "text": {"phone portrait"}}
    newest = call(host, library_id, "asset.search", {"sort": "taken-desc"})["items"]
    assert [a["name"] for a in newest][:3] == ["phone portrait", "upside portrait",
                                               "landscape"]
    oldest = call(host, library_id, "asset.search", {"sort": "taken-asc", "limit": 2})
    assert [a["name"] for a in oldest["items"]] == ["landscape", "upside portrait"]
    more = call(host, library_id, "asset.search", {"sort": "taken-asc", "limit": 2,
                                                   "cursor": oldest["nextCursor"]})
    assert [a["name"] for a in more["items"]][0] == "phone portrait"
    for bad in ({"field": "orientation", "op": "is", "value": "round"},
                {"field": "aspect-ratio", "op": "gte", "value": "wide"},
                {"field": "taken-at", "op": "is", "value": "2024-01-01"},
                {"field": "camera", "op": "gte", "value": "x"}):
        error = call_error(host, library_id, "collection.run-rules",
                           {"rules": {"rules": [bad]}})
        assert error.code == "INVALID_ARGUMENT" and error.details["field"].startswith(
            "rules.rules.0."), bad


def test_facts_recorded_the_old_way_are_put_right_by_analysis(host, library, sources):
    library_id, root = library["libraryId"], Path(library["path"])
    [asset_id] = [i["assetId"] for i in call(host, library_id, "file.import", {
        "sourcePaths": [str(photo(sources / "old.jpg", (800, 400), orientation=6,
                                  taken="2021:03:04 05:06:07", camera=("Nikon", "Z 6")))]})[
        "items"]]
    host.close(library_id).result(60)
    db = sqlite3.connect(root / "library.sqlite")
    try:  # what an older Serpent recorded: the stored size, no date, no camera
        db.execute("UPDATE assets SET width = 800, height = 400, taken_at = NULL, "
                   "camera = NULL WHERE id = ?", (asset_id,))
        db.commit()
    finally:
        db.close()
    library_id = host.open(root).result(60)["libraryId"]
    before = call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0]
    assert (before["width"], before["camera"]) == (800, None)
    task = call(host, library_id, "analysis.run", {"assetIds": [asset_id], "force": True})
    wait_until(lambda: call(host, library_id, "task.get", {"taskId": task["task"]["id"]})[
        "status"] in FINISHED, "the analysis")
    after = call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0]
    assert (after["width"], after["height"]) == (400, 800)
    assert after["takenAt"] == "2021-03-04T05:06:07" and after["camera"] == "Nikon Z 6"
    assert after["version"] == before["version"]  # facts about the file: not an edit
    assert call(host, library_id, "asset.search", {"text": "nikon"})["total"] == 1
