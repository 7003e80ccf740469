"""Models of the folder commands. Folders are virtual: an asset may be in several."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from library.schemas.common import EntityName, FolderId, Model, Page

__all__ = [
    "Folder", "FolderCreateIn", "FolderListIn", "FolderListOut", "FolderRenameIn",
    "FolderMoveIn", "FolderDeleteEmptyIn", "FolderDeleteEmptyOut",
]


class Folder(Model):
    id: FolderId
    name: str
    parent_id: FolderId | None
    version: int
    asset_count: int = Field(description="Assets directly in this folder (trash excluded).")
    child_count: int


class FolderCreateIn(Model):
    name: EntityName
    parent_id: FolderId | None = Field(default=None, description="None: a top-level folder.")


class FolderListIn(Model):
    parent_id: FolderId | None = Field(
        default=None, description="Only the children of this folder; omit for the whole tree.")


class FolderListOut(Page):
    items: list[Folder]


class FolderRenameIn(Model):
    folder_id: FolderId
    name: EntityName
    expected_version: int | None = Field(default=None, ge=1)


class FolderMoveIn(Model):
    folder_id: FolderId
    parent_id: FolderId | None


class FolderDeleteEmptyIn(Model):
    """Delete folders that hold no assets and no subfolders; any non-empty one refuses all."""

    folder_ids: Annotated[list[FolderId], Field(min_length=1, max_length=500)]


class FolderDeleteEmptyOut(Model):
    deleted: list[FolderId]
