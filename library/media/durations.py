"""How long a PyAV stream plays, in seconds (shared by the video and sound readers)."""

from __future__ import annotations

from typing import Any


def stream_seconds(container: Any, stream: Any) -> float | None:
    """The stream's own duration, else the container's; None when neither says (to 1 ms)."""
    if stream.duration is not None and stream.time_base is not None:
        seconds = float(stream.duration * stream.time_base)
        if seconds > 0:
            return round(seconds, 3)
    if container.duration is not None and container.duration > 0:
        return round(float(container.duration) / 1_000_000, 3)  # av.time_base: microseconds
    return None
