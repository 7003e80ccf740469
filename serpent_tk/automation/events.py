"""Events the gateway publishes to its subscribers (the window, the MCP layer). Plain data.

Thread-safe (immutable). Delivered on whatever thread produced them; listeners must not
block (the window posts them to its UiBus, the MCP layer to its asyncio loop).
`LibraryChanged` (any source) and `TaskProgress` are the library worker's own messages,
declared once in `library.protocol` and passed on unchanged; the rest are the gateway's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from library.events import LibraryChanged, TaskProgress

__all__ = ["LibraryChanged", "TaskProgress", "LifecycleAction", "ToastLevel",
           "LibraryLifecycle", "Toast", "ToolsChanged", "ShowInDesktop", "ChangeMade",
           "PluginsChanged", "Said"]

LifecycleAction = Literal["opened", "closed", "renamed", "deleted", "imported", "moved"]
ToastLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class LibraryLifecycle:
    """A library was opened, closed, renamed, deleted, or files were imported into it."""

    library_id: str
    name: str
    action: LifecycleAction
    actor_label: str
    source: str
    path: str = ""
    count: int | None = None  # imported: how many new assets


@dataclass(frozen=True)
class Said:
    """Words for people as a template and what fills it, so that the window can say them in
    its own language: `template` is the English sentence with `{fields}` (the window's
    catalogue has it as a msgid), `values` fill it (a count of assets or files as a number
    under `assets` / `files`, another `Said` where a sentence holds one), `fallback` is said
    instead when a field is missing or only has English words (a history entry's summary)."""

    template: str
    values: Mapping[str, Any] = field(default_factory=dict)
    fallback: str = ""


@dataclass(frozen=True)
class Toast:
    """A short, non-blocking message for the window (`text` in English; `said`, when
    given, the same words for the window to translate)."""

    text: str
    level: ToastLevel
    actor_label: str
    said: Said | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ToolsChanged:
    """The set of MCP tools changed: an exposed plugin's commands came or went
    (`exposure.PluginExposure`)."""


@dataclass(frozen=True)
class PluginsChanged:
    """A plugin was found, enabled, disabled, exposed, hidden, or failed (Settings →
    Plugins shows the new state)."""


@dataclass(frozen=True)
class ShowInDesktop:
    """`library.show-in-desktop`: bring a library (and maybe some assets) to the front."""

    library_id: str
    asset_ids: tuple[str, ...] = ()
    folder_id: str | None = None
    actor_label: str = ""


@dataclass(frozen=True)
class ChangeMade:
    """A command that changes a library succeeded, whoever called it: what it did, in words
    for people ("created the folder “Skies”"), and whether the library's history can undo
    it. The window's toasts about an AI client's changes follow it (a lifecycle command —
    `lifecycle` set — has its own toast)."""

    library_id: str
    command: str
    actor_label: str
    source: str
    change_sequence: int | None
    text: str  # "tagged 3 assets with “sky”"
    undoable: bool  # it is a step of the library's history (Edit → Undo takes it back)
    lifecycle: str | None = None
    said: Said | None = field(default=None, compare=False)  # `text`, for the window to say
