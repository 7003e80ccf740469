"""Events other threads post to the UiBus. Plain data; safe to create on any thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal


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


@dataclass(frozen=True)
class RunOnTk:
    """Run `fn(*args)` on the Tk thread: how a future's answer reaches a widget."""

    fn: Callable[..., None]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class ShowToast:
    """A toast raised by the window itself (an error answer, a finished import, ...)."""

    text: str
    level: Literal["info", "warning", "error", "success"] = "info"
    title: str | None = None
