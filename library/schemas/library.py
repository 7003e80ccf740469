"""Models of the library-level and global library commands."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from library.schemas.common import EntityName, Model, Page

__all__ = [
    "LibraryInfoOut", "LibraryChangeSequenceOut", "LibraryCreateIn", "LibraryOpenIn",
    "LibraryRenameIn", "LibraryExportIn", "LibraryImportExportedIn", "LibraryRefreshOut",
    "LibraryRef", "LibraryListOut", "LibraryPath", "LibraryExportOut",
    "LibraryDeleteFromDiskOut",
]

LibraryPath = Annotated[str, Field(min_length=1, max_length=4096)]


class LibraryRef(Model):
    library_id: str
    name: str
    path: str
    open: bool = True


class LibraryListOut(Page):
    items: list[LibraryRef]


class LibraryInfoOut(Model):
    library_id: str
    name: str
    path: str
    change_sequence: int
    schema_version: int
    asset_count: int
    trashed_count: int
    folder_count: int
    tag_count: int
    collection_count: int
    total_bytes: int
    created_at: datetime


class LibraryChangeSequenceOut(Model):
    change_sequence: int


class LibraryCreateIn(Model):
    """Create `<name>.serpent` inside `selectedParentPath` and open it."""

    selected_parent_path: LibraryPath
    name: EntityName


class LibraryOpenIn(Model):
    path: LibraryPath = Field(description="A `.serpent` library folder.")


class LibraryRenameIn(Model):
    name: EntityName


class LibraryExportIn(Model):
    target_path: LibraryPath = Field(description="Where to write the `.zip` archive.")


class LibraryImportExportedIn(Model):
    archive_path: LibraryPath
    selected_parent_path: LibraryPath


class LibraryRefreshOut(Model):
    checked: int
    missing_files: int
    thumbnails_rebuilt: int
    orphans_moved: int


class LibraryExportOut(Model):
    path: str = Field(description="The archive that was written.")
    asset_count: int
    bytes: int


class LibraryDeleteFromDiskOut(Model):
    deleted: bool
    asset_count: int
    freed_bytes: int
