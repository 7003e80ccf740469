"""Videos: their size as displayed, duration and codec, a poster frame and a strip of frames.

Thread-safe (each call opens its own container); PyAV (FFmpeg in its wheel) is imported on
first use. The poster is the frame at a tenth of the video (the first is often black or a
title fading in), the strip `count` frames spread over the whole; a phone video stored
sideways (its display matrix turned 90°) is turned upright, and its width and height are
those displayed. A file FFmpeg cannot open, or one without a video stream it can decode,
is `BadVideo` (the asset is flagged damaged, as a picture that cannot be decoded).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from library.media.durations import stream_seconds

if TYPE_CHECKING:
    import av.container

POSTER_AT = 0.1  # of the duration
MAX_DECODED = 400  # frames decoded after a seek to reach the time asked for, at most


class BadVideo(Exception):
    """Not a video FFmpeg can decode (the message says why)."""


@dataclass(frozen=True)
class VideoFacts:
    width: int
    height: int
    duration: float | None  # seconds
    codec: str  # "h264", "hevc", "vp9", ...
    rotation: int  # degrees the stored frames are turned anticlockwise to be displayed


def probe(path: Path | str) -> VideoFacts:
    with _opened(path) as container:
        stream = _video_stream(container)
        rotation = _rotation(container, stream)
        width, height = int(stream.codec_context.width), int(stream.codec_context.height)
        if width <= 0 or height <= 0:
            raise BadVideo("its video stream has no size")
        if rotation in (90, 270):
            width, height = height, width
        return VideoFacts(width, height, stream_seconds(container, stream),
                          str(stream.codec_context.name), rotation)


def poster(path: Path | str, box: int) -> Image.Image:
    """The frame at a tenth of the video, scaled to fit a `box` square."""
    with _opened(path) as container:
        stream = _video_stream(container)
        duration = stream_seconds(container, stream) or 0.0
        frame = _frame_at(container, stream, duration * POSTER_AT)
        return _upright(frame, _rotation(container, stream), box)


def frames(path: Path | str, count: int, box: int) -> list[tuple[float, Image.Image]]:
    """`count` frames spread over the video (time in seconds, picture fitting `box`)."""
    with _opened(path) as container:
        stream = _video_stream(container)
        duration = stream_seconds(container, stream) or 0.0
        rotation = _rotation(container, stream)
        found: list[tuple[float, Image.Image]] = []
        for index in range(max(1, count)):
            at = duration * (index + 0.5) / max(1, count)
            try:
                found.append((at, _upright(_frame_at(container, stream, at), rotation, box)))
            except BadVideo:
                break  # the rest of the file is damaged: the frames before it stay
        if not found:
            raise BadVideo("no frame could be decoded")
        return found


class _opened:
    """`av.open` as a context manager whose failures are `BadVideo`."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self.container: av.container.InputContainer | None = None

    def __enter__(self) -> av.container.InputContainer:
        import av

        try:
            self.container = av.open(self.path, "r", metadata_errors="ignore")
        except FileNotFoundError:
            raise
        except (av.FFmpegError, ValueError, OSError) as error:
            raise BadVideo(f"FFmpeg cannot read it ({error})") from None
        return self.container

    def __exit__(self, *_: object) -> None:
        if self.container is not None:
            self.container.close()


def _video_stream(container: Any) -> Any:
    streams = [s for s in container.streams.video
               if s.codec_context is not None and s.codec_context.width]
    if not streams:
        raise BadVideo("it has no video stream")
    stream = streams[0]
    stream.thread_type = "AUTO"
    return stream


def _rotation(container: Any, stream: Any) -> int:
    """How far the stored frames are turned (from the stream's display matrix)."""
    try:
        for frame in _decoded(container, stream):
            return int(round(getattr(frame, "rotation", 0) or 0)) % 360
    except BadVideo:
        return 0
    finally:
        _rewind(container, stream)
    return 0


def _rewind(container: Any, stream: Any) -> None:
    try:
        container.seek(0, stream=stream)
    except Exception:  # a stream that cannot seek: the next read starts where it is
        return


def _decoded(container: Any, stream: Any) -> Iterator[Any]:
    import av

    try:
        yield from container.decode(stream)
    except (av.FFmpegError, ValueError, OSError) as error:
        raise BadVideo(f"FFmpeg cannot decode it ({error})") from None


def _frame_at(container: Any, stream: Any, seconds: float) -> Any:
    """The first frame at or after `seconds` (or the last one before the end)."""
    if seconds > 0 and stream.time_base:
        try:
            container.seek(int(seconds / stream.time_base), stream=stream, backward=True)
        except Exception:
            _rewind(container, stream)
    last = None
    for decoded, frame in enumerate(_decoded(container, stream)):
        last = frame
        time = frame.time if frame.time is not None else 0.0
        if time >= seconds - 1e-3 or decoded >= MAX_DECODED:
            break
    if last is None:
        raise BadVideo("no frame could be decoded")
    return last


def _upright(frame: Any, rotation: int, box: int) -> Image.Image:
    picture: Image.Image = frame.to_image()
    picture.thumbnail((box, box), Image.Resampling.BICUBIC, reducing_gap=2.0)
    turn = {90: Image.Transpose.ROTATE_90, 180: Image.Transpose.ROTATE_180,  # anticlockwise
            270: Image.Transpose.ROTATE_270}.get(rotation)
    return picture.transpose(turn) if turn is not None else picture
