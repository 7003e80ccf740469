"""Thumbnails for the grid and the inspector, loaded without blocking the window.

The Tk thread asks (`image`, `want`, `preview`); the picture's file path comes from the
gateway command `asset.thumbnail`, Pillow decodes and scales it on a decoder thread, and
only the last step (making a Tk PhotoImage, which must happen on the Tk thread) arrives
through the UiBus. A bounded number of requests are in flight, newest-visible first; cells
that scrolled away are dropped from the queue.
"""

from __future__ import annotations

import logging
import time
import tkinter as tk
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from library.errors import ErrorCode
from serpent_tk.automation import envelope as envelopes
from serpent_tk.automation.envelope import Envelope
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.events import RunOnTk

if TYPE_CHECKING:
    from PIL import Image, ImageTk

log = logging.getLogger(__name__)

SIZE_BUCKETS = (128, 192, 256, 384, 512, 768, 1024, 1568)
RETRY_AFTER_S = 3.0          # a thumbnail still being made: ask again after this
PIXEL_BUDGET = 24_000_000    # decoded pictures kept (about 100 MB of Tk photo memory)
UNSUPPORTED_CODES = {ErrorCode.UNSUPPORTED_FORMAT, ErrorCode.NOT_FOUND}
# why a picture shows no thumbnail, in words (the library's `reason`; UNREADABLE: the
# thumbnail file itself could not be decoded here)
PROBLEMS = {"damaged": N_("Damaged file"), "not-an-image": N_("Can't read this format"),
            "too-large": N_("Too large to preview"), "file-missing": N_("File missing"),
            "UNREADABLE": N_("Preview unreadable")}


def problem_words(reason: str | None, picture: bool = True) -> str:
    """What a cell or the inspector says instead of a picture ("" when nothing is wrong:
    a PDF simply has no picture, whatever the thumbnailer thought of it; only a missing
    file is worth saying for every kind)."""
    if not reason or (not picture and reason != "file-missing"):
        return ""
    return _(PROBLEMS.get(reason, N_("No preview")))


def bucket(pixels: int) -> int:
    """The thumbnail size to ask the library for: a few fixed sizes, so they get reused."""
    for size in SIZE_BUCKETS:
        if size >= pixels:
            return size
    return SIZE_BUCKETS[-1]


def decode(path: str, pixels: int) -> Image.Image:
    """Runs on a decoder thread: the file at `path`, fitted into a `pixels` square."""
    from PIL import Image, ImageOps  # loaded off the Tk thread, after the window is up

    with Image.open(path) as opened:
        opened.draft("RGB", (pixels, pixels))
        image = ImageOps.exif_transpose(opened)
        if image.mode not in ("RGB", "RGBA"):
            has_alpha = image.mode in ("LA", "PA", "P") and (
                image.mode != "P" or "transparency" in image.info)
            image = image.convert("RGBA" if has_alpha else "RGB")
        image.thumbnail((pixels, pixels), Image.Resampling.BICUBIC, reducing_gap=2.0)
        image.load()
        return image


class Thumbnails:
    """Decoded thumbnails keyed by (asset id, pixels). Tk thread API."""

    def __init__(self, root: tk.Misc, commands: Any, bus: UiBus, *, max_in_flight: int = 4,
                 max_images: int = 500) -> None:
        self.root = root
        self.commands = commands
        self.bus = bus
        self.library_id: str | None = None
        self.on_ready: Callable[[str], None] = lambda key: None
        self.on_retry_due: Callable[[], None] = lambda: None
        self._retry_scheduled = False
        self.max_in_flight = max_in_flight
        self.max_images = max_images
        self._images: OrderedDict[tuple[str, int], ImageTk.PhotoImage] = OrderedDict()
        self._pixels = 0
        self._wanted: list[tuple[str, int]] = []
        self._in_flight: set[tuple[str, int]] = set()
        self._failed: dict[tuple[str, int], float] = {}
        self._reasons: dict[str, str] = {}     # asset id -> why it has no thumbnail
        self._waiters: dict[tuple[str, int], list[Callable[[tk.PhotoImage | None], None]]] = {}
        self._generation = 0
        self._decoder = ThreadPoolExecutor(max_workers=2, thread_name_prefix="thumb-decode")

    def set_library(self, library_id: str | None) -> None:
        """Another library is shown: forget everything of the old one."""
        self.library_id = library_id
        self._generation += 1
        self._images.clear()
        self._pixels = 0
        self._wanted.clear()
        self._in_flight.clear()
        self._failed.clear()
        self._reasons.clear()
        self._waiters.clear()

    def forget_failures(self) -> None:
        """The library changed: thumbnails that were missing may exist now."""
        self._failed.clear()

    def problem(self, key: str) -> str | None:
        """Why `key` has no thumbnail (the library's reason), if it failed to get one."""
        return self._reasons.get(key)

    def forget(self, keys: Sequence[str]) -> None:
        for entry in [e for e in self._images if e[0] in keys]:
            photo = self._images.pop(entry)
            self._pixels -= photo.width() * photo.height()

    # ThumbnailSource ---------------------------------------------------------------------
    def image(self, key: str, pixels: int) -> tk.PhotoImage | None:
        entry = (key, pixels)
        photo = self._images.get(entry)
        if photo is not None:
            self._images.move_to_end(entry)
        return photo  # type: ignore[return-value]

    def largest(self, key: str) -> tk.PhotoImage | None:
        """The biggest picture of `key` decoded so far (any size), or None: what the viewer
        shows the instant it opens, before its own decode arrives."""
        found = [(pixels, photo) for (k, pixels), photo in self._images.items() if k == key]
        return max(found, key=lambda pair: pair[0])[1] if found else None  # type: ignore[return-value]

    def want(self, keys: Sequence[str], pixels: int | Sequence[int]) -> None:
        """`pixels`: one size for every key, or each key's own (the justified grid)."""
        now = time.monotonic()
        sizes = [pixels] * len(keys) if isinstance(pixels, int) else list(pixels)
        self._wanted = [
            entry for entry in zip(keys, sizes, strict=False)
            if entry not in self._images and entry not in self._in_flight
            and self._failed.get(entry, 0.0) <= now]
        self._pump()

    def preview(self, key: str, pixels: int,
                deliver: Callable[[tk.PhotoImage | None], None]) -> None:
        """One larger picture (the inspector); `deliver` runs on the Tk thread."""
        entry = (key, pixels)
        photo = self._images.get(entry)
        if photo is not None:
            deliver(photo)  # type: ignore[arg-type]
            return
        self._waiters.setdefault(entry, []).append(deliver)
        if entry not in self._in_flight:
            self._start(entry)

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    # loading -----------------------------------------------------------------------------
    def _pump(self) -> None:
        while self._wanted and len(self._in_flight) < self.max_in_flight:
            self._start(self._wanted.pop(0))

    def _start(self, entry: tuple[str, int]) -> None:
        if self.library_id is None:
            return
        key, pixels = entry
        generation = self._generation
        self._in_flight.add(entry)
        future: Future[Envelope] = self.commands.submit(
            "asset.thumbnail",
            {"libraryId": self.library_id, "assetId": key, "size": bucket(pixels)})

        def answered(f: Future[Envelope]) -> None:       # any thread: no Tk here
            if generation != self._generation or f.cancelled():
                return                     # another library, or the window is gone
            try:
                envelope = f.result()
            except Exception as failure:
                envelope = envelopes.failed(ErrorCode.INTERNAL, str(failure))
            if envelope["status"] != "ok":
                error = envelopes.error_of(envelope)
                code = error["code"] if error is not None else None
                reason = error.get("reason", "") if error is not None \
                    and code in UNSUPPORTED_CODES else ""
                self.bus.post(RunOnTk(self._failed_to_load, (generation, entry, code,
                                                             reason)))
                return
            path = str(envelope["result"]["path"])
            try:
                self._decoder.submit(self._decode, generation, entry, path)
            except RuntimeError:  # the window is closing: its decoder has stopped
                return

        future.add_done_callback(answered)

    def _decode(self, generation: int, entry: tuple[str, int], path: str) -> None:
        try:
            image = decode(path, entry[1])
        except Exception as error:  # a damaged thumbnail file must not stop the others
            log.info("thumbnail %s not decoded: %s", entry[0], error)
            self.bus.post(RunOnTk(self._failed_to_load, (generation, entry, "UNREADABLE",
                                                         "UNREADABLE")))
            return
        self.bus.post(RunOnTk(self._decoded, (generation, entry, image)))

    def _decoded(self, generation: int, entry: tuple[str, int], image: Image.Image) -> None:
        if generation != self._generation:
            return
        self._in_flight.discard(entry)
        from PIL import ImageTk

        try:
            photo = ImageTk.PhotoImage(image, master=self.root)
        except tk.TclError:          # the window is closing
            return
        self._images[entry] = photo
        self._reasons.pop(entry[0], None)
        self._pixels += photo.width() * photo.height()
        while len(self._images) > 1 and (len(self._images) > self.max_images
                                         or self._pixels > PIXEL_BUDGET):
            _key, oldest = self._images.popitem(last=False)
            self._pixels -= oldest.width() * oldest.height()
        for deliver in self._waiters.pop(entry, ()):
            deliver(photo)  # type: ignore[arg-type]
        self.on_ready(entry[0])
        self._pump()

    def _failed_to_load(self, generation: int, entry: tuple[str, int], code: str | None,
                        reason: str = "") -> None:
        if generation != self._generation:
            return
        self._in_flight.discard(entry)
        if reason and self._reasons.get(entry[0]) != reason:
            self._reasons[entry[0]] = reason
            self.on_ready(entry[0])              # its cell says why now
        wait = 3600.0 if code in UNSUPPORTED_CODES else RETRY_AFTER_S
        self._failed[entry] = time.monotonic() + wait
        if wait == RETRY_AFTER_S and not self._retry_scheduled:
            self._retry_scheduled = True
            self.root.after(int(RETRY_AFTER_S * 1000) + 50, self._retry)
        for deliver in self._waiters.pop(entry, ()):
            deliver(None)
        self._pump()

    def _retry(self) -> None:
        self._retry_scheduled = False
        self.on_retry_due()

    def shutdown(self) -> None:
        self._generation += 1            # a picture still on its way is for nobody now
        self._decoder.shutdown(wait=False, cancel_futures=True)
