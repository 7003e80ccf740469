"""Sound files: duration and codec, and a picture of the waveform.

Thread-safe (each call opens its own container); PyAV decodes (FFmpeg in its wheel), on
first use. The waveform is the loudest sample of each of `COLUMNS` stretches of the sound,
mirrored around the middle line; a file up to `WHOLE_SECONDS` long is decoded whole, a
longer one is sampled (a short stretch after a seek at each column), so an hour-long
recording costs about as much as a song. A file FFmpeg cannot open or decode is `BadAudio`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from library.media.durations import stream_seconds

COLUMNS = 256
WHOLE_SECONDS = 600.0
SAMPLE_SECONDS = 0.25  # decoded at each column of a long file
BACKGROUND = (246, 246, 248)
WAVE = (58, 110, 200)


class BadAudio(Exception):
    """Not a sound FFmpeg can decode (the message says why)."""


@dataclass(frozen=True)
class AudioFacts:
    duration: float | None  # seconds
    codec: str  # "mp3", "flac", "pcm_s16le", ...


def probe(path: Path | str) -> AudioFacts:
    container = _open(path)
    try:
        stream = _audio_stream(container)
        _first_frame(container, stream)  # a file whose sound cannot be decoded is damaged
        return AudioFacts(stream_seconds(container, stream), str(stream.codec_context.name))
    finally:
        container.close()


def waveform(path: Path | str, box: int) -> Image.Image:
    """The waveform in a `box`-wide picture, half as high."""
    peaks = levels(path)
    width, height = box, max(2, box // 2)
    picture = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(picture)
    middle = height / 2
    step = width / len(peaks)
    for index, peak in enumerate(peaks):
        half = max(0.5, peak * (middle - 2))
        left = index * step
        draw.rectangle((left, middle - half, max(left, left + step - 1), middle + half),
                       fill=WAVE)
    return picture


def levels(path: Path | str) -> list[float]:
    """The peak level (0-1) of each of `COLUMNS` stretches of the sound."""
    import numpy as np

    container = _open(path)
    try:
        stream = _audio_stream(container)
        duration = stream_seconds(container, stream) or 0.0
        if duration > WHOLE_SECONDS and stream.time_base:
            peaks = [_peak_near(container, stream, duration * (i + 0.5) / COLUMNS)
                     for i in range(COLUMNS)]
        else:
            samples = np.concatenate([_mono(frame) for frame in _frames(container, stream)]
                                     or [np.zeros(1, dtype=np.float32)])
            parts = np.array_split(np.abs(samples), COLUMNS)
            peaks = [float(part.max()) if part.size else 0.0 for part in parts]
    finally:
        container.close()
    top = max(peaks) or 1.0
    return [peak / top for peak in peaks]


def _open(path: Path | str) -> Any:
    import av

    try:
        return av.open(str(path), "r", metadata_errors="ignore")
    except FileNotFoundError:
        raise
    except (av.FFmpegError, ValueError, OSError) as error:
        raise BadAudio(f"FFmpeg cannot read it ({error})") from None


def _audio_stream(container: Any) -> Any:
    if not container.streams.audio:
        raise BadAudio("it has no sound stream")
    return container.streams.audio[0]


def _frames(container: Any, stream: Any) -> Any:
    import av

    try:
        yield from container.decode(stream)
    except (av.FFmpegError, ValueError, OSError) as error:
        raise BadAudio(f"FFmpeg cannot decode it ({error})") from None


def _first_frame(container: Any, stream: Any) -> None:
    for _frame in _frames(container, stream):
        return
    raise BadAudio("no sound could be decoded")


def _mono(frame: Any) -> Any:
    """A frame's samples as one channel of floats in -1..1."""
    import numpy as np

    data = frame.to_ndarray()
    if data.dtype.kind == "i":
        data = data.astype(np.float32) / float(np.iinfo(data.dtype).max)
    elif data.dtype.kind == "u":
        info = np.iinfo(data.dtype)
        data = (data.astype(np.float32) - (info.max + 1) / 2) / ((info.max + 1) / 2)
    else:
        data = data.astype(np.float32)
    return np.abs(data).max(axis=0) if data.ndim == 2 and data.shape[0] > 1 and \
        not frame.format.is_packed else np.abs(data).reshape(-1)


def _peak_near(container: Any, stream: Any, seconds: float) -> float:
    import numpy as np

    try:
        container.seek(int(seconds / stream.time_base), stream=stream, backward=True)
    except Exception:
        return 0.0
    peak, heard = 0.0, 0.0
    for frame in _frames(container, stream):
        samples = _mono(frame)
        peak = max(peak, float(np.max(samples)) if samples.size else 0.0)
        heard += frame.samples / (frame.sample_rate or 1)
        if heard >= SAMPLE_SECONDS:
            break
    return peak
