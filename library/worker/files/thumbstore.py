"""The thumbnail store: `thumbs/<ab>/<sha256>_<size>.jpg|png`, made on demand with Pillow.

Runs in the worker process, on the `derive` threads (never the writer): it writes only
derived files under `thumbs/`, never SQLite. A thumbnail is keyed by the asset's content
hash and a size bucket, so renaming an asset never invalidates it and identical content
shares it; an image no larger than the bucket gets one `full` thumbnail for every bucket.
Generation is fast for big photos: JPEG is decoded at 1/2, 1/4 or 1/8 scale (`draft`, never
below the target size), other formats are shrunk with `reduce` before the final resample
(`thumbnail(reducing_gap=...)`). EXIF
orientation is applied; an image with real transparency is stored as PNG, others as JPEG.
Files appear atomically (written in `thumbs/.tmp/`, then `os.replace`), and one lock per
thumbnail makes concurrent requests for the same one wait for a single generation.
A file that cannot be decoded leaves a small `<sha256>.failed` marker (with the decoder
versions), so it is not decoded again and again until Serpent's decoders change. A served
thumbnail's mtime is its last use (refreshed at most every `TOUCH_AFTER`), which the size
cap (`thumbcap`) evicts by. `store_for` hands out the one store of a library per worker
process, shared by the thumbnail commands, analysis and deletes.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageFile, UnidentifiedImageError

from library.media import readers
from library.worker.files import imageformats
from library.worker.store.filestore import PRIVATE_FILE, PRIVATE_FOLDER, stored_mode
from library.worker.store.layout import Layout

BUCKETS = (64, 128, 192, 256, 384, 512, 768, 1024, 1568)
FULL = "full"
JPEG_QUALITY = 85
REDUCING_GAP = 2.0
MAX_DECODE_PIXELS = 150_000_000  # after draft(): about 450 MB of RGB, no more
BIG_DECODE_PIXELS = 25_000_000  # above this, one decode at a time (bounds the worker's memory)
_TRANSPOSE = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
              4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
              6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
              8: Image.Transpose.ROTATE_90}
_ORIENTATION_TAG = 0x0112
_MIMES = {"jpg": "image/jpeg", "png": "image/png"}
TOUCH_AFTER = 600.0  # seconds: a served thumbnail's mtime is moved to "now" once this old


@dataclass(frozen=True)
class Thumb:
    path: Path
    mime: str
    width: int
    height: int


class NoThumbnail(Exception):
    """This file gives no thumbnail: `reason` is not-an-image, damaged or too-large."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def bucket_for(size: int, width: int | None, height: int | None) -> str:
    """The cache bucket for a request of `size` px (longest side) of a `width`x`height` image."""
    chosen = next((b for b in BUCKETS if b >= size), BUCKETS[-1])
    if width and height and max(width, height) <= chosen:
        return FULL  # the image itself fits: one thumbnail serves every larger bucket
    return str(chosen)


class ThumbStore:
    """Thumbnails of one library. Thread-safe."""

    def __init__(self, layout: Layout) -> None:
        self.root = layout.thumbs
        self.tmp = self.root / ".tmp"
        self._locks: dict[str, tuple[threading.Lock, int]] = {}
        self._locks_guard = threading.Lock()
        self._decoders = imageformats.decoder_versions()
        self.on_written: Callable[[int], None] | None = None  # bytes of each new file
        self._folders_made: set[str] = set()  # `<ab>` folders known to exist
        shutil.rmtree(self.tmp, ignore_errors=True)  # leftovers of a crash: never final names
        self.tmp.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)

    # -- where things are ------------------------------------------------------------------
    def _folder(self, sha256: str) -> Path:
        return self.root / sha256[:2]

    def _candidates(self, sha256: str, bucket: str) -> list[Path]:
        folder = self._folder(sha256)
        return [folder / f"{sha256}_{bucket}.{ext}" for ext in _MIMES]

    def _marker(self, sha256: str) -> Path:
        return self._folder(sha256) / f"{sha256}.failed"

    def _partial_marker(self, sha256: str) -> Path:
        return self._folder(sha256) / f"{sha256}.partial"

    def partial(self, sha256: str) -> bool:
        """Was this content's picture cut off (a truncated file shown as far as it goes)?"""
        return self._partial_marker(sha256).exists()

    # -- reading ---------------------------------------------------------------------------
    def cached_for(self, sha256: str, size: int, width: int | None,
                   height: int | None) -> Thumb | None:
        """The thumbnail `get` would answer, if it is made already (no decoding, no lock)."""
        return self.cached(sha256, bucket_for(size, width, height))

    def cached(self, sha256: str, bucket: str) -> Thumb | None:
        for path in self._candidates(sha256, bucket):
            try:
                with Image.open(path) as image:
                    width, height = image.size
            except FileNotFoundError:
                continue
            except (OSError, UnidentifiedImageError, ValueError):
                path.unlink(missing_ok=True)  # a torn file (power cut): make it again
                continue
            _mark_used(path)
            return Thumb(path, _MIMES[path.suffix[1:]], width, height)
        return None

    def has_any(self, sha256: str, names_in_folder: set[str] | None = None) -> bool:
        """Is some thumbnail of this content made already? (`names_in_folder`: a listing.)"""
        names = names_in_folder if names_in_folder is not None else self.listing(sha256[:2])
        prefix = f"{sha256}_"
        return any(name.startswith(prefix) for name in names)

    def listing(self, prefix: str) -> set[str]:
        try:
            return set(os.listdir(self.root / prefix))
        except OSError:
            return set()

    def failure(self, sha256: str) -> dict[str, Any] | None:
        """The failure recorded for this content by today's decoders, if any."""
        try:
            data = json.loads(self._marker(sha256).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("decoders") != self._decoders:
            return None  # Serpent's decoders changed since: worth another try
        return data

    # -- making ----------------------------------------------------------------------------
    def get(self, source: Path, sha256: str, ext: str, size: int, width: int | None,
            height: int | None, *, fresh: bool = False) -> Thumb:
        """The thumbnail of `source` for `size`, made now if needed. Raises NoThumbnail.

        `fresh`: the content was imported just now, so nothing of it is on disk yet unless
        another thread made it meanwhile (an import's previews: each lookup that finds
        nothing is a file opened in vain, with the GIL given up and fought for again)."""
        bucket = bucket_for(size, width, height)
        found = None if fresh else self.cached(sha256, bucket)
        if found is not None:
            return found
        with self._lock(f"{sha256}_{bucket}"):
            found = self.cached(sha256, bucket)  # another thread may have just made it
            if found is not None:
                return found
            failed = None if fresh else self.failure(sha256)
            if failed is not None:
                raise NoThumbnail(str(failed.get("reason", "damaged")),
                                  str(failed.get("message", "The file cannot be decoded.")))
            box = BUCKETS[-1] if bucket == FULL else int(bucket)
            try:
                image, has_alpha, cut_off = render(source, box, ext)
            except NoThumbnail as problem:
                if problem.reason == "not-an-image" and imageformats.decodable_ext(ext):
                    problem = NoThumbnail("damaged", "The image file is damaged and cannot "
                                          "be decoded.")  # a .png Pillow cannot identify
                if problem.reason != "not-an-image":
                    self._remember_failure(sha256, problem)
                raise problem from None
            if cut_off:
                self._remember_partial(sha256)
            try:  # a preview shows the picture: no more readable than the picture
                mode = stored_mode(os.stat(source).st_mode)
            except OSError:
                mode = PRIVATE_FILE
            return self._write(image, has_alpha, sha256, bucket, mode)

    def _write(self, image: Image.Image, has_alpha: bool, sha256: str, bucket: str,
               mode: int) -> Thumb:
        """Write the thumbnail through the descriptor that creates it (with its `mode`), then
        give it its name; a folder made once is remembered (an import makes thousands)."""
        ext = "png" if has_alpha else "jpg"
        final = self._folder(sha256) / f"{sha256}_{bucket}.{ext}"
        if sha256[:2] not in self._folders_made:
            final.parent.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
            self._folders_made.add(sha256[:2])
        temporary = self.tmp / f"{sha256}_{bucket}.{secrets.token_hex(6)}.{ext}"
        try:
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode),
                           "wb") as handle:
                if has_alpha:
                    image.save(handle, "PNG", compress_level=3)
                else:
                    # no `optimize`: its second pass cost more than the save itself
                    # (0.30 against 0.14 ms a preview) for files 6 % smaller
                    image.save(handle, "JPEG", quality=JPEG_QUALITY)
                size = handle.tell()
            try:
                os.replace(temporary, final)
            except FileNotFoundError:  # its folder was removed meanwhile (by hand): again
                final.parent.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
                os.replace(temporary, final)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        written = self.on_written
        if written is not None:
            written(size)
        return Thumb(final, _MIMES[ext], image.width, image.height)

    def _remember_failure(self, sha256: str, problem: NoThumbnail) -> None:
        marker = self._marker(sha256)
        temporary = self.tmp / f"{sha256}.{secrets.token_hex(6)}.failed"
        try:
            marker.parent.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
            temporary.write_text(json.dumps({"reason": problem.reason,
                                             "message": problem.message,
                                             "decoders": self._decoders}), "utf-8")
            os.replace(temporary, marker)
        except OSError:
            temporary.unlink(missing_ok=True)  # only a shortcut: failing to save it is fine

    def _remember_partial(self, sha256: str) -> None:
        marker = self._partial_marker(sha256)
        try:
            marker.parent.mkdir(PRIVATE_FOLDER, parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # only a note for analysis (asset problem "truncated")

    def remove(self, sha256: str) -> None:
        """Forget every thumbnail (and failure) of this content."""
        self.remove_many([sha256])

    def remove_many(self, hashes: Iterable[str]) -> None:
        """Forget every thumbnail (and failure) of these contents (one listing per folder)."""
        by_folder: dict[str, list[str]] = {}
        for sha256 in hashes:
            by_folder.setdefault(sha256[:2], []).append(sha256)
        for prefix, wanted in by_folder.items():
            for name in self.listing(prefix):
                if name.split("_", 1)[0].split(".", 1)[0] in wanted:
                    (self.root / prefix / name).unlink(missing_ok=True)

    @contextmanager
    def _lock(self, key: str) -> Iterator[None]:
        with self._locks_guard:
            lock, users = self._locks.get(key, (threading.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._locks_guard:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)


_stores: dict[Path, ThumbStore] = {}
_stores_lock = threading.Lock()


def store_for(layout: Layout) -> ThumbStore:
    """The one ThumbStore of this library in this worker."""
    with _stores_lock:
        store = _stores.get(layout.root)
        if store is None:
            store = _stores[layout.root] = ThumbStore(layout)
        return store


def _mark_used(path: Path) -> None:
    """Record a use in the file's mtime (what the size cap evicts by), at most every
    TOUCH_AFTER seconds per file."""
    try:
        if time.time() - path.stat().st_mtime > TOUCH_AFTER:
            os.utime(path)
    except OSError:
        pass  # a read-only library: its thumbnails simply age


# -- decoding ------------------------------------------------------------------------------
class _Decoding:
    """Decoders run side by side, except while a cut-off file is decoded: Pillow's
    `LOAD_TRUNCATED_IMAGES` is one switch for the whole process, and a damaged file decoded
    while it is on would pass for a picture. Thread-safe."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writer)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writer)
            self._writer = True
            self._cond.wait_for(lambda: self._readers == 0)
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


_decoding = _Decoding()


def render(source: Path, box: int, ext: str = "") -> tuple[Image.Image, bool, bool]:
    """`source` scaled to fit a `box` square, upright; whether it has real transparency; and
    whether the file was cut off (shown as far as it goes). A file a reader of
    `library.media` takes (SVG, video, sound, font, PDF) is drawn by it.

    Raises NoThumbnail for what cannot be shown; FileNotFoundError when the file is gone.
    """
    if readers.reads(ext):
        try:
            drawn = readers.picture(source, ext, box)
        except readers.Unreadable:
            raise NoThumbnail("damaged", "The file is damaged and cannot be shown.") from None
        return (*_decoded(drawn, (box, box)), False)
    try:
        with _decoding.shared(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's complaints about odd files
            with Image.open(source, formats=imageformats.thumbnail_formats()) as opened:
                return (*_scaled(opened, box), False)
    except (NoThumbnail, FileNotFoundError):
        raise
    except UnidentifiedImageError:
        raise NoThumbnail("not-an-image", "This file is not an image Serpent can show.") \
            from None
    except Exception as error:  # a decoder meeting bad data can raise nearly anything
        if not (isinstance(error, OSError) and "truncated" in str(error).lower()):
            raise NoThumbnail("damaged", "The image file is damaged and cannot be decoded.") \
                from None
    return (*_render_truncated(source, box), True)


def _render_truncated(source: Path, box: int) -> tuple[Image.Image, bool]:
    """A cut-off file (an interrupted download): show what is there, like image viewers do."""
    with _decoding.exclusive():
        ImageFile.LOAD_TRUNCATED_IMAGES = True
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with Image.open(source, formats=imageformats.thumbnail_formats()) as opened:
                    return _scaled(opened, box)
        except NoThumbnail:
            raise
        except Exception:
            raise NoThumbnail("damaged", "The image file is damaged and cannot be decoded.") \
                from None
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = False


def _scaled(image: Image.Image, box: int) -> tuple[Image.Image, bool]:
    target = (box, box)
    image.draft(None, target)  # JPEG: decode at 1/2..1/8 scale (DCT scaling averages well)
    width, height = image.size
    if width * height > MAX_DECODE_PIXELS:
        raise NoThumbnail("too-large", f"The image is too large to preview ({width}x{height}).")
    if width * height > BIG_DECODE_PIXELS:
        with _big_decode:
            return _decoded(image, target)
    return _decoded(image, target)


_big_decode = threading.Lock()


def _decoded(image: Image.Image, target: tuple[int, int]) -> tuple[Image.Image, bool]:
    image.load()  # decoding errors surface here (JPEG: at the draft scale)
    orientation = _orientation(image) if image.format else 1  # a reader's picture is upright
    frame: Image.Image = image
    if frame.mode in ("P", "PA"):
        frame = frame.convert("RGBA" if _palette_alpha(frame) else "RGB")
    elif frame.mode == "1":
        frame = frame.convert("L")
    elif frame.mode.startswith("I;16"):
        frame = frame.point(lambda value: value * (1 / 256)).convert("L")
    elif frame.mode in ("I", "F"):
        frame = _stretched(frame)
    frame.thumbnail(target, Image.Resampling.BICUBIC, reducing_gap=REDUCING_GAP)
    if frame is image:
        frame = frame.copy()  # detached from the file, which closes on return
    if orientation in _TRANSPOSE:
        frame = frame.transpose(_TRANSPOSE[orientation])
    if frame.mode in ("RGBA", "LA", "RGBa", "La"):
        frame = frame.convert("RGBA")
        lowest_alpha = frame.getchannel("A").getextrema()[0]  # one band: (low, high) ints
        if isinstance(lowest_alpha, int | float) and lowest_alpha < 255:
            return frame, True
        return frame.convert("RGB"), False
    if frame.mode not in ("RGB", "L"):
        frame = frame.convert("RGB")
    return frame, False


def _orientation(image: Image.Image) -> int:
    try:
        return int(image.getexif().get(_ORIENTATION_TAG, 1))
    except Exception:  # a broken EXIF block: show the picture as stored
        return 1


def _palette_alpha(image: Image.Image) -> bool:
    return image.mode == "PA" or "transparency" in image.info


def _stretched(image: Image.Image) -> Image.Image:
    """A 32-bit integer or float image (scientific TIFF) mapped onto 0-255 by its range."""
    low, high = image.getextrema()
    assert isinstance(low, int | float) and isinstance(high, int | float)  # one band
    scale = 255 / (high - low) if high != low else 0
    return image.point(lambda value: (value - low) * scale).convert("L")
