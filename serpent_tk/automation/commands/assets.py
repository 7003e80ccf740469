"""Registry declarations: import, assets, thumbnails, trash and permanent delete.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation.commands.examples import A1, A2, F1, HOME, LIB
from serpent_tk.automation.registry import CommandSpec, command

COMMANDS: list[CommandSpec] = [
    command(
        "file.import",
        "Copy files or folders into the library (originals stay, folder trees kept); content "
        "it already has is reported as a duplicate.",
        "items per source path (status imported/duplicate/failed/skipped, assetId).",
        {"libraryId": LIB, "sourcePaths": [f"{HOME}/Downloads/refs"]},
        title="Import files", essential=True, lifecycle="imported", imports=True,
        recount="everywhere", long_work="call"),
    command(
        "asset.search",
        "Find assets by words (also text in pictures), tags, folder, collection, kind, "
        "extension, rating, dates, camera, lens, shape or colour (all must match; rules: "
        "any/all groups).",
        "items, total, nextCursor.",
        {"libraryId": LIB, "text": "sunset", "color": "#ff8800", "limit": 20},
        title="Search assets", essential=True),
    command(
        "asset.get",
        "Get everything about assets: notes, source URL, format, size as displayed, date "
        "taken, camera, lens, colour palette, problem, file path, who added or changed them, "
        "version.",
        "",
        {"libraryId": LIB, "assetIds": [A1]},
        title="Asset details", essential=True),
    command(
        "asset.update",
        "Rate, annotate or rename one asset (assetId), or make the same change to up to 500 "
        "(assetIds: rating, notes, sourceUrl) in one undo step.",
        "items per asset (status changed/unchanged/not_found/version_conflict).",
        {"libraryId": LIB, "assetIds": [A1, A2], "rating": 5},
        title="Edit assets", essential=True, idempotent=True),
    command(
        "asset.rename-batch",
        "Give several assets each a new name in one undo step (a numbered series); if any "
        "is missing or changed (expectedVersion), none is renamed.",
        "items per asset (status changed/unchanged, version).",
        {"libraryId": LIB, "items": [{"assetId": A1, "name": "Skies-001"},
                                     {"assetId": A2, "name": "Skies-002"}]},
        title="Rename assets", idempotent=True),
    command(
        "asset.tag",
        "Add tags to assets: the same to all (assetIds, tags), or per asset (tagsByAsset). "
        "One undo step.",
        "",
        {"libraryId": LIB, "tagsByAsset": {A1: ["sky", "sunset"], A2: ["forest"]}},
        title="Tag assets", essential=True, idempotent=True),
    command(
        "asset.untag",
        "Remove tags from assets (the tags themselves stay).",
        "",
        {"libraryId": LIB, "assetIds": [A1], "tags": ["blue"]},
        title="Untag assets", essential=True, idempotent=True),
    command(
        "asset.move",
        "File assets in exactly one folder, out of all others (folderId null: in none).",
        "",
        {"libraryId": LIB, "assetIds": [A1], "folderId": F1},
        title="Move to folder", essential=True, idempotent=True, recount="folders"),
    command(
        "asset.copy",
        "Also file assets in another folder, keeping their others (no file is copied).",
        "",
        {"libraryId": LIB, "assetIds": [A1, A2], "folderId": F1},
        title="Add to folder", idempotent=True, recount="folders"),
    command(
        "asset.thumbnail",
        "See what assets show before tagging, rating or filing them: one preview (assetId), or "
        "a contact sheet of up to 36 (assetIds).",
        "an image; for a sheet items (index: the number on a cell, assetId, name).",
        {"libraryId": LIB, "assetIds": [A1, A2]},
        title="Look at assets", essential=True, returns_image=True),
    command(
        "asset.preview-status",
        "Check whether previews of assets are ready; without assetIds, counts over the "
        "library and an import's previews in the making.",
        "items: id: ready/queued/pending/failed/unsupported; counts; making.",
        {"libraryId": LIB, "assetIds": [A1, A2]},
        title="Preview status"),
    command(
        "asset.trash",
        "Move assets to the trash (asset.restore or undo brings them back).",
        "",
        {"libraryId": LIB, "assetIds": [A1, A2]},
        title="Trash assets", essential=True, idempotent=True, recount="everywhere"),
    command(
        "asset.restore",
        "Take assets out of the trash, back where they were (ids from trash.list).",
        "",
        {"libraryId": LIB, "assetIds": [A1]},
        title="Restore from trash", essential=True, idempotent=True, recount="everywhere"),
    command(
        "trash.list",
        "List the assets in the trash, most recently trashed first.",
        "",
        {"libraryId": LIB, "limit": 50},
        title="List the trash", essential=True),
    command(
        "asset.delete-permanently",
        "Delete assets and their files for good (no undo), only when the person asked; "
        "else asset.trash.",
        "",
        {"libraryId": LIB, "assetIds": [A1]},
        title="Delete for good",
        recount="everywhere"),
    command(
        "trash.empty",
        "Permanently delete everything in the trash, files included (no undo).",
        "",
        {"libraryId": LIB},
        title="Empty the trash", recount="everywhere"),
    command(
        "asset.find-duplicates",
        "Find groups of near-identical images (resized, re-encoded, brightened, cropped, "
        "turned, mirrored; same colours) to clean up, each with one to keep.",
        "items: groups (assetIds oldest first, keep, members).",
        {"libraryId": LIB, "maxDistance": 10},
        title="Find duplicates", essential=True),
    command(
        "asset.find-similar",
        "Find the images that look like one asset (as asset.find-duplicates), closest first.",
        "items (assetId, name, distance), total.",
        {"libraryId": LIB, "assetId": A1},
        title="Find similar"),
]
