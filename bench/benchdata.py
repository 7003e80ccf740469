"""Shared helpers of the library benchmarks: fast generation of many distinct real images,
and the timing helpers every phase of a benchmark starts with alike.

Runs in the benchmark process. Encoding 2,000 megapixel images one by one would take minutes,
so a few base images (JPEG and PNG, 1-2 MP) are encoded once and every file is a base image
with a unique comment (JPEG COM segment / PNG tEXt chunk) spliced in: each file is a valid
image with its own content hash, as an import sees it.
"""

from __future__ import annotations

import io
import json
import os
import random
import statistics
import struct
import time
import zlib
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

SIZES = [(1280, 960), (1600, 1000), (1600, 1200), (1440, 1080)]  # 1.2-1.9 MP


def _base_image(size: tuple[int, int], seed: int) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("RGB", size, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    draw = ImageDraw.Draw(image)
    for _ in range(60):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        r = rng.randrange(20, 300)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(rng.randrange(256), rng.randrange(256),
                                                         rng.randrange(256)))
    noise = Image.effect_noise(size, 24).convert("RGB")
    return Image.blend(image.filter(ImageFilter.GaussianBlur(3)), noise, 0.12)


def base_images(count: int = 8) -> list[tuple[str, bytes]]:
    """(ext, encoded bytes) for `count` base images, half JPEG, half PNG."""
    bases = []
    for n in range(count):
        image = _base_image(SIZES[n % len(SIZES)], n)
        buffer = io.BytesIO()
        if n % 2 == 0:
            image.save(buffer, "JPEG", quality=88)
            bases.append(("jpg", buffer.getvalue()))
        else:
            image.save(buffer, "PNG", compress_level=1)
            bases.append(("png", buffer.getvalue()))
    return bases


def unique_variant(ext: str, data: bytes, tag: int) -> bytes:
    text = f"serpent-bench-{tag}".encode()
    if ext == "jpg":  # a COM segment right after SOI
        segment = b"\xff\xfe" + struct.pack(">H", len(text) + 2) + text
        return data[:2] + segment + data[2:]
    chunk_data = b"Comment\x00" + text  # a tEXt chunk right after IHDR (8 + 25 bytes)
    chunk = struct.pack(">I", len(chunk_data)) + b"tEXt" + chunk_data + struct.pack(
        ">I", zlib.crc32(b"tEXt" + chunk_data) & 0xFFFFFFFF)
    return data[:33] + chunk + data[33:]


def write_images(folder: Path, count: int) -> tuple[list[Path], int]:
    """`count` distinct images in `folder`; returns the paths and their total size."""
    folder.mkdir(parents=True, exist_ok=True)
    bases = base_images()
    paths, total = [], 0
    for n in range(count):
        ext, data = bases[n % len(bases)]
        variant = unique_variant(ext, data, n)
        path = folder / f"img_{n:05d}.{ext}"
        path.write_bytes(variant)
        paths.append(path)
        total += len(variant)
    return paths, total


def tiny_png(number: int) -> bytes:
    """A valid 4x4 PNG whose pixels encode `number` (so every file is distinct)."""
    pixel = bytes([(number >> 16) & 255, (number >> 8) & 255, number & 255])
    raw = b"".join(b"\x00" + pixel * 4 for _ in range(4))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def write_small_images(folder: Path, count: int) -> tuple[list[Path], int]:
    """`count` distinct tiny PNGs in `folder`; returns the paths and their total size."""
    folder.mkdir(parents=True, exist_ok=True)
    paths, total = [], 0
    for n in range(count):
        data = tiny_png(n)
        path = folder / f"small_{n:06d}.png"
        path.write_bytes(data)
        paths.append(path)
        total += len(data)
    return paths, total


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> str:
    return (f"p50 {percentile(values, 50) * 1000:.2f} ms, p99 {percentile(values, 99) * 1000:.2f}"
            f" ms, mean {statistics.fmean(values) * 1000:.2f} ms")


def record(figure: str, value: float, unit: str, *, baseline: float | None = None,
           target: str = "", note: str = "") -> None:
    """One figure for `bench/run_all.py`'s table (appended to `$SERPENT_BENCH_RECORD`)."""
    path = os.environ.get("SERPENT_BENCH_RECORD")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"figure": figure, "value": value, "unit": unit,
                                 "baseline": baseline, "target": target, "note": note}) + "\n")


# -- timing: each phase of a benchmark starts alike ------------------------------------------
def settle() -> None:
    """Before a timed phase: the phase before's dirty pages written, a second of quiet."""
    os.sync()
    time.sleep(1)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time the processes used so far (Linux: /proc; else 0)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def settled_cpu(pid: int, deadline: float = 20.0) -> float:
    """A library worker's CPU seconds once its start's own work (the commands' warm-up, its
    background checks) is over: its CPU time did not move for 0.3 s (at most `deadline`)."""
    ends = time.monotonic() + deadline
    last = cpu_seconds([pid])
    while time.monotonic() < ends:
        time.sleep(0.3)
        now = cpu_seconds([pid])
        if now == last:
            break
        last = now
    return last
