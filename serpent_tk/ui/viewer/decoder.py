"""Reading pictures for the viewer with Pillow (SVG, PDF, video, sound and fonts drawn by
`library.media`'s readers), on a decoder thread of its own.

Thread-safe: the Tk thread only queues requests (`preview`, `render`, `frames`, `prefetch`)
and gets the answers through `deliver` (which posts them to the UiBus). One thread does the
work, newest request of each kind first: a request not started yet is replaced by a newer
one (stepping quickly through 50 pictures decodes the one you stop at, not all 50). The
picture is decoded at the coarsest power-of-two reduction that still has the pixels the
screen needs (JPEG's `draft()` makes that nearly free), EXIF orientation applied, and the
decoded sources are kept within a pixel budget so stepping back, zooming and panning
reuse them. The Tk thread never decodes: it only turns the small results into PhotoImages.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.viewer.zoom import Region, ZoomPan, reduction_for

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

SOURCE_BUDGET = 40_000_000      # decoded pixels kept (about 120 MB of RGB)
MAX_SOURCE_PIXELS = 150_000_000  # after reduction; beyond this the file is "too large"
MAX_FRAMES = 1000
FRAME_BUDGET = 30_000_000        # pixels of all decoded frames of one animation
MIN_FRAME_MS = 20                # browsers treat shorter GIF delays as 100 ms
DEFAULT_FRAME_MS = 100
ORDER = ("render", "preview", "frames", "strip", "prefetch")
DRAWN_BOX = 1024  # px: a font's specimen and a sound's waveform are drawn this wide
Deliver = Callable[[Callable[..., None], tuple[Any, ...]], None]


class DecodeError(Exception):
    """Why a file shows no picture: `reason` is missing, unsupported, damaged or
    too-large; `message` is a sentence for people."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class PictureInfo:
    width: int          # after EXIF orientation
    height: int
    format: str         # "JPEG", "PNG", "GIF", ...
    frames: int         # 1 for a still picture

    @property
    def animated(self) -> bool:
        return self.frames > 1


@dataclass(frozen=True)
class Frames:
    images: list[Image.Image]
    durations: list[int]   # milliseconds per frame
    loop: int              # 0: forever


def why(error: BaseException) -> DecodeError:
    """The person's words for a Pillow or file error."""
    from PIL import Image, UnidentifiedImageError

    if isinstance(error, DecodeError):
        return error
    if isinstance(error, FileNotFoundError):
        return DecodeError("missing", _("Its file is missing from the library folder."))
    if isinstance(error, UnidentifiedImageError):
        return DecodeError("unsupported", _("Serpent can't read this format."))
    if isinstance(error, Image.DecompressionBombError):
        return DecodeError("too-large", _("The picture is too large to show here."))
    if isinstance(error, (OSError, SyntaxError, ValueError, EOFError)):
        return DecodeError("damaged", _("The file is damaged: its picture can't be read to "
                                        "the end."))
    return DecodeError("damaged", _("The picture could not be read ({error}).").format(
        error=type(error).__name__))


def pictured(asset: dict[str, Any]) -> bool:
    """Does the viewer show this asset (a grid summary or an `asset.get` item) as a picture:
    a picture, or a file a reader of `library.media` draws?"""
    from library.media import readers

    return asset.get("kind") == "image" or readers.reads(str(asset.get("ext") or ""))


def drawn(path: str) -> bool:
    """Is this stored file drawn by a reader of `library.media` (SVG, video, sound, font,
    PDF) rather than decoded by Pillow? (A stored file's suffix is its extension.)"""
    from library.media import readers

    return readers.reads(_ext(path))


def _ext(path: str) -> str:
    return PurePath(path).suffix[1:].lower()


def probe(path: str) -> PictureInfo:
    """The picture's size (as shown, after EXIF orientation), format and frame count; reads
    only the header. A drawn file's size is its drawing's (a font's specimen and a sound's
    waveform: `DRAWN_BOX` wide)."""
    from PIL import Image

    if drawn(path):
        from library.media import readers

        try:
            facts = readers.facts(path, _ext(path))
            if facts.width and facts.height:
                return PictureInfo(facts.width, facts.height, str(facts.format or ""), 1)
            picture = readers.picture(path, _ext(path), DRAWN_BOX)
        except readers.Unreadable:
            raise DecodeError("damaged", _("The file is damaged: it can't be read.")) from None
        return PictureInfo(picture.width, picture.height, str(facts.format or ""), 1)
    with Image.open(path) as image:
        width, height = image.size
        orientation = image.getexif().get(0x0112, 1) if hasattr(image, "getexif") else 1
        if orientation in (5, 6, 7, 8):
            width, height = height, width
        frames = int(getattr(image, "n_frames", 1) or 1)
        return PictureInfo(width, height, str(image.format or ""), frames)


def decode_source(path: str, reduction: int) -> Image.Image:
    """The whole picture at 1/`reduction` of its size, oriented, in RGB or RGBA (a drawn
    file drawn at that size)."""
    from PIL import Image, ImageOps

    if drawn(path):
        return _drawn_source(path, reduction)
    with Image.open(path) as image:
        width, height = image.size
        wanted = (max(1, math.ceil(width / reduction)), max(1, math.ceil(height / reduction)))
        if wanted[0] * wanted[1] > MAX_SOURCE_PIXELS:
            raise DecodeError("too-large", _("The picture is too large to show here."))
        image.draft(None, wanted)          # JPEG: decode at 1/2, 1/4, 1/8 straight away
        picture = ImageOps.exif_transpose(image)
        picture = _rgb(picture)
        # formats without draft() come out whole: reduce them (long sides: orientation-proof)
        factor = min(reduction, max(picture.size) // max(1, max(wanted)))
        if factor >= 2:
            picture = picture.reduce(factor)
        picture.load()
        return picture


def _drawn_source(path: str, reduction: int) -> Image.Image:
    from library.media import readers

    info = probe(path)
    box = max(1, math.ceil(max(info.width, info.height) / reduction))
    if box * box > MAX_SOURCE_PIXELS:
        raise DecodeError("too-large", _("The picture is too large to show here."))
    try:
        return _rgb(readers.picture(path, _ext(path), box))
    except readers.Unreadable:
        raise DecodeError("damaged", _("The file is damaged: it can't be read.")) from None


def video_strip(path: str, count: int, box: int) -> list[tuple[float, Image.Image]]:
    """`count` frames spread over a video, each fitting `box` (its time in seconds)."""
    from library.media import video

    try:
        return video.frames(path, count, box)
    except video.BadVideo:
        raise DecodeError("damaged", _("The video is damaged: its frames can't be "
                                       "read.")) from None


def _rgb(image: Image.Image) -> Image.Image:
    if image.mode in ("RGB", "RGBA"):
        return image
    has_alpha = image.mode in ("LA", "PA", "RGBa", "La") or (
        image.mode == "P" and "transparency" in image.info)
    return image.convert("RGBA" if has_alpha else "RGB")


def render_region(source: Image.Image, info: PictureInfo, region: Region,
                  scale: float) -> Image.Image:
    """`region` (image pixels of the whole picture `info`) of a decoded `source` (the whole
    picture, maybe reduced), at the screen size."""
    from PIL import Image

    sx, sy = source.width / info.width, source.height / info.height
    box = (region.left * sx, region.top * sy, min(source.width, region.right * sx),
           min(source.height, region.bottom * sy))
    size = (region.out_width, region.out_height)
    shrink = region.out_width / max(1.0, box[2] - box[0])
    if scale > 2:            # up close, pixels stay crisp squares (what an artist wants)
        return source.resize(size, Image.Resampling.NEAREST, box=box)
    if shrink >= 0.5:        # a mild step (the source was decoded near this size): fast
        return source.resize(size, Image.Resampling.BILINEAR, box=box)
    return source.resize(size, Image.Resampling.BICUBIC, box=box, reducing_gap=2.0)


def decode_frames(path: str, width: int, height: int) -> Frames:
    """Every frame of an animation fitted into `width` × `height`, within the budgets."""
    from PIL import Image, ImageSequence

    images: list[Image.Image] = []
    durations: list[int] = []
    with Image.open(path) as image:
        loop = int(image.info.get("loop", 0) or 0)
        scale = min(1.0, width / image.width, height / image.height)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        used = 0
        for frame in ImageSequence.Iterator(image):
            if len(images) >= MAX_FRAMES or used + size[0] * size[1] > FRAME_BUDGET:
                break
            duration = int(frame.info.get("duration") or DEFAULT_FRAME_MS)
            picture = frame.convert("RGBA")
            if picture.size != size:
                picture = picture.resize(size, Image.Resampling.BICUBIC)
            images.append(picture)
            durations.append(duration if duration >= MIN_FRAME_MS else DEFAULT_FRAME_MS)
            used += size[0] * size[1]
    if not images:
        raise DecodeError("damaged", _("The animation has no frame that can be read."))
    return Frames(images, durations, loop)


@dataclass
class _Job:
    kind: str
    token: int
    work: Callable[[], Any]
    done: Callable[..., None]


class PictureDecoder:
    """One decoder thread; answers go through `deliver(fn, args)` (to the Tk thread)."""

    def __init__(self, deliver: Deliver) -> None:
        self.deliver = deliver
        self._jobs: dict[str, _Job] = {}
        self._wake = threading.Condition()
        self._sources: OrderedDict[tuple[str, int], Image.Image] = OrderedDict()
        self._infos: dict[str, PictureInfo] = {}
        self._pixels = 0
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="viewer-decode", daemon=True)
        self._thread.start()

    # requests (any thread) ---------------------------------------------------------------
    def preview(self, token: int, thumbnail: str, width: int, height: int,
                done: Callable[[int, Image.Image | None, DecodeError | None], None]) -> None:
        """The library's thumbnail file scaled to `width` × `height` (a soft first picture)."""
        self._submit("preview", token, lambda: _scaled_file(thumbnail, width, height), done)

    def render(self, token: int, path: str, view: ZoomPan,
               done: Callable[[int, Any, DecodeError | None], None]) -> None:
        """The part of `path` the screen needs at `view`'s zoom: answers
        (PictureInfo, Region, Image)."""
        region, scale = view.region(), view.scale
        self._submit("render", token, lambda: self._render(path, region, scale), done)

    def open(self, token: int, path: str, view_width: int, view_height: int,
             done: Callable[[int, Any, DecodeError | None], None]) -> None:
        """A picture just opened: its size, and (for a still picture) the whole of it fitted
        to the view, in one go. Answers (PictureInfo, Region or None, Image or None)."""
        self._submit("render", token, lambda: self._open(path, view_width, view_height),
                     done)

    def frames(self, token: int, path: str, width: int, height: int,
               done: Callable[[int, Frames | None, DecodeError | None], None]) -> None:
        self._submit("frames", token, lambda: decode_frames(path, width, height), done)

    def strip(self, token: int, path: str, count: int, box: int,
              done: Callable[[int, Any, DecodeError | None], None]) -> None:
        """A video's strip of `count` frames (`video_strip`)."""
        self._submit("strip", token, lambda: video_strip(path, count, box), done)

    def prefetch(self, paths: list[str], view_width: int, view_height: int) -> None:
        """Decode these (the neighbours) at the size "fit" needs, ready for the next step."""
        def work() -> None:
            for path in paths:
                try:
                    info = self._info(path)
                    if info.animated:
                        continue
                    fit = ZoomPan(info.width, info.height, view_width, view_height)
                    self._source(path, reduction_for(fit.scale))
                except Exception as error:  # a neighbour that fails shows its own reason
                    log.debug("prefetch of a neighbour failed: %s", error)
        self._submit("prefetch", 0, work, lambda *args: None)

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._jobs.clear()
            self._wake.notify_all()

    # the decoder thread ------------------------------------------------------------------
    def _submit(self, kind: str, token: int, work: Callable[[], Any],
                done: Callable[..., None]) -> None:
        with self._wake:
            if self._closed:
                return
            self._jobs[kind] = _Job(kind, token, work, done)   # replaces an unstarted one
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._jobs and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                kind = next(k for k in ORDER if k in self._jobs)
                job = self._jobs.pop(kind)
            try:
                result, error = job.work(), None
            except Exception as caught:  # reported to the viewer, never lost
                result, error = None, why(caught)
                log.info("viewer could not decode (%s): %s", error.reason, caught)
            self.deliver(job.done, (job.token, result, error))

    def _open(self, path: str, view_width: int, view_height: int) -> tuple[Any, ...]:
        info = self._info(path)
        if info.animated:
            return info, None, None
        view = ZoomPan(info.width, info.height, view_width, view_height)
        return self._render(path, view.region(), view.scale)

    def _info(self, path: str) -> PictureInfo:
        info = self._infos.get(path)
        if info is None:
            info = self._infos[path] = probe(path)
            if len(self._infos) > 200:
                self._infos.pop(next(iter(self._infos)))
        return info

    def _render(self, path: str, region: Region, scale: float) -> tuple[Any, ...]:
        info = self._info(path)
        reduction = reduction_for(scale)
        source = self._source(path, reduction)
        return info, region, render_region(source, info, region, scale)

    def _source(self, path: str, reduction: int) -> Image.Image:
        key = (path, reduction)
        source = self._sources.get(key)
        if source is not None:
            self._sources.move_to_end(key)
            return source
        source = decode_source(path, reduction)
        self._sources[key] = source
        self._pixels += source.width * source.height
        while len(self._sources) > 1 and self._pixels > SOURCE_BUDGET:
            _key, old = self._sources.popitem(last=False)
            self._pixels -= old.width * old.height
        return source


def _scaled_file(path: str, width: int, height: int) -> Image.Image:
    from PIL import Image

    with Image.open(path) as image:
        picture = _rgb(image)
        scale = min(width / picture.width, height / picture.height)
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        return picture.resize(size, Image.Resampling.BILINEAR)
