"""Models of linked folders: a folder on disk mirrored into the library by rules."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from library.schemas.common import AssetKind, FolderId, Model, Page

__all__ = [
    "LinkedFolderId", "LinkedFolderRules", "LinkedFolder", "LinkedFolderListOut",
    "LinkedFolderCreateIn",
    "LinkedFolderReconnectIn", "LinkedFolderUnlinkIn", "LinkedFolderUpdateRulesIn",
    "LinkedFolderRefreshIn", "LinkedFolderRefreshOut",
]

LinkedFolderId = Annotated[str, Field(pattern=r"^lnk_[0-9a-z]{8,40}$",
                                      examples=["lnk_01j9z3k4m5n6p7q8"])]
DiskPath = Annotated[str, Field(min_length=1, max_length=4096)]
Pattern = Annotated[str, Field(min_length=1, max_length=200)]


class LinkedFolderRules(Model):
    """Which files of the disk folder become assets."""

    include: Annotated[list[Pattern], Field(max_length=50)] = Field(
        default_factory=list, description="Glob patterns to take ('*.png'); empty: all files.")
    exclude: Annotated[list[Pattern], Field(max_length=50)] = Field(
        default_factory=list, description="Glob patterns to skip ('*/.git/*').")
    kinds: list[AssetKind] = Field(default_factory=list, description="Only these kinds.")
    recursive: bool = Field(default=True, description="Subfolders too.")
    auto_import: bool = Field(default=True, description="Watch the folder: new and changed "
                              "files are imported as they appear (else only on refresh).")


class LinkedFolder(Model):
    id: LinkedFolderId
    path: str
    folder_id: FolderId = Field(description="The library folder that shows its assets.")
    rules: LinkedFolderRules
    status: Literal["connected", "missing"]
    asset_count: int
    version: int
    last_refreshed_at: datetime | None = None


class LinkedFolderListOut(Page):
    items: list[LinkedFolder]


class LinkedFolderCreateIn(Model):
    """Link a folder on disk: its files become assets in a new library folder, kept in sync."""

    path: DiskPath = Field(description="Absolute path of a folder on this computer.")
    rules: LinkedFolderRules = Field(default_factory=LinkedFolderRules)
    parent_id: FolderId | None = Field(default=None, description="Where the new library "
                                       "folder goes; omit for the top level.")


class LinkedFolderReconnectIn(Model):
    """Point a linked folder whose disk folder moved (status `missing`) at its new place."""

    linked_folder_id: LinkedFolderId = Field(description="The linked folder.")
    path: DiskPath = Field(description="Where the disk folder is now.")


class LinkedFolderUnlinkIn(Model):
    linked_folder_id: LinkedFolderId = Field(description="The linked folder.")
    keep_assets: bool = Field(default=True, description="Keep the assets as ordinary library "
                              "assets (true) or move them to the trash (false).")


class LinkedFolderUpdateRulesIn(Model):
    linked_folder_id: LinkedFolderId = Field(description="The linked folder.")
    rules: Annotated[LinkedFolderRules, WithJsonSchema({  # shown in full by .create
        "type": "object", "description": "The new rules, as linked-folder.create takes them."})]
    expected_version: int | None = Field(default=None, ge=1, description="Refuse unless at "
                                         "this version.")


class LinkedFolderRefreshIn(Model):
    linked_folder_id: LinkedFolderId = Field(description="The linked folder.")


class LinkedFolderRefreshOut(Model):
    linked_folder: LinkedFolder
    added: int = Field(description="Files imported for the first time (or found already in "
                       "the library and linked).")
    updated: int = Field(description="Changed files imported again; the older asset keeps "
                         "nothing new and goes to the trash, its tags and notes carry over.")
    missing: int = Field(description="Files no longer on disk (or no longer matching the "
                         "rules); their assets stay in the library.")
    failed: int = Field(default=0, description="Files that could not be read.")
    cancelled: bool = False
