"""Benchmark: 256 px thumbnails of 200 generated 2 MP JPEGs through `library.client`
(`asset.thumbnail`) against a plain Pillow loop (open, thumbnail, save) in the same run.

Run: `.venv/bin/python bench/bench_thumbnails.py [--count 200] [--size 256] [--dir DIR]`.
Serpent is measured three ways: one request at a time (what each request costs, pipe and
lookup included), all requests at once (what the window's grid does; the worker's two
thumbnail threads work in parallel), and again with every thumbnail already cached.
The plain loop is single-threaded, like a script would be. Prints times and ratios.

With `--media`: previews of files that are not plain pictures, and reading text in
pictures (below, `MEDIA_DOC`).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import shutil
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdata import record, settle, settled_cpu  # noqa: E402
from PIL import Image, ImageDraw, ImageFilter, ImageFont  # noqa: E402

from library.client import LibraryHost  # noqa: E402
from tests.library import mediafiles  # noqa: E402

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
    for key, label in (("one_by_one", "one at a time"), ("at_once", "all at once"),
                       ("cached", "already cached")):
        record(f"asset.thumbnail {label} (per image)", measured[key] * 1000, "ms",
               baseline=baseline * 1000, target="")


# -- --media: previews of SVG, video, font, PDF and sound files; reading text in pictures ----
MEDIA_DOC = """Benchmark: previews ready for 200 mixed files (SVG, video, font, PDF, sound, photos)
through `library.client`, against the same libraries (resvg, PyAV, fontTools + Pillow,
PDFium, Pillow) called in a plain loop that also copies and hashes each file, in the same
run; then the `ocr-text` plugin's reading: milliseconds per picture, against RapidOCR called
on the same files directly; and what the readers' and OCR's packages weigh installed.

Run: `.venv/bin/python bench/bench_thumbnails.py --media [--count 200] [--rounds 2] [--ocr 8]
[--dir /tmp/somewhere]`. The baseline calls the libraries themselves, not Serpent's code
(`library.media`): resvg_py.svg_to_bytes, av.open + decode, ImageFont + fontTools' name
table, pypdfium2's render, Pillow's draft thumbnail, one file after another. Serpent's side
is `file.import` of the folder, then waiting until `asset.preview-status` counts every
preview ready. The phases run in interleaved rounds; the best of each counts.
"""
THUMB = 256
KINDS = ("svg", "mp4", "ttf", "pdf", "wav", "jpg")
PACKAGES = {  # what each reader brings (site-packages folders)
    "readers": ("resvg_py", "av", "av.libs", "pypdfium2", "pypdfium2_raw", "fontTools"),
    "ocr": ("rapidocr", "onnxruntime", "cv2", "opencv_python_headless.libs", "shapely",
            "shapely.libs", "pyclipper", "omegaconf", "yaml", "colorlog", "tqdm", "requests",
            "urllib3", "charset_normalizer", "idna", "certifi", "antlr4"),
}


def make_files(folder: Path, count: int, first: int = 0) -> list[Path]:
    """`count` files, the kinds in turn, each different (and different from those of
    another call whose numbers, from `first` on, do not overlap)."""
    from benchdata import unique_variant

    folder.mkdir(parents=True, exist_ok=True)
    photo = io.BytesIO()
    from tests.library.pictures import picture

    picture(7, (1600, 1200)).save(photo, "JPEG", quality=90)
    paths = []
    for n in range(first, first + count):
        kind = KINDS[n % len(KINDS)]
        path = folder / f"file_{n:04d}.{kind}"
        if kind == "svg":
            mediafiles.make_svg(path, "800", "600", extra=f'<text x="20" y="80" '
                                f'font-size="40">Sketch {n}</text>')
        elif kind == "mp4":
            mediafiles.make_video(path, (320, 180), seconds=2.0, seed=n)
        elif kind == "ttf":
            mediafiles.make_font(path, family=f"Bench Sans {n}", cjk=n % 2 == 0)
        elif kind == "pdf":
            mediafiles.make_pdf(path, pages=1 + n % 4, seed=n)
        elif kind == "wav":
            mediafiles.make_sound(path, seconds=3.0 + n % 5, seed=n)
        else:
            path.write_bytes(unique_variant("jpg", photo.getvalue(), n))
        paths.append(path)
    return paths


# -- the baseline: copy + sha-256 + the libraries' own calls, one file after another ---------
def plain_preview(path: Path) -> Image.Image:
    ext = path.suffix[1:]
    if ext == "svg":
        import resvg_py

        png = resvg_py.svg_to_bytes(svg_path=str(path), dpi=96.0, width=THUMB,
                                    height=THUMB * 3 // 4)
        return Image.open(io.BytesIO(png))
    if ext == "mp4":
        import av

        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            container.seek(int(container.duration * 0.1))
            for frame in container.decode(stream):
                image = frame.to_image()
                image.thumbnail((THUMB, THUMB))
                return image
    if ext == "wav":
        import av
        import numpy as np

        with av.open(str(path)) as container:
            samples = np.concatenate([f.to_ndarray().reshape(-1) for f in container.decode(
                container.streams.audio[0])])
        image = Image.new("RGB", (THUMB, THUMB // 2), "white")
        peaks = [float(abs(p).max()) for p in np.array_split(samples, THUMB)]
        for x, peak in enumerate(peaks):
            image.putpixel((x, THUMB // 4), (0, 0, min(255, int(peak))))
        return image
    if ext == "ttf":
        from fontTools.ttLib import TTFont

        with TTFont(str(path), lazy=True) as font:
            font["name"].getBestFamilyName()
            font.getBestCmap()
        image = Image.new("RGB", (THUMB, THUMB * 3 // 4), "white")
        from PIL import ImageDraw

        ImageDraw.Draw(image).text((8, 8), "Aa Bb Cc", font=ImageFont.truetype(str(path), 40),
                                   fill="black")
        return image
    if ext == "pdf":
        import pypdfium2

        document = pypdfium2.PdfDocument(str(path))
        try:
            page = document[0]
            width, height = page.get_size()
            return page.render(scale=THUMB / max(width, height)).to_pil()
        finally:
            document.close()
    with Image.open(path) as image:
        image.draft("RGB", (THUMB, THUMB))
        image.thumbnail((THUMB, THUMB))
        return image.copy()


def media_baseline(paths: list[Path], target: Path) -> float:
    target.mkdir(parents=True)
    started = time.perf_counter()
    for path in paths:
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        stored = target / f"{digest}{path.suffix}"
        stored.write_bytes(data)
        picture = plain_preview(stored).convert("RGB")
        picture.save(target / f"{digest}_{THUMB}.jpg", "JPEG", quality=85)
    return time.perf_counter() - started


class MediaLibrary:
    """A new library whose worker has settled before the clock starts, with one file of each
    kind imported first (`warm`): each reader's library loaded, as the plain loop's process
    has them after its first round (the first file of a kind in a worker's life costs the
    import of its library, 10-40 ms: av, fontTools, pypdfium2, resvg)."""

    def __init__(self, parent: Path) -> None:
        self.host = LibraryHost()
        self.library_id = self.host.create(parent, "Bench").result(60)["libraryId"]
        self.ready = 0  # previews of this library made so far

    def warm(self, folder: Path, count: int) -> None:
        self._import_and_previews(folder, count)
        settled_cpu(self.host.worker_pid(self.library_id) or 0)

    def timed_import(self, folder: Path, count: int) -> float:
        """Seconds from the import's start until every preview is ready."""
        started = time.perf_counter()
        self._import_and_previews(folder, count)
        return time.perf_counter() - started

    def _import_and_previews(self, folder: Path, count: int) -> None:
        host, library_id = self.host, self.library_id
        result = host.call(library_id, "file.import", {"sourcePaths": [str(folder)]}
                           ).result(3600)
        assert result["imported"] == count, {k: v for k, v in result.items() if k != "items"}
        self.ready += count
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            counts = host.call(library_id, "asset.preview-status", {}).result(600)["counts"]
            if counts["ready"] + counts["failed"] + counts["unsupported"] >= self.ready and \
                    not counts["queued"] and not counts["pending"]:
                assert counts["ready"] == self.ready, counts
                break
            time.sleep(0.05)

    def close(self) -> None:
        self.host.shutdown()


def media_previews(work: Path, count: int, rounds: int) -> None:
    print(f"generating {count} mixed files ({', '.join(KINDS)}) in {work} ...", flush=True)
    paths = make_files(work / "sources", count)
    for path in paths:
        path.read_bytes()
    warm_up = work / "warm-up"
    make_files(warm_up, len(KINDS), first=count)  # other content: imported, not duplicates
    plain, ours = [], []
    for number in range(rounds):
        plain.append(media_baseline(paths, work / f"plain-{number}"))
        libraries = work / f"libraries-{number}"
        libraries.mkdir()
        library = MediaLibrary(libraries)  # up before the loop's files are removed
        try:
            library.warm(warm_up, len(KINDS))
            shutil.rmtree(work / f"plain-{number}")
            settle()
            ours.append(library.timed_import(work / "sources", count))
        finally:
            library.close()
        shutil.rmtree(libraries)
        settle()
        print(f"round {number + 1}: plain loop {plain[-1]:.2f} s, serpent {ours[-1]:.2f} s, "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"plain loop: copy + sha-256 + the libraries' preview   {min(plain):7.2f} s")
    print(f"serpent: file.import + every preview ready            {min(ours):7.2f} s")
    print(f"ratio serpent / plain loop  {min(ours) / min(plain):5.2f}x  (previews are made on "
          f"{os.cpu_count()} cores, the loop uses one)")
    record(f"previews of {count} mixed files ready", min(ours), "s", baseline=min(plain),
           target="<= 1.0x")


def ocr(work: Path, count: int) -> None:
    from serpent_tk.plugins.builtin.ocr_text.reader import TextReader

    lines = [["夏日音乐节", "Summer Music Festival"], ["咖啡 Coffee", "Open Daily 8-20"],
             ["山水画展", "Ink Landscapes 2026"], ["地铁站 Metro", "Exit B 出口"]]
    posters = [mediafiles.make_poster(work / "posters" / f"poster_{n}.jpg", lines[n % 4],
                                      size=(1600, 1100)) for n in range(count)]
    reader = TextReader()
    started = time.perf_counter()
    reader.read(posters[0])
    first = time.perf_counter() - started
    ours, cpu = [], []
    for poster in posters:
        started, used = time.perf_counter(), time.process_time()
        text = reader.read(poster)
        ours.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)  # every thread's: the engine uses several
    assert "Summer" in reader.read(posters[0]) or "Summer" in text, text
    engine = reader._engine
    direct = []
    for poster in posters:
        started = time.perf_counter()
        engine(str(poster))
        direct.append(time.perf_counter() - started)
    ms, base = statistics.median(ours) * 1000, statistics.median(direct) * 1000
    print(f"ocr-text: first picture {first:.1f} s (the engine starts), then "
          f"{ms:.0f} ms per 1600 x 1100 poster (median of {count}; "
          f"{statistics.median(cpu) * 1000:.0f} ms of CPU); RapidOCR on the file "
          f"directly {base:.0f} ms: {ms / base:.2f}x; load {os.getloadavg()[0]:.1f}")
    record("ocr-text: one picture read", ms, "ms", baseline=base, target="<= 1.0x")


def weights() -> None:
    import site

    roots = [Path(p) for p in site.getsitepackages()]
    for group, names in PACKAGES.items():
        total = 0
        for name in names:
            for root in roots:
                path = root / name
                if path.exists():
                    total += sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        print(f"installed size of the {group}' packages: {total / 1e6:.0f} MB "
              f"({', '.join(names)})")


def media_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=MEDIA_DOC)
    parser.add_argument("--media", action="store_true")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--ocr", type=int, default=8, help="posters read (0: skip)")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-media-", dir=args.dir))
    try:
        if args.count:
            media_previews(work, args.count, args.rounds)
        if args.ocr:
            ocr(work, args.ocr)
        weights()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    if "--media" in sys.argv[1:]:
        sys.exit(media_main(sys.argv[1:]))
    main()
