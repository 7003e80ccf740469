"""Models of the library-level and global library commands."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from library.schemas.common import EntityName, Model

__all__ = [
    "LibraryInfoOut", "LibraryChangeSequenceOut", "LibraryCreateIn", "LibraryOpenIn",
    "LibraryRenameIn", "LibraryExportIn", "LibraryImportExportedIn", "LibraryRefreshOut",
    "LibraryRef", "LibraryListOut", "LibraryPath",
]

LibraryPath = Annotated[str, Field(min_length=1, max_length=4096)]


class LibraryRef(Model):
    library_id: str
    name: str
    path: str
    open: bool = True


class LibraryListOut(Model):
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
