"""Benchmark: 256 px thumbnails of 200 generated 2 MP JPEGs through `library.client`
(`asset.thumbnail`) against a plain Pillow loop (open, thumbnail, save) in the same run.

Run: `.venv/bin/python bench/bench_thumbnails.py [--count 200] [--size 256] [--dir DIR]`.
Serpent is measured three ways: one request at a time (what each request costs, pipe and
lookup included), all requests at once (what the window's grid does; the worker's two
thumbnail threads work in parallel), and again with every thumbnail already cached.
The plain loop is single-threaded, like a script would be. Prints times and ratios.
"""

from __future__ import annotations

import argparse
import io
import random
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageDraw, ImageFilter  # noqa: E402

from library.client import LibraryHost  # noqa: E402

SIZE = (1632, 1224)  # 2.0 MP


def _base_jpeg(seed: int) -> bytes:
    rng = random.Random(seed)
    image = Image.new("RGB", SIZE, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    draw = ImageDraw.Draw(image)
    for _ in range(60):
        x, y, r = rng.randrange(SIZE[0]), rng.randrange(SIZE[1]), rng.randrange(20, 300)
        draw.ellipse((x - r, y - r, x + r, y + r),
                     fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    noise = Image.effect_noise(SIZE, 24).convert("RGB")
    image = Image.blend(image.filter(ImageFilter.GaussianBlur(3)), noise, 0.12)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=88)
    return buffer.getvalue()


def write_jpegs(folder: Path, count: int) -> list[Path]:
    """`count` distinct 2 MP JPEGs: a few encoded bases, each copy with its own COM segment
    (so every file has its own content hash, as the thumbnail cache sees it)."""
    folder.mkdir(parents=True)
    bases = [_base_jpeg(seed) for seed in range(6)]
    paths = []
    for index in range(count):
        base = bases[index % len(bases)]
        comment = f"bench image {index}".encode()
        segment = b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment
        path = folder / f"photo-{index:04d}.jpg"
        path.write_bytes(base[:2] + segment + base[2:])  # right after SOI
        paths.append(path)
    return paths


def plain_loop(paths: list[Path], target: Path, size: int) -> float:
    target.mkdir(parents=True)
    started = time.perf_counter()
    for path in paths:
        with Image.open(path) as image:
            image.thumbnail((size, size))
            image.save(target / path.name, "JPEG")
    return time.perf_counter() - started


def serpent(folder: Path, parent: Path, size: int) -> dict[str, float]:
    host = LibraryHost()
    try:
        ref = host.create(parent, "Bench").result(60)
        library_id = ref["libraryId"]
        result = host.call(library_id, "file.import", {"sourcePaths": [str(folder)]}).result(600)
        ids = [item["assetId"] for item in result["items"]]
        half = len(ids) // 2
        started = time.perf_counter()
        for asset_id in ids[:half]:
            host.call(library_id, "asset.thumbnail", {"assetId": asset_id, "size": size}
                      ).result(60)
        one_by_one = (time.perf_counter() - started) / half
        started = time.perf_counter()
        futures = [host.call(library_id, "asset.thumbnail", {"assetId": a, "size": size})
                   for a in ids[half:]]
        for future in futures:
            future.result(600)
        at_once = (time.perf_counter() - started) / (len(ids) - half)
        started = time.perf_counter()
        for asset_id in ids:
            host.call(library_id, "asset.thumbnail", {"assetId": asset_id, "size": size}
                      ).result(60)
        cached = (time.perf_counter() - started) / len(ids)
    finally:
        host.shutdown()
    return {"one_by_one": one_by_one, "at_once": at_once, "cached": cached}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=options.dir) as temporary:
        root = Path(temporary)
        started = time.perf_counter()
        paths = write_jpegs(root / "src", options.count)
        print(f"generated {len(paths)} JPEGs of {SIZE[0]}x{SIZE[1]} in "
              f"{time.perf_counter() - started:.1f} s")
        baseline = plain_loop(paths, root / "plain", options.size) / len(paths)
        (root / "libs").mkdir()
        measured = serpent(root / "src", root / "libs", options.size)
    print(f"plain Pillow loop (open, thumbnail, save):  {baseline * 1000:7.2f} ms/image")
    print(f"Serpent asset.thumbnail, one at a time:     {measured['one_by_one'] * 1000:7.2f} "
          f"ms/image  ratio {measured['one_by_one'] / baseline:.2f}x")
    print(f"Serpent asset.thumbnail, all at once:       {measured['at_once'] * 1000:7.2f} "
          f"ms/image  ratio {measured['at_once'] / baseline:.2f}x")
    print(f"Serpent asset.thumbnail, already cached:    {measured['cached'] * 1000:7.2f} "
          f"ms/image  ratio {measured['cached'] / baseline:.2f}x")
    from benchdata import record

    for key, label in (("one_by_one", "one at a time"), ("at_once", "all at once"),
                       ("cached", "already cached")):
        record(f"asset.thumbnail {label} (per image)", measured[key] * 1000, "ms",
               baseline=baseline * 1000, target="")


if __name__ == "__main__":
    main()
