"""Test helpers for analysis, tasks and maintenance: pictures with real structure (so their
perceptual hashes differ), tiny distinct pictures by the thousand, waiting for a task, and
files that block whoever reads them.

Importable by other test packages (`from tests.library.pictures import ...`).
"""

from __future__ import annotations

import os
import random
import struct
import threading
import time
import zlib
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from tests.library.factories import TIMEOUT
from tests.waiting import wait_until  # noqa: F401  (older tests import it from here)

FINISHED = ("done", "failed", "cancelled", "interrupted")


def picture(seed: int, size: tuple[int, int] = (320, 240)) -> Image.Image:
    """A picture of random shapes: different seeds give clearly different pictures."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(10):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        w, h = rng.randrange(size[0] // 6, size[0] // 2), rng.randrange(size[1] // 6,
                                                                        size[1] // 2)
        shape = draw.ellipse if rng.random() < 0.5 else draw.rectangle
        shape([x, y, x + w, y + h], fill=tuple(rng.randrange(256) for _ in range(3)))
    return image


def save_pictures(folder: Path, seeds: list[int], size: tuple[int, int] = (320, 240),
                  prefix: str = "pic") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in seeds:
        path = folder / f"{prefix}-{seed:03d}.png"
        picture(seed, size).save(path)
        paths.append(path)
    return paths


def tiny_png(number: int) -> bytes:
    """A valid 4×4 PNG whose pixels encode `number` (fast to make by the thousand)."""
    pixel = bytes([(number >> 16) & 255, (number >> 8) & 255, number & 255])
    raw = b"".join(b"\x00" + pixel * 4 for _ in range(4))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def run_analysis(host: Any, library_id: str) -> dict[str, Any]:
    """Analyse every asset not analysed yet and wait for the task to end (its last state)."""
    from tests.library.factories import call

    task = call(host, library_id, "analysis.run")["task"]
    return wait_until(lambda: (lambda now: now if now["status"] in FINISHED else None)(
        call(host, library_id, "task.get", {"taskId": task["id"]})), "the analysis")


def previews_made(host: Any, library_id: str) -> dict[str, Any]:
    """Wait until the previews made after imports are done (nothing queued or being made)."""
    from tests.library.factories import call

    return wait_until(lambda: (lambda status: status if status["making"] is None
                               and status["counts"]["queued"] == 0 else None)(
        call(host, library_id, "asset.preview-status", {})), "the previews")


class Blocker:
    """A FIFO in place of a file: whoever opens it for reading waits until `release()`;
    from then on every read of it gets `data`, until `stop()`. Makes "the task is busy
    with this item" deterministic."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path = path
        self.data = data
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        path.unlink(missing_ok=True)
        os.mkfifo(path)

    def release(self) -> None:
        self._thread = threading.Thread(target=self._feed, daemon=True)
        self._thread.start()

    def _feed(self) -> None:
        while not self._stopping.is_set():
            try:  # succeeds only while somebody waits to read
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.005)
                continue
            try:
                os.set_blocking(fd, True)
                os.write(fd, self.data)
            except OSError:
                pass  # the reader stopped reading early (a broken pipe): its business
            finally:
                os.close(fd)

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(TIMEOUT)
        self.path.unlink(missing_ok=True)
