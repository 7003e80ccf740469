"""Models of the folder commands. Folders are virtual: an asset may be in several."""

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
    total_count: int = Field(description="Assets in this folder or any folder under it, each "
                             "once (trash excluded).")


class FolderCreateIn(Model):
    name: EntityName = Field(description="Its name.")
    parent_id: FolderId | None = Field(default=None, description="Inside this folder; omit "
                                       "for the top level.")


class FolderListIn(Model):
    parent_id: FolderId | None = Field(
        default=None, description="Only the children of this folder; omit for the whole tree.")


class FolderListOut(Page):
    items: list[Folder]


class FolderRenameIn(Model):
    folder_id: FolderId = Field(description="The folder.")
    name: EntityName = Field(description="Its new name.")
    expected_version: int | None = Field(default=None, ge=1, description="Refuse unless at "
                                         "this version.")


class FolderMoveIn(Model):
    folder_id: FolderId = Field(description="The folder.")
    parent_id: FolderId | None = Field(description="Its new parent; null: the top level.")


class FolderDeleteEmptyIn(Model):
    """Delete folders that hold no assets and no subfolders; any non-empty one refuses all."""

    folder_ids: Annotated[list[FolderId], Field(min_length=1, max_length=500)] = Field(
        description="The folders.")


class FolderDeleteEmptyOut(Model):
    deleted: list[FolderId]
