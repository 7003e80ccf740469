"""Registry declarations: folders, linked folders, tags and collections.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation.commands.examples import A1, C1, C2, F1, F2, HOME, L1, LIB
from serpent_tk.automation.registry import CommandSpec, Words, command

SKY_RULES = {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]}

FOLDERS: list[CommandSpec] = [
    command(
        "folder.list", "read",
        "List folders (the tree, or parentId's children); an asset may be in several.",
        "",
        {"libraryId": LIB},
        title="List folders", essential=True),
    command(
        "folder.create", "normal",
        "Create a folder (top level, or inside parentId).",
        "",
        {"libraryId": LIB, "name": "Characters", "parentId": F1},
        title="New folder", essential=True,
        words=Words("created the folder “{name}”", "created a folder")),
    command(
        "folder.rename", "normal",
        "Rename a folder (its assets and subfolders stay in it).",
        "",
        {"libraryId": LIB, "folderId": F1, "name": "Environments"},
        title="Rename folder", idempotent=True,
        words=Words("renamed a folder to “{name}”", "renamed a folder")),
    command(
        "folder.move", "normal",
        "Move a folder under another folder (parentId null: to the top level).",
        "",
        {"libraryId": LIB, "folderId": F1, "parentId": F2},
        title="Move folder", idempotent=True,
        words=Words("moved the folder “{name}”", "moved a folder")),
    command(
        "folder.delete-empty", "recoverable",
        "Delete empty folders (no assets, no subfolders); if one is not empty, none is "
        "deleted (NOT_EMPTY).",
        "",
        {"libraryId": LIB, "folderIds": [F1, F2]},
        title="Delete empty folders", words=Words("deleted empty folders")),
]

LINKED_FOLDERS: list[CommandSpec] = [
    command(
        "linked-folder.list", "read",
        "List linked folders (disk folders kept in step with a library folder): ids, paths, "
        "rules, status.",
        "",
        {"libraryId": LIB},
        title="List linked folders"),
    command(
        "linked-folder.create", "normal",
        "Link a folder on disk: its files (by rules) are imported into a new library folder "
        "and kept in step; the disk is never changed.",
        "",
        {"libraryId": LIB, "path": f"{HOME}/Projects/game/art",
         "rules": {"include": ["*.png", "*.psd"]}},
        title="Link a disk folder",
        words=Words("linked a folder on disk", doing="Syncing"), recount="everywhere"),
    command(
        "linked-folder.reconnect", "normal",
        "Point a linked folder whose disk folder moved (status missing) at its new place.",
        "",
        {"libraryId": LIB, "linkedFolderId": L1, "path": f"{HOME}/Art/game"},
        title="Reconnect linked folder", idempotent=True,
        words=Words("reconnected a linked folder")),
    command(
        "linked-folder.unlink", "recoverable",
        "Stop syncing a linked folder; its assets stay (keepAssets) or go to the trash.",
        "",
        {"libraryId": LIB, "linkedFolderId": L1, "keepAssets": True},
        title="Unlink folder", words=Words("unlinked a folder")),
    command(
        "linked-folder.update-rules", "normal",
        "Change which files of a linked folder become assets, then re-sync.",
        "",
        {"libraryId": LIB, "linkedFolderId": L1, "rules": {"exclude": ["*/old/*"]}},
        title="Linked folder rules", idempotent=True,
        words=Words("changed which files a linked folder takes")),
    command(
        "linked-folder.refresh", "normal",
        "Re-scan a linked folder now: new and changed files imported (tags and notes carry "
        "over), gone ones let go.",
        "added, updated, missing, failed.",
        {"libraryId": LIB, "linkedFolderId": L1},
        title="Sync linked folder", idempotent=True,
        words=Words("synced a linked folder", doing="Syncing"), recount="everywhere"),
]

TAGS: list[CommandSpec] = [
    command(
        "tag.list", "read",
        "List tags with how many assets carry each, to reuse them rather than invent "
        "near-duplicates.",
        "",
        {"libraryId": LIB, "sort": "count", "limit": 100},
        title="List tags", essential=True),
    command(
        "tag.rename", "normal",
        "Rename a tag on every asset (onto an existing tag: use tag.merge).",
        "affectedAssets.",
        {"libraryId": LIB, "tag": "sunsett", "newName": "sunset"},
        title="Rename tag",
        words=Words("renamed the tag “{tag}” to “{newName}”", "renamed a tag")),
    command(
        "tag.delete", "recoverable",
        "Remove a tag from every asset and delete it.",
        "affectedAssets.",
        {"libraryId": LIB, "tag": "temp"},
        title="Delete tag", words=Words("deleted the tag “{tag}”", "deleted a tag")),
    command(
        "tag.delete-batch", "recoverable",
        "Delete several tags from every asset.",
        "affectedAssets, notFound.",
        {"libraryId": LIB, "tags": ["temp", "todo"]},
        title="Delete tags", words=Words("deleted the tags “{tags}”", "deleted tags")),
    command(
        "tag.merge", "recoverable",
        "Merge spelling variants into the target tag (the sources go; tags ignore case).",
        "affectedAssets, targetCreated.",
        {"libraryId": LIB, "sources": ["skies", "skyy"], "target": "sky"},
        title="Merge tags",
        words=Words("merged “{tags}” into “{target}”", "merged tags")),
    command(
        "tag.cooccurrence", "read",
        "Find the tags most used together with a tag, to suggest related ones.",
        "items (name, count).",
        {"libraryId": LIB, "tag": "sky", "limit": 10},
        title="Related tags"),
]

COLLECTIONS: list[CommandSpec] = [
    command(
        "collection.list", "read",
        "List collections (hand-picked and smart ones) in sidebar order.",
        "",
        {"libraryId": LIB},
        title="List collections", essential=True),
    command(
        "collection.create", "normal",
        "Create a collection: hand-picked (then collection.members) or smart (rules).",
        "",
        {"libraryId": LIB, "name": "Skies", "rules": SKY_RULES},
        title="New collection", essential=True,
        words=Words("created the collection “{name}”", "created a collection")),
    command(
        "collection.update", "normal",
        "Rename a collection or change a smart collection's rules.",
        "",
        {"libraryId": LIB, "collectionId": C1, "name": "Best skies"},
        title="Edit collection", idempotent=True,
        words=Words("changed the collection “{name}”", "changed a collection")),
    command(
        "collection.reorder", "normal",
        "Set the sidebar order of collections (ids in the new order).",
        "",
        {"libraryId": LIB, "collectionIds": [C2, C1]},
        title="Order collections", idempotent=True, words=Words("reordered collections")),
    command(
        "collection.delete", "recoverable",
        "Delete a collection (its assets stay).",
        "",
        {"libraryId": LIB, "collectionId": C1},
        title="Delete collection", words=Words("deleted a collection")),
    command(
        "collection.members", "normal",
        "Add assets to a hand-picked collection (kept in the order added) or remove them.",
        "",
        {"libraryId": LIB, "collectionId": C1, "add": [A1]},
        title="Collect assets", essential=True, idempotent=True,
        words=Words("changed the collection “{name}”", "changed a collection")),
    command(
        "collection.run-rules", "read",
        "List the assets a smart collection's rules (or rules to try) match now.",
        "",
        {"libraryId": LIB, "rules": SKY_RULES, "limit": 50},
        title="Try rules"),
]

COMMANDS: list[CommandSpec] = [*FOLDERS, *LINKED_FOLDERS, *TAGS, *COLLECTIONS]
