"""Events other threads post to the UiBus. Plain data; safe to create on any thread."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActivateWindow:
    """A second `serpent-tk` start asked this instance to come to the front."""


@dataclass(frozen=True)
class Notice:
    """Something the person should read (settings recovered, ...). Shown without blocking."""

    text: str


@dataclass(frozen=True)
class CloseRequested:
    """Quit cleanly (SIGTERM, a menu action)."""
