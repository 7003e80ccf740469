"""SVG, video, sound, font and PDF files through a real worker: their facts at import and in
`asset.get`, their previews (`asset.thumbnail`, contact sheets), their kinds and the
duration / pages / orientation filters of `asset.search` and rules; a damaged video flagged
like a damaged picture; an SVG that names files outside itself draws without them."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from library.client import LibraryHost
from library.errors import LibraryError
from tests.library import mediafiles
from tests.library.factories import call
from tests.library.pictures import run_analysis

Files = dict[str, str]


def _import(host: LibraryHost, library_id: str, paths: list[Path]) -> Files:
    out = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    by_name = {Path(i["sourcePath"]).name: i for i in out["items"]}
    assert all(i["status"] == "imported" for i in by_name.values()), by_name
    return {name: item["assetId"] for name, item in by_name.items()}


@pytest.fixture
def media(host: LibraryHost, library_id: str, sources: Path) -> Files:
    paths = [
        mediafiles.make_svg(sources / "wide.svg", "200mm", "100mm"),
        mediafiles.make_svg(sources / "tall.svg", view_box="0 0 100 150", width="auto",
                            height="auto"),
        mediafiles.make_video(sources / "clip.mp4", (160, 90), seconds=3.0),
        mediafiles.make_video(sources / "phone.mp4", (160, 90), seconds=1.0, rotation=90,
                              seed=1),
        mediafiles.make_video(sources / "old.avi", (128, 96), seconds=2.0, seed=2),
        mediafiles.make_sound(sources / "tone.wav", seconds=4.0),
        mediafiles.make_sound(sources / "chime.flac", seconds=1.5),
        mediafiles.make_font(sources / "display.ttf", family="Serpent Display",
                             style="Heavy Italic"),
        mediafiles.make_pdf(sources / "brief.pdf", pages=3),
        mediafiles.make_pdf(sources / "slides.pdf", pages=1, size=(842, 595)),
    ]
    (sources / "broken.mp4").write_bytes(os.urandom(6000))
    paths.append(sources / "broken.mp4")
    return _import(host, library_id, paths)


def _get(host: LibraryHost, library_id: str, asset_id: str) -> dict[str, Any]:
    return call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0]


def test_each_kind_has_its_facts_at_import(host: LibraryHost, library_id: str,
                                           media: Files) -> None:
    wide = _get(host, library_id, media["wide.svg"])
    assert (wide["kind"], wide["width"], wide["height"], wide["format"]) == (
        "vector", 756, 378, "SVG")  # 200 mm at 96 dpi
    assert (_get(host, library_id, media["tall.svg"])["width"],
            _get(host, library_id, media["tall.svg"])["height"]) == (100, 150)
    clip = _get(host, library_id, media["clip.mp4"])
    assert (clip["kind"], clip["width"], clip["height"], clip["codec"]) == (
        "video", 160, 90, "h264")
    assert clip["duration"] == pytest.approx(3.0, abs=0.2)
    phone = _get(host, library_id, media["phone.mp4"])
    assert (phone["width"], phone["height"]) == (90, 160)  # stored sideways, shown upright
    assert _get(host, library_id, media["old.avi"])["codec"] == "mpeg4"
    tone = _get(host, library_id, media["tone.wav"])
    assert (tone["kind"], tone["codec"]) == ("audio", "pcm_s16le")
    assert tone["duration"] == pytest.approx(4.0, abs=0.1)
    font = _get(host, library_id, media["display.ttf"])
    assert (font["kind"], font["fontFamily"], font["fontStyle"]) == (
        "font", "Serpent Display", "Heavy Italic")
    brief = _get(host, library_id, media["brief.pdf"])
    assert (brief["kind"], brief["pages"], brief["width"], brief["height"]) == (
        "document", 3, 595, 842)
    broken = _get(host, library_id, media["broken.mp4"])
    assert broken["problem"]["code"] == "damaged"
    assert all(_get(host, library_id, media[n])["problem"] is None
               for n in media if n != "broken.mp4")


def test_the_damaged_video_is_said_at_import(host: LibraryHost, library_id: str,
                                             sources: Path) -> None:
    (sources / "noise.mp4").write_bytes(os.urandom(5000))
    out = call(host, library_id, "file.import", {"sourcePaths": [str(sources / "noise.mp4")]})
    assert out["items"][0]["status"] == "imported"
    assert "Damaged file" in out["items"][0]["warning"]


def test_every_kind_has_a_preview(host: LibraryHost, library_id: str, media: Files) -> None:
    shapes = {}
    for name, asset_id in media.items():
        if name == "broken.mp4":
            with pytest.raises(LibraryError) as refused:
                call(host, library_id, "asset.thumbnail", {"assetId": asset_id, "size": 256})
            assert "damaged" in str(refused.value).lower()
            continue
        thumb = call(host, library_id, "asset.thumbnail", {"assetId": asset_id, "size": 256})
        with Image.open(thumb["path"]) as picture:
            picture.load()
            shapes[name] = picture.size
            colours = picture.convert("RGB").getcolors(1 << 16) or []
        assert len(colours) > 1, f"{name}: its preview is one flat colour"
    assert shapes["wide.svg"] == (256, 128)
    assert shapes["phone.mp4"][0] < shapes["phone.mp4"][1]  # upright
    assert shapes["tone.wav"][0] > shapes["tone.wav"][1]  # a waveform
    assert shapes["brief.pdf"][0] < shapes["brief.pdf"][1]  # A4 portrait
    sheet = call(host, library_id, "asset.thumbnail", {"assetIds": list(media.values())})
    shown = {c["assetId"]: c["status"] for c in sheet["items"]}
    assert shown[media["broken.mp4"]] == "no_preview"
    assert all(status == "shown" for asset, status in shown.items()
               if asset != media["broken.mp4"])


def test_the_svg_preview_is_drawn_in_its_colours(host: LibraryHost, library_id: str,
                                                 media: Files) -> None:
    thumb = call(host, library_id, "asset.thumbnail", {"assetId": media["wide.svg"],
                                                       "size": 256})
    with Image.open(thumb["path"]) as picture:
        rgb = picture.convert("RGB")
        assert rgb.getpixel((250, 5)) == pytest.approx((255, 136, 0), abs=3)  # the orange
        assert rgb.getpixel((int(256 * 0.3), 64))[2] > 150  # the blue circle


def test_an_svg_never_reaches_files_outside_itself(host: LibraryHost, library_id: str,
                                                    sources: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    Image.new("RGB", (50, 50), (0, 255, 0)).save(secret)
    green = f'<image href="{secret}" x="0" y="0" width="300" height="200"/>'
    also = f'<image xlink:href="file://{secret}" x="0" y="0" width="300" height="200"/>'
    script = '<script>document.body.innerHTML = "x"</script>'
    path = mediafiles.make_svg(sources / "nosy.svg", extra=green + also + script)
    asset = _import(host, library_id, [path])["nosy.svg"]
    thumb = call(host, library_id, "asset.thumbnail", {"assetId": asset, "size": 128})
    with Image.open(thumb["path"]) as picture:
        colours = {c for _n, c in picture.convert("RGB").getcolors(1 << 16) or []}
    assert not any(g > 200 and r < 60 and b < 60 for r, g, b in colours), \
        "the picture of another file was drawn into the preview"


def _search(host: LibraryHost, library_id: str, **args: Any) -> set[str]:
    out = call(host, library_id, "asset.search", {"limit": 100, **args})
    return {item["name"] for item in out["items"]}


def test_search_knows_the_kinds_durations_pages_and_shapes(host: LibraryHost, library_id: str,
                                                           media: Files) -> None:
    assert _search(host, library_id, kind=["vector"]) == {"wide", "tall"}
    assert _search(host, library_id, kind=["video"]) == {"clip", "phone", "old", "broken"}
    assert _search(host, library_id, kind=["audio"]) == {"tone", "chime"}
    assert _search(host, library_id, kind=["font"]) == {"display"}
    assert _search(host, library_id, kind=["document"]) == {"brief", "slides"}

    def rules(*rule: dict[str, Any]) -> set[str]:
        return _search(host, library_id, rules={"match": "all", "rules": list(rule)})

    assert rules({"field": "duration", "op": "gte", "value": 2.5}) == {"clip", "tone"}
    assert rules({"field": "duration", "op": "lte", "value": 1.6}) == {"phone", "chime"}
    assert rules({"field": "pages", "op": "gte", "value": 2}) == {"brief"}
    assert rules({"field": "pages", "op": "is", "value": 1}) == {"slides"}
    assert rules({"field": "kind", "op": "is", "value": "video"},
                 {"field": "orientation", "op": "is", "value": "portrait"}) == {"phone"}
    assert _search(host, library_id, orientation=["portrait"], kind=["vector"]) == {"tall"}
    assert _search(host, library_id, orientation=["panoramic"]) == {"wide"}
    assert _search(host, library_id, text="serpent display") == {"display"}
    assert _search(host, library_id, text="heavy italic") == {"display"}


def test_analysis_gives_drawings_videos_and_documents_a_palette(
        host: LibraryHost, library_id: str, media: Files) -> None:
    run_analysis(host, library_id)
    wide = _get(host, library_id, media["wide.svg"])
    assert wide["palette"] and wide["palette"][0]["color"].lower().startswith("#f")
    assert _get(host, library_id, media["clip.mp4"])["palette"]
    assert _get(host, library_id, media["display.ttf"])["palette"] == []
    assert _get(host, library_id, media["broken.mp4"])["problem"]["code"] == "damaged"
    found = _search(host, library_id, color="#ff8800", colorTolerance=15)
    assert "wide" in found and "tall" in found


def test_a_rule_that_mixes_kinds_and_durations_is_checked(host: LibraryHost,
                                                          library_id: str) -> None:
    with pytest.raises(LibraryError) as refused:
        call(host, library_id, "collection.run-rules", {"rules": {"rules": [
            {"field": "duration", "op": "gte", "value": "long"}]}})
    assert refused.value.code == "INVALID_ARGUMENT" and "rules.rules.0.value" in str(
        refused.value)
    with pytest.raises(LibraryError) as refused:
        call(host, library_id, "collection.run-rules", {"rules": {"rules": [
            {"field": "pages", "op": "contains", "value": 2}]}})
    assert refused.value.details.get("field") == "rules.rules.0.op" or "op" in str(
        refused.value)


def test_a_thumbnail_is_a_real_picture(host: LibraryHost, library_id: str,
                                       media: Files) -> None:
    thumb = call(host, library_id, "asset.thumbnail", {"assetId": media["display.ttf"],
                                                       "size": 512})
    data = Path(thumb["path"]).read_bytes()
    with Image.open(io.BytesIO(data)) as picture:
        assert picture.size[0] == 512
