"""Models of the asset commands: import, search, get, update, tag, move, trash, thumbnails."""

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import AnyHttpUrl, Field, model_validator

from library.schemas.collections import RulesLikeCreate
from library.schemas.common import (
    ASSET_ID,
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
    "RiskTarget", "AssetUpdateOut", "UpdateItem", "SheetCell", "MAX_SHEET", "MAX_BATCH_EDIT",
    "RenameItem", "AssetRenameBatchIn", "PaletteColor", "AssetProblem", "Orientation",
    "HexColor", "PreviewCounts", "PreviewProgress", "FoundText",
]

MAX_BATCH_EDIT = 500  # assets one asset.update or tagsByAsset changes at once
MAX_SHEET = 36  # assets on one contact sheet (a 6 × 6 grid)
AssetIds = Annotated[list[AssetId], Field(min_length=1, max_length=1000,
                                          description="ast_ ids.")]
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


class FoundText(Model):
    """Text an analyser found in an asset (the words in a picture: `ocr-text`)."""

    source: str = Field(description="Who found it: a plugin analyser, e.g. ocr-text.")
    text: str


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
    duration: float | None = Field(default=None, description="Seconds (video, sound).")
    pages: int | None = Field(default=None, description="Pages (PDF, Illustrator).")
    codec: str | None = Field(default=None, description="Video or sound codec, e.g. h264.")
    font_family: str | None = Field(default=None, description="A font's family.")
    font_style: str | None = Field(default=None, description="A font's style, e.g. Bold.")
    found_text: list[FoundText] = Field(default_factory=list, description="Text found in it "
                                        "(e.g. words in a picture), by source.")


class FileImportIn(Model):
    """Copy files (and folders, recursively) from disk into the library."""

    source_paths: Annotated[list[SourcePath], Field(min_length=1, max_length=1000)] = Field(
        description="Absolute paths of files or folders on this computer.")
    folder_id: FolderId | None = Field(default=None,
                                       description="Put the new assets in this folder.")
    tags: Annotated[list[TagName], Field(max_length=100)] = Field(
        default_factory=list, description="Tags to add to every imported asset.")
    recursive: bool = Field(default=True, description="Folders: also their subfolders.")
    keep_folder_tree: bool = Field(default=True, description="Folders become library "
                                   "folders (in folderId); false: files straight into it.")


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
    reason: Literal["hidden", "system-file", "link", "library", "private", "cancelled"] | None \
        = Field(default=None, description="Why it was skipped: a hidden file or folder, an "
                "operating system file (Thumbs.db, desktop.ini), a symbolic link, a Serpent "
                "library inside the folder, Serpent's own settings folder, or the import was "
                "cancelled.")


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
        default=None, description="Words in name, notes, tags, URL, found text.")
    tags: Annotated[list[TagName], Field(max_length=50)] = Field(
        default_factory=list, description="Assets carrying all of these tags.")
    folder_id: FolderId | None = Field(default=None, description="Assets in this folder.")
    include_subfolders: bool = Field(default=False, description="Its subfolders too.")
    unfiled: bool = Field(default=False, description="Only assets in no folder.")
    untagged: bool = Field(default=False, description="Only assets without tags.")
    collection_id: CollectionId | None = Field(default=None, description="Assets of this "
                                               "collection.")
    kind: list[AssetKind] = Field(default_factory=list, description="Any of these kinds.")
    ext: Annotated[list[Annotated[str, Field(max_length=16)]], Field(max_length=50)] = Field(
        default_factory=list, description="Extensions, e.g. png, jpg.")
    rating_min: int | None = Field(default=None, ge=0, le=5, description="At least.")
    rating_max: int | None = Field(default=None, ge=0, le=5, description="At most.")
    added_after: datetime | None = Field(default=None, description="Added after (ISO).")
    added_before: datetime | None = Field(default=None, description="Added before (ISO).")
    taken_after: datetime | None = Field(default=None, description="Taken after (camera "
                                         "time).")
    taken_before: datetime | None = Field(default=None, description="Taken before.")
    orientation: list[Orientation] = Field(default_factory=list, description="As displayed; "
                                           "square ±5 %, panoramic ≥ 2:1.")
    color: HexColor | None = Field(default=None, description="#rrggbb in the "
                                   "palette.")
    color_tolerance: float = Field(default=44, ge=1, le=100, description="Colour distance, "
                                   "hue weighs most; 44 same hue.")
    color_min_ratio: float = Field(default=0.3, ge=0, le=1, description="Share its close "
                                   "colours cover.")
    rules: RulesLikeCreate = Field(default=None, description="Smart-collection "
                                  "rules to match too.")
    trashed: bool = Field(default=False, description="Search the trash instead.")
    sort: SearchSort = Field(default="added-desc", description="collection-order needs "
                             "collectionId, color-similarity color.")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None
    offset: int | None = Field(default=None, ge=0, description="Skip this many instead of "
                               "a cursor.")


class AssetSearchOut(Page):
    items: list[AssetSummary]
    total: int = Field(description="How many assets match in all.")


class AssetGetIn(Model):
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=100)] = Field(
        description="Up to 100 assets.")


class AssetGetOut(Model):
    items: list[Asset]
    not_found: list[str] = Field(default_factory=list)


class AssetUpdateIn(Model):
    """Change one asset (`assetId`) or make the same change to many (`assetIds`). Omitted
    fields stay as they are."""

    asset_id: AssetId | None = Field(default=None, description="One asset.")
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=MAX_BATCH_EDIT)] | \
        None = Field(default=None, description="Many, each getting the same change.")
    expected_version: int | None = Field(default=None, ge=1, description="With assetId: "
                                         "refuse unless at this version.")
    expected_versions: dict[str, Annotated[int, Field(ge=1)]] | None = Field(
        default=None, description="With assetIds: {assetId: version}; others are left "
                                  "alone (version_conflict).")
    name: EntityName | None = Field(default=None, description="New name (assetId only).")
    notes: Annotated[str, Field(max_length=20000)] | None = Field(default=None,
                                                                  description="Notes text.")
    rating: int | None = Field(default=None, ge=0, le=5, description="Stars, 0-5.")
    source_url: AnyHttpUrl | Literal[""] | None = Field(
        default=None, description="http(s) URL; \"\" clears it.")

    @model_validator(mode="after")
    def _one_form(self) -> Self:
        if (self.asset_id is None) == (self.asset_ids is None):
            raise ValueError("assetId: give either assetId (one asset) or assetIds (many)")
        if self.asset_ids is not None:
            if self.name is not None:
                raise ValueError("name: can be changed for one asset (assetId) only")
            if self.expected_version is not None:
                raise ValueError("expectedVersion: with assetIds, give expectedVersions "
                                 "{assetId: version}")
            unknown = sorted(set(self.expected_versions or {}) - set(self.asset_ids))
            if unknown:
                raise ValueError(f"expectedVersions: names assets not in assetIds: "
                                 f"{', '.join(key[:40] for key in unknown[:5])}")
        elif self.expected_versions is not None:
            raise ValueError("expectedVersions: with assetId, give expectedVersion")
        if all(v is None for v in (self.name, self.notes, self.rating, self.source_url)):
            raise ValueError("give at least one of name, notes, rating, sourceUrl")
        return self


class UpdateItem(Model):
    """What `asset.update` did to one asset."""

    id: str
    status: Literal["changed", "unchanged", "not_found", "version_conflict"]
    version: int | None = None
    current_version: int | None = Field(default=None, description="version_conflict: the "
                                        "asset's version now.")


class AssetUpdateOut(Model):
    item: Asset | None = Field(default=None, description="With assetId: the asset now.")
    items: list[UpdateItem] = Field(default_factory=list, description="One per asset.")
    changed: int = 0


class AssetBatchOut(BatchOut):
    pass


class RenameItem(Model):
    asset_id: AssetId = Field(description="The asset.")
    name: EntityName = Field(description="Its new name.")
    expected_version: int | None = Field(default=None, ge=1, description="Refuse the batch "
                                         "unless at this version.")


class AssetRenameBatchIn(Model):
    """Give several assets new names at once: one step of the history (one undo)."""

    items: Annotated[list[RenameItem], Field(min_length=1, max_length=1000)] = Field(
        description="Each asset and its new name.")

    @model_validator(mode="after")
    def _each_asset_once(self) -> Self:
        ids = [item.asset_id for item in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("name each asset once")
        return self


class AssetTagIn(Model):
    """The same `tags` for every asset of `assetIds`, or per asset with `tagsByAsset`."""

    asset_ids: AssetIds | None = None
    tags: Annotated[list[TagName], Field(min_length=1, max_length=100)] | None = Field(
        default=None, description="With assetIds: the tags.")
    tags_by_asset: Annotated[dict[str, Annotated[list[TagName], Field(
        min_length=1, max_length=100)]], Field(min_length=1, max_length=MAX_BATCH_EDIT)] | \
        None = Field(default=None, description="Or {assetId: [tags]}, per asset.")

    @model_validator(mode="after")
    def _one_form(self) -> Self:
        if self.tags_by_asset is not None:
            if self.asset_ids is not None or self.tags is not None:
                raise ValueError("tagsByAsset: give either it or assetIds with tags")
            bad = [key for key in self.tags_by_asset if not ASSET_ID.match(key)]
            if bad:
                raise ValueError(f"tagsByAsset: its keys are asset ids (ast_...), not "
                                 f"{bad[0][:40]!r}")
        elif self.asset_ids is None:
            raise ValueError("assetIds: required (with tags), unless tagsByAsset is given")
        elif self.tags is None:
            raise ValueError("tags: required with assetIds")
        return self

    def wanted(self) -> dict[str, list[str]]:
        """Asset id → the tags asked for it, in the order given."""
        if self.tags_by_asset is not None:
            return dict(self.tags_by_asset)
        return {asset_id: list(self.tags or []) for asset_id in (self.asset_ids or [])}


class AssetUntagIn(AssetTagIn):
    pass


class AssetMoveIn(Model):
    """Put assets in exactly one folder (or none with `folderId: null`)."""

    asset_ids: AssetIds
    folder_id: FolderId | None = Field(description="The folder; null: in no folder.")


class AssetCopyIn(Model):
    """Also show assets in another folder (an asset may live in several folders)."""

    asset_ids: AssetIds
    folder_id: FolderId = Field(description="The folder to add them to.")


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
    """One asset's preview (`assetId`), or one contact sheet of up to 36 (`assetIds`)."""

    asset_id: AssetId | None = Field(default=None, description="One asset.")
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=MAX_SHEET)] | None = \
        Field(default=None, description="Up to 36 assets: one contact sheet.")
    size: int = Field(default=512, ge=32, le=1568, description="assetId: longest side, px.")

    @model_validator(mode="after")
    def _one_form(self) -> Self:
        if (self.asset_id is None) == (self.asset_ids is None):
            raise ValueError("assetId: give either assetId (one picture) or assetIds (a contact "
                             "sheet)")
        return self


class SheetCell(Model):
    """One cell of a contact sheet: the number drawn on it and what it shows."""

    index: int
    asset_id: str
    name: str = ""
    status: Literal["shown", "not_found", "no_preview", "file_missing"]
    path: str | None = Field(default=None, description="Thumbnail file inside the library "
                             "(for the main process, never sent to agents).")


class AssetThumbnailOut(Model):
    path: str | None = Field(default=None, description="assetId: the thumbnail file inside "
                             "the library (for the main process, never sent to agents).")
    mime: str | None = None
    width: int | None = None
    height: int | None = None
    items: list[SheetCell] = Field(default_factory=list, description="assetIds: the cells "
                                   "by number.")


PreviewStatus = Literal["ready", "queued", "pending", "failed", "unsupported"]


class AssetPreviewStatusIn(Model):
    asset_ids: Annotated[list[AssetId], Field(min_length=1, max_length=500)] | None = Field(
        default=None, description="Omit for counts over the whole library.")


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
