"""Registry declarations: folders, linked folders, tags and collections.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation.commands.examples import A1, C1, C2, F1, F2, HOME, L1, LIB
from serpent_tk.automation.registry import CommandSpec, command

SKY_RULES = {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]}

FOLDERS: list[CommandSpec] = [
    command(
        "folder.list",
        "List folders (the tree, or parentId's children); an asset may be in several.",
        "",
        {"libraryId": LIB},
        title="List folders", essential=True),
    command(
        "folder.create",
        "Create a folder (top level, or inside parentId).",
        "",
        {"libraryId": LIB, "name": "Characters", "parentId": F1},
        title="New folder", essential=True),
    command(
        "folder.rename",
        "Rename a folder (its assets and subfolders stay in it).",
        "",
        {"libraryId": LIB, "folderId": F1, "name": "Environments"},
        title="Rename folder", idempotent=True),
    command(
        "folder.move",
        "Move a folder under another folder (parentId null: to the top level).",
        "",
        {"libraryId": LIB, "folderId": F1, "parentId": F2},
        title="Move folder", idempotent=True),
    command(
        "folder.delete-empty",
        "Delete empty folders (no assets, no subfolders); if one is not empty, none is "
        "deleted (NOT_EMPTY).",
        "",
        {"libraryId": LIB, "folderIds": [F1, F2]},
        title="Delete empty folders"),
]

LINKED_FOLDERS: list[CommandSpec] = [
    command(
        "linked-folder.list",
        "List linked folders (disk folders kept in step with a library folder): ids, paths, "
        "rules, status.",
        "",
        {"libraryId": LIB},
        title="List linked folders"),
    command(
        "linked-folder.create",
        "Link a folder on disk: its files (by rules) are imported into a new library folder "
        "and kept in step; the disk is never changed.",
        "",
        {"libraryId": LIB, "path": f"{HOME}/Projects/game/art",
         "rules": {"include": ["*.png", "*.psd"]}},
        title="Link a disk folder", recount="everywhere"),
    command(
        "linked-folder.reconnect",
        "Point a linked folder whose disk folder moved (status missing) at its new place.",
        "",
        {"libraryId": LIB, "linkedFolderId": L1, "path": f"{HOME}/Art/game"},
        title="Reconnect linked folder", idempotent=True),
    command(
        "linked-folder.unlink",
        "Stop syncing a linked folder; its assets stay (keepAssets) or go to the trash.",
        "",
        {"libraryId": LIB, "linkedFolderId": L1, "keepAssets": True},
        title="Unlink folder"),
    command(
        "linked-folder.update-rules",
        "Change which files of a linked folder become assets, then re-sync.",
        "",
        {"libraryId": LIB, "linkedFolderId": L1, "rules": {"exclude": ["*/old/*"]}},
        title="Linked folder rules", idempotent=True),
    command(
        "linked-folder.refresh",
        "Re-scan a linked folder now: new and changed files imported (tags and notes carry "
        "over), gone ones let go.",
        "added, updated, missing, failed.",
        {"libraryId": LIB, "linkedFolderId": L1},
        title="Sync linked folder", idempotent=True, recount="everywhere"),
]

TAGS: list[CommandSpec] = [
    command(
        "tag.list",
        "List tags with how many assets carry each, to reuse them rather than invent "
        "near-duplicates.",
        "",
        {"libraryId": LIB, "sort": "count", "limit": 100},
        title="List tags", essential=True),
    command(
        "tag.rename",
        "Rename a tag on every asset (onto an existing tag: use tag.merge).",
        "affectedAssets.",
        {"libraryId": LIB, "tag": "sunsett", "newName": "sunset"},
        title="Rename tag"),
    command(
        "tag.delete",
        "Remove a tag from every asset and delete it.",
        "affectedAssets.",
        {"libraryId": LIB, "tag": "temp"},
        title="Delete tag"),
    command(
        "tag.delete-batch",
        "Delete several tags from every asset.",
        "affectedAssets, notFound.",
        {"libraryId": LIB, "tags": ["temp", "todo"]},
        title="Delete tags"),
    command(
        "tag.merge",
        "Merge spelling variants into the target tag (the sources go; tags ignore case).",
        "affectedAssets, targetCreated.",
        {"libraryId": LIB, "sources": ["skies", "skyy"], "target": "sky"},
        title="Merge tags"),
    command(
        "tag.cooccurrence",
        "Find the tags most used together with a tag, to suggest related ones.",
        "items (name, count).",
        {"libraryId": LIB, "tag": "sky", "limit": 10},
        title="Related tags"),
]

COLLECTIONS: list[CommandSpec] = [
    command(
        "collection.list",
        "List collections (hand-picked and smart ones) in sidebar order.",
        "",
        {"libraryId": LIB},
        title="List collections", essential=True),
    command(
        "collection.create",
        "Create a collection: hand-picked (then collection.members) or smart (rules).",
        "",
        {"libraryId": LIB, "name": "Skies", "rules": SKY_RULES},
        title="New collection", essential=True),
    command(
        "collection.update",
        "Rename a collection or change a smart collection's rules.",
        "",
        {"libraryId": LIB, "collectionId": C1, "name": "Best skies"},
        title="Edit collection", idempotent=True),
    command(
        "collection.reorder",
        "Set the sidebar order of collections (ids in the new order).",
        "",
        {"libraryId": LIB, "collectionIds": [C2, C1]},
        title="Order collections", idempotent=True),
    command(
        "collection.delete",
        "Delete a collection (its assets stay).",
        "",
        {"libraryId": LIB, "collectionId": C1},
        title="Delete collection"),
    command(
        "collection.members",
        "Add assets to a hand-picked collection (kept in the order added) or remove them.",
        "",
        {"libraryId": LIB, "collectionId": C1, "add": [A1]},
        title="Collect assets", essential=True, idempotent=True),
    command(
        "collection.run-rules",
        "List the assets a smart collection's rules (or rules to try) match now.",
        "",
        {"libraryId": LIB, "rules": SKY_RULES, "limit": 50},
        title="Try rules"),
]

COMMANDS: list[CommandSpec] = [*FOLDERS, *LINKED_FOLDERS, *TAGS, *COLLECTIONS]
