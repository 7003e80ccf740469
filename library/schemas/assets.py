"""Models of the asset commands: import, search, get, update, tag, move, trash, thumbnails."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AnyHttpUrl, Field, model_validator

from library.schemas.common import (
    DEFAULT_LIMIT,
    Actor,
    AssetId,
    AssetKind,
    BatchOut,
    CollectionId,
    Cursor,
    EntityName,
    FolderId,
    Limit,
    Model,
    Page,
    TagName,
)

__all__ = [
    "AssetSummary", "Asset", "FileImportIn", "ImportItem", "FileImportOut", "AssetSearchIn",
    "AssetSearchOut", "AssetGetIn", "AssetGetOut", "AssetUpdateIn", "AssetTagIn",
    "AssetUntagIn", "AssetMoveIn", "AssetCopyIn", "AssetTrashIn", "AssetRestoreIn",
    "AssetDeletePermanentlyIn", "DeleteOut", "TrashListIn", "TrashEmptyIn",
    "AssetThumbnailIn", "AssetThumbnailOut", "AssetPreviewStatusIn", "PreviewStatus",
    "AssetPreviewStatusOut", "SearchSort", "AssetBatchOut", "AssetIds", "RiskReport",
    "RiskTarget", "AssetUpdateOut", "RenameItem", "AssetRenameBatchIn",
]

AssetIds = Annotated[list[AssetId], Field(min_length=1, max_length=1000)]
SourcePath = Annotated[str, Field(min_length=1, max_length=4096)]
SearchSort = Literal["added-desc", "added-asc", "name-asc", "name-desc", "rating-desc",
                     "size-desc", "modified-desc", "collection-order"]


class AssetSummary(Model):
    """One asset in a list: enough to show a grid cell and decide what to do next."""

    id: AssetId
    name: str
    ext: str
    kind: AssetKind
    size: int = Field(description="File size in bytes.")
    width: int | None = None
    height: int | None = None
    rating: int = Field(ge=0, le=5)
    tags: list[str]
    folder_ids: list[FolderId]
    version: int
    added_at: datetime
    trashed: bool = False
    missing: bool = Field(default=False, description="The file is gone from the library "
                          "folder (found by recovery); the record is kept.")


class Asset(AssetSummary):
    """Everything about one asset."""

    format: str | None = Field(default=None, description="Decoder format, e.g. JPEG, PNG.")
    mime: str
    sha256: str
    notes: str
    source_url: str | None
    original_name: str
    modified_at: datetime
    added_by: Actor
    modified_by: Actor
    trashed_at: datetime | None = None
    file_path: str | None = Field(default=None, description="Absolute path of the stored "
                                  "file on this computer, to open or show it. Read it, never "
                                  "change it: the library owns the file.")


class FileImportIn(Model):
    """Copy files (and folders, recursively) from disk into the library."""

    source_paths: Annotated[list[SourcePath], Field(min_length=1, max_length=1000)] = Field(
        description="Absolute paths of files or folders on this computer.")
    folder_id: FolderId | None = Field(default=None,
                                       description="Put the new assets in this folder.")
    tags: Annotated[list[TagName], Field(max_length=100)] = Field(
        default_factory=list, description="Tags to add to every imported asset.")
    recursive: bool = True


class ImportItem(Model):
    source_path: str
    status: Literal["imported", "duplicate", "failed", "skipped"]
    asset_id: AssetId | None = Field(default=None, description="The new asset, or for a "
                                     "duplicate the asset that already holds this content.")
    error_code: str | None = None
    error: str | None = None


class FileImportOut(Model):
    items: list[ImportItem]
    imported: int
    duplicates: int
    failed: int
    cancelled: bool = False
    truncated: bool = False


class AssetSearchIn(Model):
    """Find assets. Every given filter must match (AND). Results are stably ordered."""

    text: Annotated[str, Field(max_length=500)] | None = Field(
        default=None, description="Words matched against name, notes, tags and source URL.")
    tags: Annotated[list[TagName], Field(max_length=50)] = Field(
        default_factory=list, description="Assets carrying all of these tags.")
    folder_id: FolderId | None = None
    include_subfolders: bool = False
    unfiled: bool = Field(default=False, description="Only assets in no folder.")
    untagged: bool = Field(default=False, description="Only assets without tags.")
    collection_id: CollectionId | None = None
    kind: list[AssetKind] = Field(default_factory=list)
    ext: Annotated[list[Annotated[str, Field(max_length=16)]], Field(max_length=50)] = Field(
        default_factory=list, description="File extensions without the dot: ['png', 'jpg'].")
    rating_min: int | None = Field(default=None, ge=0, le=5)
    rating_max: int | None = Field(default=None, ge=0, le=5)
    added_after: datetime | None = None
    added_before: datetime | None = None
    trashed: bool = Field(default=False, description="Search the trash instead.")
    sort: SearchSort = Field(default="added-desc", description="collection-order: the "
                             "order of a hand-picked collection's members (needs its "
                             "collectionId).")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None
    offset: int | None = Field(default=None, ge=0, description="Jump to a position "
                               "instead of following a cursor (the window's grid uses this).")


class AssetSearchOut(Page):
    items: list[AssetSummary]
    total: int = Field(description="How many assets match in all.")


class AssetGetIn(Model):
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=100)]


class AssetGetOut(Model):
    items: list[Asset]
    not_found: list[str] = Field(default_factory=list)


class AssetUpdateIn(Model):
    """Change an asset's name, notes, rating or source URL. Omitted fields stay as they are."""

    asset_id: AssetId
    expected_version: int | None = Field(default=None, ge=1, description="Refuse with "
                                         "VERSION_CONFLICT unless the asset is at this version.")
    name: EntityName | None = None
    notes: Annotated[str, Field(max_length=20000)] | None = None
    rating: int | None = Field(default=None, ge=0, le=5)
    source_url: AnyHttpUrl | Literal[""] | None = Field(
        default=None, description="An http(s) address, or an empty string to clear it.")

    @model_validator(mode="after")
    def _something_to_change(self) -> AssetUpdateIn:
        if all(v is None for v in (self.name, self.notes, self.rating, self.source_url)):
            raise ValueError("give at least one of name, notes, rating, sourceUrl")
        return self


class AssetUpdateOut(Model):
    item: Asset


class AssetBatchOut(BatchOut):
    pass


class RenameItem(Model):
    asset_id: AssetId
    name: EntityName = Field(description="The asset's new name.")
    expected_version: int | None = Field(default=None, ge=1, description="Refuse the whole "
                                         "batch with VERSION_CONFLICT unless the asset is at "
                                         "this version.")


class AssetRenameBatchIn(Model):
    """Give several assets new names at once: one step of the history (one undo)."""

    items: Annotated[list[RenameItem], Field(min_length=1, max_length=1000)]

    @model_validator(mode="after")
    def _each_asset_once(self) -> AssetRenameBatchIn:
        ids = [item.asset_id for item in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("name each asset once")
        return self


class AssetTagIn(Model):
    asset_ids: AssetIds
    tags: Annotated[list[TagName], Field(min_length=1, max_length=100)]


class AssetUntagIn(AssetTagIn):
    pass


class AssetMoveIn(Model):
    """Put assets in exactly one folder (or none with `folderId: null`)."""

    asset_ids: AssetIds
    folder_id: FolderId | None


class AssetCopyIn(Model):
    """Also show assets in another folder (an asset may live in several folders)."""

    asset_ids: AssetIds
    folder_id: FolderId


class AssetTrashIn(Model):
    asset_ids: AssetIds


class AssetRestoreIn(Model):
    asset_ids: AssetIds


class AssetDeletePermanentlyIn(Model):
    asset_ids: AssetIds
    state_token: str | None = Field(default=None, max_length=200, description="From the "
                                    "plan; refused with STALE_PLAN if the targets changed.")


class TrashEmptyIn(Model):
    """Permanently delete everything in the trash."""

    state_token: str | None = Field(default=None, max_length=200, description="From the "
                                    "plan; refused with STALE_PLAN if the trash changed.")


class RiskTarget(Model):
    id: str
    name: str
    version: int
    size: int


class RiskReport(Model):
    summary: str
    targets: list[RiskTarget]
    targets_truncated: bool = Field(default=False, description="Only the first targets are "
                                    "listed; count, totalBytes and stateToken cover all.")
    count: int
    total_bytes: int
    irreversible: bool = True
    state_token: str


class DeleteOut(Model):
    deleted: int
    freed_bytes: int


class TrashListIn(Model):
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class AssetThumbnailIn(Model):
    asset_id: AssetId
    size: int = Field(default=512, ge=32, le=1568, description="Longest side in pixels.")


class AssetThumbnailOut(Model):
    path: str = Field(description="Thumbnail file inside the library (not for agents).")
    mime: str
    width: int
    height: int


PreviewStatus = Literal["ready", "pending", "failed", "unsupported"]


class AssetPreviewStatusIn(Model):
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=500)]


class AssetPreviewStatusOut(Model):
    items: dict[str, PreviewStatus] = Field(description="ready: a thumbnail exists; pending: "
                                            "asset.thumbnail makes it on request; failed: the "
                                            "file is missing or damaged; unsupported: not an "
                                            "image Serpent can show.")
    not_found: list[str] = Field(default_factory=list, description="Ids of no asset.")
