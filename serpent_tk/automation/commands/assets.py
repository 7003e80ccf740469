"""Registry declarations: import, assets, thumbnails, trash and permanent delete.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation.registry import CommandSpec, Words, command

LIB = "lib_01j9z3k4m5n6p7q8"
A1, A2 = "ast_01j9z3k4m5n6p7q8", "ast_01j9z3k4m5n6p7r2"

COMMANDS: list[CommandSpec] = [
    command(
        "file.import", "normal",
        "Copy files or whole folders from this computer into the library (originals stay where "
        "they are). Identical content already in the library is reported as a duplicate, not "
        "copied again. Can be undone (undo moves the new assets to the trash).",
        "one item per source file with status imported/duplicate/failed/skipped and assetId, "
        "plus imported, duplicates and failed counts.",
        {"libraryId": LIB, "sourcePaths": ["/home/ana/Downloads/refs"], "tags": ["refs"]},
        lifecycle="imported", imports=True,
        words=Words("imported {files} into “{library}”", "imported {files} into a library"),
        recount="everywhere"),
    command(
        "asset.search", "read",
        "Find assets by words, tags, folder, collection, kind, extension, rating or date; every "
        "given filter must match. Page with cursor/nextCursor.",
        "items (id, name, kind, size, tags, rating, version...), total, nextCursor, truncated.",
        {"libraryId": LIB, "text": "sunset", "tags": ["sky"], "ratingMin": 4, "limit": 20}),
    command(
        "asset.get", "read",
        "Get everything about some assets: notes, source URL, format, who added or changed "
        "them, and their current version (for expectedVersion).",
        "items (full assets) and notFound ids.",
        {"libraryId": LIB, "assetIds": [A1]}),
    command(
        "asset.update", "normal",
        "Change an asset's name, notes, rating (0-5) or source URL; omitted fields stay. Pass "
        "expectedVersion from asset.get to avoid overwriting someone else's change.",
        "item: the updated asset with its new version.",
        {"libraryId": LIB, "assetId": A1, "rating": 5, "expectedVersion": 3},
        idempotent=True,
        words=Words("edited {assets}", "edited an asset")),
    command(
        "asset.rename-batch", "normal",
        "Give several assets new names in one step, which one history.undo takes back "
        "(e.g. a numbered series). Each item may carry expectedVersion; if any asset is "
        "missing or changed meanwhile, nothing is renamed.",
        "one item per asset with status changed/unchanged and its new version.",
        {"libraryId": LIB, "items": [{"assetId": A1, "name": "Skies-001"},
                                     {"assetId": A2, "name": "Skies-002"}]},
        idempotent=True, words=Words("renamed assets", "renamed assets")),
    command(
        "asset.tag", "normal",
        "Add tags to assets (tags are created as needed).",
        "one item per asset with status changed/unchanged/not_found and its new version.",
        {"libraryId": LIB, "assetIds": [A1, A2], "tags": ["sky", "blue"]}, idempotent=True,
        words=Words("tagged {assets} with “{tags}”", "tagged assets")),
    command(
        "asset.untag", "normal",
        "Remove tags from assets (the tags themselves stay; see tag.delete).",
        "one item per asset with status changed/unchanged/not_found and its new version.",
        {"libraryId": LIB, "assetIds": [A1], "tags": ["blue"]}, idempotent=True,
        words=Words("removed “{tags}” from {assets}", "untagged assets")),
    command(
        "asset.move", "normal",
        "Put assets in exactly one folder, leaving all others (folderId null: in no folder).",
        "one item per asset with status and new version.",
        {"libraryId": LIB, "assetIds": [A1], "folderId": "fld_01j9z3k4m5n6p7q8"},
        idempotent=True,
        words=Words("moved {assets}", "moved assets"), recount="folders"),
    command(
        "asset.copy", "normal",
        "Also show assets in another folder, keeping their other folders (no file is copied).",
        "one item per asset with status and new version.",
        {"libraryId": LIB, "assetIds": [A1, A2], "folderId": "fld_01j9z3k4m5n6p7q8"},
        idempotent=True,
        words=Words("filed {assets}", "filed assets"), recount="folders"),
    command(
        "asset.thumbnail", "read",
        "Look at an asset: returns a downscaled preview image so you can see what it shows.",
        "the image (as image content over MCP) with its width and height.",
        {"libraryId": LIB, "assetId": A1, "size": 512},
        returns_image=True),
    command(
        "asset.preview-status", "read",
        "Check whether previews (thumbnails) of assets are ready.",
        "items: a map of asset id to ready/pending/failed/unsupported.",
        {"libraryId": LIB, "assetIds": [A1, A2]}),
    command(
        "asset.trash", "recoverable",
        "Move assets to the library's trash. They can be restored with asset.restore (or "
        "undone) until the trash is emptied.",
        "one item per asset with status changed/unchanged/not_found.",
        {"libraryId": LIB, "assetIds": [A1, A2]}, idempotent=True,
        words=Words("trashed {assets}", "trashed assets"), recount="everywhere"),
    command(
        "asset.restore", "normal",
        "Take assets out of the trash, back where they were.",
        "one item per asset with status changed/unchanged/not_found.",
        {"libraryId": LIB, "assetIds": [A1]}, idempotent=True,
        words=Words("restored {assets}", "restored assets"), recount="everywhere"),
    command(
        "trash.list", "read",
        "List the assets in the trash, most recently trashed first.",
        "items, total, nextCursor, truncated.",
        {"libraryId": LIB, "limit": 50}),
    command(
        "asset.delete-permanently", "dangerous",
        "Delete assets and their files for good (they skip the trash and cannot be restored "
        "or undone). Prefer asset.trash unless the person asked for permanent deletion.",
        "deleted count and freedBytes.",
        {"libraryId": LIB, "assetIds": [A1]},
        words=Words("permanently deleted {assets}", "permanently deleted assets"),
        recount="everywhere"),
    command(
        "trash.empty", "dangerous",
        "Permanently delete everything in the library's trash, files included. Cannot be "
        "undone.",
        "deleted count and freedBytes.",
        {"libraryId": LIB},
        words=Words("emptied the trash"), recount="everywhere"),
    command(
        "asset.find-duplicates", "read",
        "Find groups of visually near-identical images (the same picture resized, re-encoded "
        "or slightly edited) by perceptual hash distance (maxDistance, default 4). Needs "
        "analysis: assets not analysed yet are counted in notAnalysed (run analysis.run "
        "first). Byte-identical files cannot exist in a library (method exact finds none).",
        "items: groups of assetIds (oldest first) with reason and distance; total, analysed, "
        "notAnalysed, note; nextCursor, truncated.",
        {"libraryId": LIB, "method": "similar", "maxDistance": 4}),
]
