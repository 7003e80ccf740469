"""Finds files shipped with the app (icons, ...) from a source checkout or a frozen build.

Thread-safe (pure functions). The one helper every module uses for bundled resources:
PyInstaller unpacks data under `sys._MEIPASS`; a source checkout has them at the repo root.
"""

from __future__ import annotations

import sys
from pathlib import Path


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def resource_root() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    return Path(__file__).resolve().parent.parent


def resource_path(relative: str) -> Path:
    """`resource_path("icons/serpent-256.png")` -> an existing path or FileNotFoundError."""
    path = resource_root() / relative
    if not path.exists():
        raise FileNotFoundError(f"bundled resource missing: {relative}")
    return path


def icon_path(size: int) -> Path:
    return resource_path(f"icons/serpent-{size}.png")
