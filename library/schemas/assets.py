"""Models of the asset commands: import, search, get, update, tag, move, trash, thumbnails."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AnyHttpUrl, Field, model_validator

from library.schemas.collections import RuleSet
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
    "RiskTarget", "AssetUpdateOut", "PaletteColor", "AssetProblem", "Orientation", "HexColor",
    "PreviewCounts", "PreviewProgress",
]

AssetIds = Annotated[list[AssetId], Field(min_length=1, max_length=1000)]
SourcePath = Annotated[str, Field(min_length=1, max_length=4096)]
SearchSort = Literal["added-desc", "added-asc", "name-asc", "name-desc", "rating-desc",
                     "size-desc", "modified-desc", "collection-order", "taken-desc",
                     "taken-asc", "color-similarity", "hue"]
Orientation = Literal["portrait", "landscape", "square", "panoramic"]
HexColor = Annotated[str, Field(pattern=r"^#?[0-9a-fA-F]{6}$", examples=["#ff8800"],
                                description="An sRGB colour as #rrggbb.")]


class PaletteColor(Model):
    color: str = Field(description="#rrggbb")
    ratio: float = Field(ge=0, le=1, description="Share of the picture this colour covers.")


class AssetProblem(Model):
    """Why a file shows no (or only part of its) picture."""

    code: Literal["damaged", "truncated", "too-large"]
    message: str = Field(description="For people, e.g. 'Damaged file: ...'.")


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
    problem: AssetProblem | None = Field(default=None, description="The file is damaged, "
                                         "cut off or too large to show (it stays an asset).")


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
    taken_at: str | None = Field(default=None, description="When the photo was taken (EXIF), "
                                 "as the camera's local time: 2024-07-01T18:30:05.")
    camera: str | None = Field(default=None, description="Camera make and model (EXIF).")
    lens: str | None = Field(default=None, description="Lens model (EXIF).")
    palette: list[PaletteColor] = Field(default_factory=list, description="Dominant colours, "
                                        "largest share first (empty until analysed).")


class FileImportIn(Model):
    """Copy files (and folders, recursively) from disk into the library."""

    source_paths: Annotated[list[SourcePath], Field(min_length=1, max_length=1000)] = Field(
        description="Absolute paths of files or folders on this computer.")
    folder_id: FolderId | None = Field(default=None,
                                       description="Put the new assets in this folder.")
    tags: Annotated[list[TagName], Field(max_length=100)] = Field(
        default_factory=list, description="Tags to add to every imported asset (also to "
        "content the library had already).")
    recursive: bool = True
    keep_folder_tree: bool = Field(default=True, description="A folder given in sourcePaths "
                                   "becomes a library folder of the same name (inside folderId "
                                   "if given), its subfolders become subfolders, and each file "
                                   "goes into the folder it was in (existing folders of the "
                                   "same name are reused). false: every file goes straight "
                                   "into folderId (or no folder).")


class ImportItem(Model):
    source_path: str
    status: Literal["imported", "duplicate", "failed", "skipped"]
    asset_id: AssetId | None = Field(default=None, description="The new asset, or for a "
                                     "duplicate the asset that already holds this content.")
    folder_id: FolderId | None = Field(default=None, description="The library folder the "
                                       "import put it in (for a duplicate: added to).")
    tags_added: list[str] = Field(default_factory=list, description="Tags this import gave "
                                  "it (for a duplicate: those it did not carry yet).")
    warning: str | None = Field(default=None, description="Imported, but with a problem to "
                                "know about, e.g. a damaged image that shows no preview.")
    error_code: str | None = None
    error: str | None = Field(default=None, description="Why it failed or was skipped.")
    reason: Literal["hidden", "system-file", "link", "library", "cancelled"] | None = Field(
        default=None, description="Why it was skipped: a hidden file or folder, an operating "
        "system file (Thumbs.db, desktop.ini), a symbolic link, a Serpent library inside the "
        "folder, or the import was cancelled.")


class FileImportOut(Model):
    items: list[ImportItem]
    imported: int
    duplicates: int
    failed: int
    skipped: int = Field(default=0, description="Files of the given folders not imported "
                         "(hidden, system files; see each item's reason).")
    folders_created: int = Field(default=0, description="Library folders the import made "
                                 "to mirror the given folders.")
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
    taken_after: datetime | None = Field(default=None, description="Photos taken at or "
                                         "after this (the camera's local time).")
    taken_before: datetime | None = Field(default=None, description="Photos taken before "
                                          "this (the camera's local time).")
    camera: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None, description="Part of the camera's make and model, any case.")
    lens: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None, description="Part of the lens model, any case.")
    orientation: list[Orientation] = Field(default_factory=list, description="Any of these "
                                           "shapes (as displayed): square (sides within 5 %), "
                                           "panoramic (one side 2x the other or more), "
                                           "portrait, landscape.")
    aspect_ratio_min: float | None = Field(default=None, gt=0, le=100, description="Width / "
                                           "height at least this (1.5 for 3:2).")
    aspect_ratio_max: float | None = Field(default=None, gt=0, le=100)
    color: HexColor | None = Field(default=None, description="Only assets with this colour: "
                                   "some palette colour covering at least colorMinRatio of "
                                   "the picture within colorTolerance of it (needs analysis).")
    color_tolerance: float = Field(default=20, ge=1, le=100, description="CIELAB delta E "
                                   "(CIE76): about 2 is barely visible, 10 a clearly different "
                                   "shade, 30+ another colour.")
    color_min_ratio: float = Field(default=0.05, ge=0, le=1, description="How much of the "
                                   "picture the colour must cover (0-1).")
    rules: RuleSet | None = Field(default=None, description="Also match these rules (the "
                                  "same rules and any/all groups smart collections use).")
    trashed: bool = Field(default=False, description="Search the trash instead.")
    sort: SearchSort = Field(default="added-desc", description="collection-order: the "
                             "order of a hand-picked collection's members (needs its "
                             "collectionId); taken-desc/-asc: by date taken (photos without "
                             "one last); color-similarity: closest to `color` first (needs "
                             "color); hue: by the hue of the dominant colour, red to violet, "
                             "then greys dark to light, then assets without a palette.")
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


PreviewStatus = Literal["ready", "queued", "pending", "failed", "unsupported"]


class AssetPreviewStatusIn(Model):
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=500)] | None = Field(
        default=None, description="These assets; omit for counts over the whole library "
        "(outside the trash) without per-asset items.")


class PreviewCounts(Model):
    ready: int = 0
    queued: int = 0
    pending: int = 0
    failed: int = 0
    unsupported: int = 0


class PreviewProgress(Model):
    """Previews being made in the background right now (after an import)."""

    task_id: str | None = Field(default=None, description="The previews task (task.get).")
    done: int
    total: int
    workers: int = Field(description="Previews made at the same time (one per core).")


class AssetPreviewStatusOut(Model):
    items: dict[str, PreviewStatus] = Field(default_factory=dict, description="ready: a "
                                            "thumbnail exists; queued: being made in the "
                                            "background now; pending: asset.thumbnail makes "
                                            "it on request; failed: the file is missing or "
                                            "damaged; unsupported: not an image Serpent can "
                                            "show.")
    counts: PreviewCounts = Field(default_factory=PreviewCounts, description="How many of "
                                  "the assets asked about (or of the library) are in each "
                                  "state.")
    making: PreviewProgress | None = Field(default=None, description="Background preview "
                                           "work under way, if any.")
    not_found: list[str] = Field(default_factory=list, description="Ids of no asset.")
