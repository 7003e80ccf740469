"""Registry declarations: import, assets, thumbnails, trash and permanent delete.

Thread-safe (data only).
"""

from __future__ import annotations

from library.schemas import (
    AssetBatchOut,
    AssetCopyIn,
    AssetDeletePermanentlyIn,
    AssetGetIn,
    AssetGetOut,
    AssetMoveIn,
    AssetPreviewStatusIn,
    AssetPreviewStatusOut,
    AssetRestoreIn,
    AssetSearchIn,
    AssetSearchOut,
    AssetTagIn,
    AssetThumbnailIn,
    AssetThumbnailOut,
    AssetTrashIn,
    AssetUntagIn,
    AssetUpdateIn,
    AssetUpdateOut,
    DeleteOut,
    FileImportIn,
    FileImportOut,
    FindDuplicatesIn,
    FindDuplicatesOut,
    FindSimilarIn,
    FindSimilarOut,
    TrashEmptyIn,
    TrashListIn,
)
from serpent_tk.automation.registry import CommandSpec, command

LIB = "lib_01j9z3k4m5n6p7q8"
A1, A2 = "ast_01j9z3k4m5n6p7q8", "ast_01j9z3k4m5n6p7r2"

COMMANDS: list[CommandSpec] = [
    command(
        "file.import", FileImportIn, FileImportOut, "normal",
        "Copy files or whole folders from this computer into the library (originals stay where "
        "they are). A folder keeps its tree: it becomes a library folder of its name (inside "
        "folderId if given) with its subfolders under it, each file in the folder it was in; "
        "keepFolderTree false puts every file straight into folderId. Identical content "
        "already in the library is reported as a duplicate, not copied again, and still gets "
        "the import's folder and tags (said per item). Hidden and system files of a folder are "
        "skipped with a reason; a damaged image is imported with a warning. Previews are made "
        "right away on every core (asset.preview-status shows how far). Can be undone (undo "
        "moves the new assets to the trash and removes the folders it made).",
        "one item per source file with status imported/duplicate/failed/skipped, assetId, "
        "folderId, tagsAdded, warning, reason; imported, duplicates, failed, skipped and "
        "foldersCreated counts.",
        {"libraryId": LIB, "sourcePaths": ["/home/ana/Downloads/refs"], "tags": ["refs"]},
        lifecycle="imported", imports=True),
    command(
        "asset.search", AssetSearchIn, AssetSearchOut, "read",
        "Find assets by words, tags, folder, collection, kind, extension, rating, date added, "
        "date taken, camera, lens, orientation, aspect ratio or colour; every given filter "
        "must match, and rules adds a tree of any/all groups (the rules smart collections "
        "use). Colour: color '#rrggbb' finds assets whose palette has a colour covering at "
        "least colorMinRatio (0-1, default 0.05) of the picture within colorTolerance of it "
        "(CIELAB delta E, default 20: 2 is barely visible, 10 another shade, 30+ another "
        "colour); sort color-similarity puts the closest first, sort hue orders by the "
        "dominant colour. Orientation and sizes are as displayed (EXIF rotation applied). "
        "Page with cursor/nextCursor.",
        "items (id, name, kind, size, width, height, tags, rating, version, problem...), "
        "total, nextCursor, truncated.",
        {"libraryId": LIB, "text": "sunset", "tags": ["sky"], "ratingMin": 4,
         "color": "#ff8800", "orientation": ["landscape"], "limit": 20}),
    command(
        "asset.get", AssetGetIn, AssetGetOut, "read",
        "Get everything about some assets: notes, source URL, format, width and height as "
        "displayed, date taken, camera, lens, colour palette (colours with the share of the "
        "picture each covers), a problem (damaged file) if any, who added or changed them, "
        "and their current version (for expectedVersion).",
        "items (full assets, palette as [{color, ratio}]) and notFound ids.",
        {"libraryId": LIB, "assetIds": [A1]}),
    command(
        "asset.update", AssetUpdateIn, AssetUpdateOut, "normal",
        "Change an asset's name, notes, rating (0-5) or source URL; omitted fields stay. Pass "
        "expectedVersion from asset.get to avoid overwriting someone else's change.",
        "item: the updated asset with its new version.",
        {"libraryId": LIB, "assetId": A1, "rating": 5, "expectedVersion": 3},
        idempotent=True),
    command(
        "asset.tag", AssetTagIn, AssetBatchOut, "normal",
        "Add tags to assets (tags are created as needed).",
        "one item per asset with status changed/unchanged/not_found and its new version.",
        {"libraryId": LIB, "assetIds": [A1, A2], "tags": ["sky", "blue"]}, idempotent=True),
    command(
        "asset.untag", AssetUntagIn, AssetBatchOut, "normal",
        "Remove tags from assets (the tags themselves stay; see tag.delete).",
        "one item per asset with status changed/unchanged/not_found and its new version.",
        {"libraryId": LIB, "assetIds": [A1], "tags": ["blue"]}, idempotent=True),
    command(
        "asset.move", AssetMoveIn, AssetBatchOut, "normal",
        "Put assets in exactly one folder, leaving all others (folderId null: in no folder).",
        "one item per asset with status and new version.",
        {"libraryId": LIB, "assetIds": [A1], "folderId": "fld_01j9z3k4m5n6p7q8"},
        idempotent=True),
    command(
        "asset.copy", AssetCopyIn, AssetBatchOut, "normal",
        "Also show assets in another folder, keeping their other folders (no file is copied).",
        "one item per asset with status and new version.",
        {"libraryId": LIB, "assetIds": [A1, A2], "folderId": "fld_01j9z3k4m5n6p7q8"},
        idempotent=True),
    command(
        "asset.thumbnail", AssetThumbnailIn, AssetThumbnailOut, "read",
        "Look at an asset: returns a downscaled preview image so you can see what it shows.",
        "the image (as image content over MCP) with its width and height.",
        {"libraryId": LIB, "assetId": A1, "size": 512}),
    command(
        "asset.preview-status", AssetPreviewStatusIn, AssetPreviewStatusOut, "read",
        "Check whether previews (thumbnails) of assets are ready; without assetIds, counts "
        "over the whole library. After an import previews are made in the background on "
        "every core: making says how far (taskId for task.get).",
        "items: a map of asset id to ready/queued/pending/failed/unsupported; counts of "
        "each; making (done, total) while previews are being made.",
        {"libraryId": LIB, "assetIds": [A1, A2]}),
    command(
        "asset.trash", AssetTrashIn, AssetBatchOut, "recoverable",
        "Move assets to the library's trash. They can be restored with asset.restore (or "
        "undone) until the trash is emptied.",
        "one item per asset with status changed/unchanged/not_found.",
        {"libraryId": LIB, "assetIds": [A1, A2]}, idempotent=True),
    command(
        "asset.restore", AssetRestoreIn, AssetBatchOut, "normal",
        "Take assets out of the trash, back where they were.",
        "one item per asset with status changed/unchanged/not_found.",
        {"libraryId": LIB, "assetIds": [A1]}, idempotent=True),
    command(
        "trash.list", TrashListIn, AssetSearchOut, "read",
        "List the assets in the trash, most recently trashed first.",
        "items, total, nextCursor, truncated.",
        {"libraryId": LIB, "limit": 50}),
    command(
        "asset.delete-permanently", AssetDeletePermanentlyIn, DeleteOut, "dangerous",
        "Delete assets and their files for good (they skip the trash and cannot be restored "
        "or undone). Prefer asset.trash unless the person asked for permanent deletion.",
        "deleted count and freedBytes.",
        {"libraryId": LIB, "assetIds": [A1]}),
    command(
        "trash.empty", TrashEmptyIn, DeleteOut, "dangerous",
        "Permanently delete everything in the library's trash, files included. Cannot be "
        "undone.",
        "deleted count and freedBytes.",
        {"libraryId": LIB}),
    command(
        "asset.find-duplicates", FindDuplicatesIn, FindDuplicatesOut, "read",
        "Find groups of visually near-identical images: the same picture resized, re-encoded, "
        "brightened or cropped by a few percent. Compares perceptual hashes (maxDistance, "
        "default 10 of 64 bits), mean colour (a red and a blue version are not duplicates) and "
        "shape. Each group names the one that looks best to keep (largest picture, then "
        "largest file, then oldest) and lists every member with size and dimensions: trash "
        "the others with one asset.trash (one undoable step). Needs analysis: assets not "
        "analysed yet are counted in notAnalysed (run analysis.run first). Byte-identical "
        "files cannot exist in a library (method exact finds none).",
        "items: groups with assetIds (oldest first), keep, keepReason, members (assetId, name, "
        "width, height, size, addedAt, distance, colorDistance), distance; total, analysed, "
        "notAnalysed, note; nextCursor, truncated.",
        {"libraryId": LIB, "method": "similar", "maxDistance": 10}),
    command(
        "asset.find-similar", FindSimilarIn, FindSimilarOut, "read",
        "Find the images that look like one asset (the same test as asset.find-duplicates: "
        "resized, re-encoded, brightened or slightly cropped copies), closest first.",
        "items (assetId, name, width, height, size, addedAt, distance, colorDistance), total, "
        "and a note when the asset cannot be compared yet.",
        {"libraryId": LIB, "assetId": A1}),
]
