"""Input/output models of the commands the main process answers itself (no worker involved).

Thread-safe (pure data). Same conventions as `library/schemas`: camelCase on the wire,
unknown fields refused.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from library.schemas.common import AssetId, FolderId, Model, Page

__all__ = [
    "RecentLibrary", "LibraryListRecentOut", "UiNotifyIn", "UiNotifyOut",
    "LibraryShowInDesktopIn", "LibraryShowInDesktopOut", "LibraryCloseOut",
]

_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def _toast_text(value: str) -> str:
    value = _CONTROL.sub(" ", value).strip()
    if not value:
        raise ValueError("must not be empty")
    return value


class RecentLibrary(Model):
    name: str
    path: str
    last_opened: datetime
    open: bool = Field(description="Open right now; then `libraryId` is set.")
    library_id: str | None = None
    exists: bool = Field(description="False when the folder is gone (moved, unplugged drive).")


class LibraryListRecentOut(Page):
    items: list[RecentLibrary]


class UiNotifyIn(Model):
    """Show a short, non-blocking message (a toast) in the Serpent window."""

    text: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_toast_text)] = \
        Field(description="One or two short sentences.")
    level: Literal["info", "warning", "error"] = Field(default="info", description="How it "
                                                       "looks.")


class UiNotifyOut(Model):
    shown: bool = Field(description="Posted to the window (false when no window is open).")


class LibraryShowInDesktopIn(Model):
    """Bring the library to the front in the window, optionally selecting assets or a folder."""

    asset_ids: Annotated[list[AssetId], Field(max_length=500)] = Field(
        default_factory=list, description="Assets to select.")
    folder_id: FolderId | None = Field(default=None, description="A folder to show.")


class LibraryShowInDesktopOut(Model):
    shown: bool = Field(description="Posted to the window (false when no window is open).")


class LibraryCloseOut(Model):
    closed: bool
