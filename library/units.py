"""How sizes read in messages for people ("12.4 MB"). Pure functions; used by both processes."""

from __future__ import annotations


def human_size(size: int) -> str:
    """Decimal units, one decimal place: 999 bytes, 1.0 KB, 12.4 MB, 3.2 GB."""
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} bytes"
