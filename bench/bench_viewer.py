"""Benchmark: the built-in viewer with big pictures, in the real window (real gateway, real
library worker, real Tk).

1. Space → picture: time from pressing Space on a 24 MP JPEG (6000 × 4000, generated here)
   to the first picture drawn and to the picture decoded for the screen, cold (the viewer's
   decoded-picture cache emptied before each run). Baseline, same run, same file: Pillow
   opening and fully decoding it (`Image.open` + `load`), and Pillow with `draft()` to the
   screen's size; ratios printed.
2. Stepping: the worst stall of the Tk loop (an `after(10)` heartbeat: the longest gap
   between beats, less the 10 ms) while stepping through 50 large JPEGs with the Right
   arrow, (a) waiting for each to be sharp, (b) at a quick pace (one step every 120 ms, as
   a person flicking through). Target: no stall over 100 ms. Baseline: the same heartbeat
   on the idle window.

Run: `.venv/bin/python bench/bench_viewer.py [--runs 5] [--images 50] [--pace 0.12]`.
Needs a display; without $DISPLAY it starts its own Xvfb. Files go to a temporary folder.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchdata import record, unique_variant  # noqa: E402

BIG = (6000, 4000)


def big_jpeg(size: tuple[int, int] = BIG) -> bytes:
    """A photo-like 24 MP JPEG: gradients, shapes and grain (so it compresses like one)."""
    from PIL import Image, ImageDraw, ImageFilter

    width, height = size
    small = Image.new("RGB", (width // 8, height // 8))
    draw = ImageDraw.Draw(small)
    for y in range(small.height):
        draw.line((0, y, small.width, y), fill=(60 + y * 120 // small.height, 110, 200
                                                 - y * 100 // small.height))
    for n in range(40):
        x, y, r = (n * 97) % small.width, (n * 53) % small.height, 10 + (n * 7) % 60
        draw.ellipse((x - r, y - r, x + r, y + r), fill=((n * 40) % 256, 180, (n * 90) % 256))
    image = small.filter(ImageFilter.GaussianBlur(2)).resize(size, Image.Resampling.BICUBIC)
    grain = Image.effect_noise((width // 2, height // 2), 18).convert("RGB").resize(size)
    image = Image.blend(image, grain, 0.06)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=88)
    return buffer.getvalue()


def pillow_baseline(path: Path, screen: tuple[int, int], runs: int) -> tuple[float, float]:
    """Median seconds for Pillow to fully decode `path`, and to decode it with draft() to
    `screen` (then fitted), in this process."""
    from PIL import Image

    full, drafted = [], []
    for _ in range(runs):
        started = time.perf_counter()
        with Image.open(path) as image:
            image.load()
        full.append(time.perf_counter() - started)
        started = time.perf_counter()
        with Image.open(path) as image:
            image.draft("RGB", screen)
            image.thumbnail(screen)
        drafted.append(time.perf_counter() - started)
    return statistics.median(full), statistics.median(drafted)


class Heartbeat:
    """`after(10)` ticks; `worst` is the longest gap beyond 10 ms since `reset`."""

    def __init__(self, root: object) -> None:
        self.root = root
        self.worst = 0.0
        self.last = time.perf_counter()
        self._tick()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last - 0.010)
        self.last = now
        self.root.after(10, self._tick)  # type: ignore[attr-defined]

    def reset(self) -> None:
        self.worst = 0.0
        self.last = time.perf_counter()


def pump(root: object, until: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not until():  # type: ignore[operator]
        root.update()  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.0005)


def settle(root: object, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        root.update()  # type: ignore[attr-defined]
        time.sleep(0.002)


def run(args: argparse.Namespace, work: Path) -> None:
    os.environ["SERPENT_USER_DATA_PATH"] = str(work / "userdata")
    import tkinter as tk

    from serpent_tk.automation.caller import Caller
    from serpent_tk.automation.gateway import Gateway
    from serpent_tk.paths import app_dirs
    from serpent_tk.settings import SettingsStore
    from serpent_tk.ui.shell.bus import UiBus
    from serpent_tk.ui.shell.desktop import attach, enable_drops
    from serpent_tk.ui.shell.main_window import WindowServices

    print("making the pictures…", flush=True)
    files = work / "pictures"
    files.mkdir()
    data = big_jpeg()
    big = files / "big-24mp.jpg"
    big.write_bytes(data)
    for n in range(args.images):
        (files / f"step-{n:03d}.jpg").write_bytes(unique_variant("jpg", data, n))
    print(f"  {BIG[0]} × {BIG[1]} JPEG, {len(data) / 1e6:.1f} MB; {args.images} more like it")

    dirs = app_dirs().ensure()
    store = SettingsStore(dirs.settings_file)
    gateway = Gateway(store)
    root = tk.Tk(className="Serpent")
    services = WindowServices(bus=UiBus(), gateway=gateway, settings_store=store,
                              settings=store.load().settings, drops=enable_drops(root))
    window, close = attach(root, services)
    root.geometry("1600x1000+0+0")
    try:
        window.start()
        pump(root, lambda: window.session.current and window.pages.known, 60, "the library")
        gc.freeze()          # as the app does once started (app.settle_after_start_up)
        library_id = window.session.library_id

        def call(name: str, arguments: dict[str, object]) -> dict[str, object]:
            future = gateway.submit(name, {"libraryId": library_id, **arguments}, Caller.ui())
            pump(root, future.done, 600, name)
            envelope = future.result()
            assert envelope["status"] == "ok", envelope
            return envelope["result"]  # type: ignore[no-any-return]

        print("importing (thumbnails made by the library)…", flush=True)
        call("file.import", {"sourcePaths": [str(p) for p in sorted(files.iterdir())]})
        pump(root, lambda: window.pages.count() == args.images + 1, 120, "the grid")
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:        # let background analysis finish first
            tasks = call("task.list", {})
            if not any(t.get("status") in ("queued", "running") for t in tasks["items"]):
                break
            settle(root, 0.5)
        window.browser.set_sort("name-asc")
        pump(root, lambda: window.pages.known and window.pages.cell(0) is not None
             and window.pages.cell(0).title == "big-24mp", 60, "the sorted grid")
        viewer, grid = window.viewer, window.grid
        big_key = window.pages.cell(0).key
        for index in range(args.images + 1):      # every thumbnail the viewer will want
            key = window.pages.cell(index).key
            call("asset.thumbnail", {"assetId": key, "size": 1024})
        settle(root, 0.5)
        screen = (viewer.winfo_width() or 1200, viewer.winfo_height() or 800)

        full, drafted = pillow_baseline(big, screen, args.runs)
        print(f"\nPillow on the same file: full decode {full * 1000:.0f} ms; with draft() to "
              f"the screen {drafted * 1000:.0f} ms")

        first, sharp = [], []
        for _ in range(args.runs):
            viewer.decoder._sources.clear()
            viewer.decoder._infos.clear()
            grid.select_keys([big_key], focus=big_key)
            grid.canvas.focus_force()
            settle(root, 0.3)
            swaps = viewer.picture.swaps
            started = time.perf_counter()
            grid.canvas.event_generate("<space>")
            pump(root, lambda s=swaps: viewer.picture.swaps > s, 30, "the first picture")
            first.append(time.perf_counter() - started)
            pump(root, lambda: viewer.sharp, 60, "the sharp picture")
            sharp.append(time.perf_counter() - started)
            viewer.canvas.event_generate("<Escape>")
            settle(root, 0.2)
        f, s = statistics.median(first), statistics.median(sharp)
        print(f"Space → first picture: {f * 1000:.0f} ms ({f / full:.2f}× Pillow's full "
              f"decode); → decoded for the screen: {s * 1000:.0f} ms ({s / full:.2f}× full "
              f"decode, {s / drafted:.2f}× Pillow's draft decode)  [median of {args.runs}, "
              f"cold]")
        record("viewer: Space to the first picture (24 MP)", f * 1000, "ms",
               baseline=full * 1000, target="")
        record("viewer: Space to the picture decoded for the screen", s * 1000, "ms",
               baseline=full * 1000, target="")

        beat = Heartbeat(root)
        settle(root, 0.5)
        beat.reset()
        settle(root, 3.0)
        idle = beat.worst
        for mode, pace in (("each sharp", None), (f"every {args.pace * 1000:.0f} ms",
                                                  args.pace)):
            viewer.decoder._sources.clear()
            window.open_viewer([big_key])
            pump(root, lambda: viewer.sharp, 60, "the first picture")
            beat.reset()
            started = time.perf_counter()
            for _ in range(args.images):
                viewer.canvas.event_generate("<Right>")
                if pace is None:
                    pump(root, lambda: viewer.sharp, 60, "a sharp picture")
                else:
                    settle(root, pace)
            pump(root, lambda: viewer.sharp, 60, "the last picture")
            took = time.perf_counter() - started
            print(f"stepping through {args.images} × 24 MP ({mode}): worst Tk stall "
                  f"{beat.worst * 1000:.0f} ms (idle window: {idle * 1000:.0f} ms; "
                  f"{'OK' if beat.worst <= 0.100 else 'OVER 100 ms'}), {took:.1f} s in all")
            record(f"viewer: worst Tk stall stepping through {args.images} × 24 MP ({mode})",
                   beat.worst * 1000, "ms", baseline=idle * 1000, target="<= 100 ms")
            viewer.close()
            settle(root, 0.3)
    finally:
        close()
        gateway.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--images", type=int, default=50)
    parser.add_argument("--pace", type=float, default=0.12,
                        help="seconds between steps in the quick pass")
    args = parser.parse_args()
    xvfb = None
    if not os.environ.get("DISPLAY"):
        read_fd, write_fd = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0",
                                 "1920x1080x24", "-nolisten", "tcp"], pass_fds=(write_fd,),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_fd)
        with os.fdopen(read_fd) as reader:
            os.environ["DISPLAY"] = ":" + reader.readline().strip()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-viewer-"))
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
