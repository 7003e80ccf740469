"""`asset.thumbnail` and `asset.preview-status` through a real worker and real image files."""

from __future__ import annotations

import io
import os
import random
import struct
import time
import zlib
from concurrent.futures import wait
from pathlib import Path

import pytest
from PIL import Image, features

from library.worker.files import imageformats, thumbcap
from tests.library.factories import TIMEOUT, call, call_error, make_file, make_image
from tests.library.pictures import previews_made
from tests.waiting import wait_until


def import_files(host, library_id, paths) -> list[str]:
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    assert [i["status"] for i in result["items"]] == ["imported"] * len(paths), result
    return [item["assetId"] for item in result["items"]]


def thumb(host, library_id, asset_id, size=256) -> dict:
    return call(host, library_id, "asset.thumbnail", {"assetId": asset_id, "size": size})


def noisy(size: tuple[int, int], seed: int, mode: str = "RGB") -> Image.Image:
    rng = random.Random(seed)
    return Image.frombytes(mode, size, rng.randbytes(size[0] * size[1] * len(mode)))


def png_claiming(path: Path, width: int, height: int) -> Path:
    """A small PNG whose header claims `width`x`height` (a decompression bomb's shape)."""
    buffer = io.BytesIO()
    Image.new("L", (8, 8), 128).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    start = data.index(b"IHDR")
    data[start + 4:start + 12] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(data[start:start + 17]))
    data[start + 17:start + 21] = struct.pack(">I", crc)
    return make_file(path, bytes(data))


def test_jpeg_png_and_alpha(host, library_id, sources):
    jpeg = make_image(sources / "photo.jpg", (1200, 800), seed=1)
    opaque = make_image(sources / "opaque.png", (900, 600), seed=2)
    rgba = Image.new("RGBA", (600, 300), (200, 50, 50, 255))
    rgba.paste((0, 0, 0, 0), (0, 0, 300, 300))  # left half fully transparent
    rgba.save(sources / "cutout.png")
    opaque_alpha = Image.new("RGBA", (500, 500), (10, 20, 30, 255))
    opaque_alpha.save(sources / "solid-alpha.png")
    ids = import_files(host, library_id, [jpeg, opaque, sources / "cutout.png",
                                          sources / "solid-alpha.png"])

    out = thumb(host, library_id, ids[0], 256)
    assert (out["mime"], out["width"], out["height"]) == ("image/jpeg", 256, 171)
    with Image.open(out["path"]) as image:
        assert (image.format, image.size) == ("JPEG", (256, 171))
    assert Path(out["path"]).parent.parent.name == "thumbs"

    out = thumb(host, library_id, ids[1], 128)
    assert (out["mime"], out["width"], out["height"]) == ("image/jpeg", 128, 85)

    out = thumb(host, library_id, ids[2], 100)  # bucket 128
    assert (out["mime"], out["width"], out["height"]) == ("image/png", 128, 64)
    with Image.open(out["path"]) as image:
        image = image.convert("RGBA")
        assert image.getpixel((5, 32))[3] == 0          # transparent stays transparent
        assert image.getpixel((120, 32)) == (200, 50, 50, 255)

    out = thumb(host, library_id, ids[3], 64)  # an alpha channel nobody uses: a JPEG
    assert out["mime"] == "image/jpeg"


def test_exif_orientation_is_applied(host, library_id, sources):
    image = Image.new("RGB", (800, 400), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 400, 400))  # left half red as stored
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to show"
    image.save(sources / "phone.jpg", exif=exif.tobytes(), quality=95)
    [asset_id] = import_files(host, library_id, [sources / "phone.jpg"])
    out = thumb(host, library_id, asset_id, 256)
    assert (out["width"], out["height"]) == (128, 256)  # upright: portrait
    with Image.open(out["path"]) as shown:
        top, bottom = shown.getpixel((64, 20)), shown.getpixel((64, 236))
    assert top[0] > 200 and top[2] < 60        # the stored left (red) is now the top
    assert bottom[2] > 200 and bottom[0] < 60


def test_small_images_share_one_full_size_thumbnail_and_the_cache_is_reused(
        host, library_id, library, sources):
    small = make_image(sources / "icon.png", (90, 60), seed=3)
    big = make_image(sources / "big.jpg", (2000, 1000), seed=4)
    small_id, big_id = import_files(host, library_id, [small, big])
    outs = [thumb(host, library_id, small_id, size) for size in (64, 256, 1568)]
    assert outs[0]["width"] == 64 and outs[0]["path"] != outs[1]["path"]
    assert outs[1]["path"] == outs[2]["path"] and (outs[1]["width"], outs[1]["height"]) == (90, 60)
    first = thumb(host, library_id, big_id, 300)
    assert (first["width"], first["height"]) == (384, 192)  # bucket 384
    mtime = Path(first["path"]).stat().st_mtime_ns
    again = thumb(host, library_id, big_id, 384)
    assert again == first and Path(again["path"]).stat().st_mtime_ns == mtime
    thumbs = Path(library["path"]) / "thumbs"
    assert not list((thumbs / ".tmp").iterdir())
    # a thumbnail torn by a power cut is made again, not served
    Path(first["path"]).write_bytes(b"")
    remade = thumb(host, library_id, big_id, 384)
    assert remade["width"] == 384 and Path(remade["path"]).stat().st_size > 0


def test_truncated_damaged_huge_and_non_image_files(host, library_id, sources):
    whole = io.BytesIO()
    noisy((400, 300), 5).save(whole, "JPEG", quality=90)
    truncated = make_file(sources / "cut.jpg", whole.getvalue()[: len(whole.getvalue()) // 2])
    png = io.BytesIO()
    Image.new("RGB", (300, 200), (10, 200, 30)).save(png, "PNG")
    damaged_bytes = bytearray(png.getvalue())
    idat = damaged_bytes.index(b"IDAT") + 10
    damaged_bytes[idat:idat + 20] = bytes(b ^ 0xFF for b in damaged_bytes[idat:idat + 20])
    damaged = make_file(sources / "damaged.png", bytes(damaged_bytes))
    bomb = png_claiming(sources / "bomb.png", 20000, 20000)
    text = make_file(sources / "notes.txt", b"not a picture")
    headless = make_file(sources / "headless.png", png.getvalue()[:30])  # cut in its header
    ids = import_files(host, library_id, [truncated, damaged, bomb, text, headless])

    out = thumb(host, library_id, ids[0], 256)  # what is there is shown, like viewers do
    assert (out["mime"], out["width"], out["height"]) == ("image/jpeg", 256, 192)

    error = call_error(host, library_id, "asset.thumbnail", {"assetId": ids[1], "size": 256})
    assert error.code == "UNSUPPORTED_FORMAT" and error.details["reason"] == "damaged"
    error = call_error(host, library_id, "asset.thumbnail", {"assetId": ids[2], "size": 256})
    assert error.code == "UNSUPPORTED_FORMAT" and error.details["reason"] == "too-large"
    error = call_error(host, library_id, "asset.thumbnail", {"assetId": ids[3], "size": 256})
    assert error.code == "UNSUPPORTED_FORMAT" and error.details["reason"] == "not-an-image"
    assert error.details["kind"] == "document" and "/" not in error.message
    error = call_error(host, library_id, "asset.thumbnail", {"assetId": ids[4], "size": 256})
    assert error.code == "UNSUPPORTED_FORMAT" and error.details["reason"] == "damaged"

    status = call(host, library_id, "asset.preview-status", {"assetIds": ids})["items"]
    assert status == {ids[0]: "ready", ids[1]: "failed", ids[2]: "failed",
                      ids[3]: "unsupported", ids[4]: "failed"}
    # the failure is remembered: asking again answers the same without decoding again
    error = call_error(host, library_id, "asset.thumbnail", {"assetId": ids[1], "size": 64})
    assert error.details["reason"] == "damaged"


def test_a_large_photo_and_odd_pixel_formats(host, library_id, sources):
    Image.new("RGB", (6000, 4000), (90, 120, 150)).save(sources / "camera.jpg", quality=80)
    Image.new("CMYK", (400, 200), (0, 100, 200, 0)).save(sources / "print.jpg")
    Image.new("I;16", (300, 300), 40000).save(sources / "scan16.png")
    palette = Image.new("P", (200, 100), 1)
    palette.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    palette.paste(0, (100, 0, 200, 100))  # the right half: the transparent index
    palette.save(sources / "sprite.gif", transparency=0)
    ids = import_files(host, library_id, [sources / "camera.jpg", sources / "print.jpg",
                                          sources / "scan16.png", sources / "sprite.gif"])
    out = thumb(host, library_id, ids[0], 256)
    assert (out["width"], out["height"]) == (256, 171)
    out = thumb(host, library_id, ids[1], 128)
    assert (out["mime"], out["width"]) == ("image/jpeg", 128)
    out = thumb(host, library_id, ids[2], 128)
    with Image.open(out["path"]) as image:
        assert 140 < image.convert("L").getpixel((10, 10)) < 170  # 40000/65535 of white
    out = thumb(host, library_id, ids[3], 512)  # palette with transparency: PNG, red kept
    assert out["mime"] == "image/png"
    with Image.open(out["path"]) as image:
        rgba = image.convert("RGBA")
        assert rgba.getpixel((5, 5)) == (255, 0, 0, 255) and rgba.getpixel((190, 5))[3] == 0


def test_heic_through_pillow_heif_and_avif(host, library_id, sources):
    imageformats.register()
    if "HEIF" not in Image.SAVE:
        pytest.skip("pillow-heif is not installed")
    noisy((320, 240), 6).save(sources / "iphone.heic", quality=80)
    paths = [sources / "iphone.heic"]
    if features.check("avif"):
        noisy((300, 150), 7).save(sources / "web.avif", quality=70)
        paths.append(sources / "web.avif")
    ids = import_files(host, library_id, paths)
    got = call(host, library_id, "asset.get", {"assetIds": ids})["items"]
    assert (got[0]["width"], got[0]["height"], got[0]["format"]) == (320, 240, "HEIF")
    out = thumb(host, library_id, ids[0], 128)
    assert (out["mime"], out["width"], out["height"]) == ("image/jpeg", 128, 96)
    if len(ids) > 1:
        out = thumb(host, library_id, ids[1], 128)
        assert (out["width"], out["height"]) == (128, 64)


def test_concurrent_requests_make_one_file_and_reads_do_not_wait(host, library_id, library,
                                                                  sources):
    make_image(sources / "shared.jpg", (3000, 2000), seed=8)
    Image.new("RGB", (5000, 5000), (1, 2, 3)).save(sources / "slow.png", compress_level=1)
    shared, slow = import_files(host, library_id, [sources / "shared.jpg",
                                                   sources / "slow.png"])
    previews_made(host, library_id)  # the import's own previews (256) are made first
    futures = [host.call(library_id, "asset.thumbnail", {"assetId": shared, "size": 512})
               for _ in range(12)]
    results = [f.result(TIMEOUT) for f in futures]
    assert len({r["path"] for r in results}) == 1
    folder = Path(results[0]["path"]).parent
    sha = Path(results[0]["path"]).name.split("_")[0]
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(sha)) \
        == [f"{sha}_256.jpg", Path(results[0]["path"]).name]  # the preview, and one 512
    assert not list((Path(library["path"]) / "thumbs" / ".tmp").iterdir())

    # four slow thumbnails (different sizes) in flight; a search still answers first
    slow_futures = [host.call(library_id, "asset.thumbnail", {"assetId": slow, "size": size})
                    for size in (128, 192, 512, 1024)]  # 256: the import made it
    search = host.call(library_id, "asset.search", {"limit": 5})
    done, _ = wait([search, *slow_futures], timeout=TIMEOUT, return_when="FIRST_COMPLETED")
    assert search in done and search.result()["total"] == 2
    for future in slow_futures:
        assert future.result(TIMEOUT)["width"] in (128, 192, 512, 1024)


def test_bad_input_missing_files_and_preview_status(host, library_id, library, sources):
    [asset_id] = import_files(host, library_id, [make_image(sources / "a.png", (300, 300))])
    previews_made(host, library_id)
    for made in (Path(library["path"]) / "thumbs").rglob("*.jpg"):
        made.unlink()  # as if the size cap had evicted the import's preview
    assert call(host, library_id, "asset.preview-status",
                {"assetIds": [asset_id]})["items"] == {asset_id: "pending"}
    thumb(host, library_id, asset_id, 64)
    unknown = "ast_00000000000000"
    status = call(host, library_id, "asset.preview-status", {"assetIds": [asset_id, unknown]})
    assert (status["items"], status["notFound"]) == ({asset_id: "ready"}, [unknown])
    assert status["counts"] == {"ready": 1, "queued": 0, "pending": 0, "failed": 0,
                                "unsupported": 0} and status["making"] is None
    assert call_error(host, library_id, "asset.thumbnail",
                      {"assetId": unknown}).code == "NOT_FOUND"
    for bad in ({"assetId": asset_id, "size": 8}, {"assetId": asset_id, "size": 5000},
                {"assetId": "../../etc/passwd"}, {"assetId": asset_id, "extra": 1}):
        assert call_error(host, library_id, "asset.thumbnail", bad).code == "INVALID_ARGUMENT"
    assert call_error(host, library_id, "asset.preview-status",
                      {"assetIds": []}).code == "INVALID_ARGUMENT"
    # the stored file vanished (a sync tool, a bad disk): a clear NOT_FOUND, status failed
    [other] = import_files(host, library_id, [make_image(sources / "b.png", (300, 300),
                                                         seed=9)])
    sha = call(host, library_id, "asset.get", {"assetIds": [other]})["items"][0]["sha256"]
    previews_made(host, library_id)
    (Path(library["path"]) / "files" / sha[:2] / f"{sha}.png").unlink()
    for made in (Path(library["path"]) / "thumbs" / sha[:2]).glob(f"{sha}_*"):
        made.unlink()
    error = call_error(host, library_id, "asset.thumbnail", {"assetId": other})
    assert error.code == "NOT_FOUND" and error.details["reason"] == "file-missing"
    assert call(host, library_id, "asset.preview-status",
                {"assetIds": [other]})["items"] == {other: "failed"}


def test_thumbnails_beyond_the_size_cap_go_least_recently_used_first(host, library,
                                                                      sources, monkeypatch):
    """The worker keeps `thumbs/` under SERPENT_THUMBS_MAX_BYTES in the background: the
    thumbnails used longest ago go, ones used within the last hour stay, and an evicted one
    is simply made again."""
    library_id, root = library["libraryId"], Path(library["path"])
    paths = []
    for n in range(10):
        paths.append(sources / f"noisy {n}.png")
        noisy((320, 240), n).save(paths[-1])
    ids = import_files(host, library_id, paths)
    files = [Path(thumb(host, library_id, asset_id)["path"]) for asset_id in ids]
    host.close(library_id).result(TIMEOUT)
    now = time.time()
    for n, path in enumerate(files[:6]):  # used 6..1 days ago; the last four: just now
        os.utime(path, (now - (6 - n) * 86400, now - (6 - n) * 86400))
    sizes = [path.stat().st_size for path in files]
    kept = sum(sizes[4:])
    cap = int(kept / thumbcap.LOW_WATER) + 1  # room for all but the four oldest
    assert sum(sizes[3:]) > cap * thumbcap.LOW_WATER
    monkeypatch.setenv("SERPENT_THUMBS_MAX_BYTES", str(cap))

    library_id = host.open(root).result(TIMEOUT)["libraryId"]
    wait_until(lambda: not any(path.exists() for path in files[:4]), "the sweep")
    assert all(path.exists() for path in files[4:])
    assert sum(p.stat().st_size for p in (root / "thumbs").rglob("*") if p.is_file()) <= cap
    served = Path(thumb(host, library_id, ids[4])["path"])  # a use moves it to the front
    assert served == files[4] and served.stat().st_mtime >= now
    again = Path(thumb(host, library_id, ids[0])["path"])
    assert again == files[0] and again.is_file()
