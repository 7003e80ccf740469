"""Registry declarations: folders, linked folders, tags and collections.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation.registry import CommandSpec, Words, command

LIB = "lib_01j9z3k4m5n6p7q8"
F1, F2 = "fld_01j9z3k4m5n6p7q8", "fld_01j9z3k4m5n6p7r2"
C1, C2 = "col_01j9z3k4m5n6p7q8", "col_01j9z3k4m5n6p7r2"
L1 = "lnk_01j9z3k4m5n6p7q8"
SKY_RULES = {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]}

FOLDERS: list[CommandSpec] = [
    command(
        "folder.list", "read",
        "List the library's folders (the whole tree, or the children of parentId). Folders are "
        "virtual: an asset may be in several.",
        "items with id, name, parentId, version, assetCount and childCount.",
        {"libraryId": LIB}),
    command(
        "folder.create", "normal",
        "Create a folder (top level, or inside parentId).",
        "the new folder.",
        {"libraryId": LIB, "name": "Characters", "parentId": F1},
        words=Words("created the folder “{name}”", "created a folder")),
    command(
        "folder.rename", "normal",
        "Rename a folder (its assets and subfolders stay in it).",
        "the folder with its new version.",
        {"libraryId": LIB, "folderId": F1, "name": "Environments"}, idempotent=True,
        words=Words("renamed a folder to “{name}”", "renamed a folder")),
    command(
        "folder.move", "normal",
        "Move a folder under another folder (parentId null: to the top level).",
        "the folder with its new parent and version.",
        {"libraryId": LIB, "folderId": F1, "parentId": F2}, idempotent=True,
        words=Words("moved the folder “{name}”", "moved a folder")),
    command(
        "folder.delete-empty", "recoverable",
        "Delete folders that hold no assets and no subfolders. If any target is not empty, "
        "nothing is deleted (NOT_EMPTY). Can be undone.",
        "deleted: the folder ids.",
        {"libraryId": LIB, "folderIds": [F1, F2]},
        words=Words("deleted empty folders")),
]

LINKED_FOLDERS: list[CommandSpec] = [
    command(
        "linked-folder.list", "read",
        "List the library's linked folders (folders on disk kept in step with a library "
        "folder): ids for the other linked-folder commands, paths, rules and status.",
        "items with id, path, folderId, rules, status (connected or missing), assetCount, "
        "version and lastRefreshedAt.",
        {"libraryId": LIB}),
    command(
        "linked-folder.create", "normal",
        "Link a folder on disk: its files (filtered by rules: include/exclude globs, kinds, "
        "recursive) are copied into the library like an import, into a new library folder, "
        "and kept in step (with autoImport, new and changed files are imported as they "
        "appear). Files on disk are never changed.",
        "the linked folder with its id, folderId, rules, status and assetCount.",
        {"libraryId": LIB, "path": "/home/ana/Projects/game/art",
         "rules": {"include": ["*.png", "*.psd"]}}, journaled=False,
        words=Words("linked a folder on disk", doing="Syncing"), recount="everywhere"),
    command(
        "linked-folder.reconnect", "normal",
        "Point a linked folder whose disk folder moved (status missing) at its new place.",
        "the linked folder with its new path and status.",
        {"libraryId": LIB, "linkedFolderId": L1, "path": "/mnt/art/game"}, idempotent=True,
        journaled=False,
        words=Words("reconnected a linked folder")),
    command(
        "linked-folder.unlink", "recoverable",
        "Stop syncing a linked folder. Its assets stay as ordinary assets (keepAssets true) or "
        "go to the trash (restorable). Files on disk are never touched.",
        "the linked folder as it was.",
        {"libraryId": LIB, "linkedFolderId": L1, "keepAssets": True}, journaled=False,
        words=Words("unlinked a folder")),
    command(
        "linked-folder.update-rules", "normal",
        "Change which files of a linked folder become assets, then re-sync. Assets of files "
        "the new rules leave out stay in the library.",
        "the linked folder with its new rules and version.",
        {"libraryId": LIB, "linkedFolderId": L1, "rules": {"exclude": ["*/old/*"]}},
        idempotent=True, journaled=False,
        words=Words("changed which files a linked folder takes")),
    command(
        "linked-folder.refresh", "normal",
        "Re-scan a linked folder on disk now: new files are imported, changed ones imported "
        "again (the older asset goes to the trash, its tags and notes carry over), files gone "
        "from disk are let go (their assets stay).",
        "the linked folder and added, updated, missing, failed counts.",
        {"libraryId": LIB, "linkedFolderId": L1}, idempotent=True, journaled=False,
        words=Words("synced a linked folder", doing="Syncing"), recount="everywhere"),
]

TAGS: list[CommandSpec] = [
    command(
        "tag.list", "read",
        "List tags with how many assets carry each (by name or by count; prefix filters).",
        "items with name, count and version; total, nextCursor, truncated.",
        {"libraryId": LIB, "sort": "count", "limit": 100}),
    command(
        "tag.rename", "normal",
        "Rename a tag on every asset. Renaming onto an existing tag is refused "
        "(ALREADY_EXISTS): use tag.merge.",
        "affectedAssets and the tags involved.",
        {"libraryId": LIB, "tag": "skyy", "newName": "sky"},
        words=Words("renamed the tag “{tag}” to “{newName}”", "renamed a tag")),
    command(
        "tag.delete", "recoverable",
        "Remove a tag from every asset and delete it. Can be undone.",
        "affectedAssets and the tags involved.",
        {"libraryId": LIB, "tag": "temp"},
        words=Words("deleted the tag “{tag}”", "deleted a tag")),
    command(
        "tag.delete-batch", "recoverable",
        "Delete several tags at once from every asset. Can be undone.",
        "affectedAssets and the tags involved.",
        {"libraryId": LIB, "tags": ["temp", "todo"]},
        words=Words("deleted the tags “{tags}”", "deleted tags")),
    command(
        "tag.merge", "recoverable",
        "Merge tags: every asset with a source tag gets the target tag, then the sources are "
        "deleted. Use it to clean up spelling variants.",
        "affectedAssets and the tags involved.",
        {"libraryId": LIB, "sources": ["skies", "Sky"], "target": "sky"},
        words=Words("merged “{tags}” into “{target}”", "merged tags")),
    command(
        "tag.cooccurrence", "read",
        "Find the tags most often used together with a tag (to suggest related tags).",
        "the tag and items with name and count.",
        {"libraryId": LIB, "tag": "sky", "limit": 10}),
]

COLLECTIONS: list[CommandSpec] = [
    command(
        "collection.list", "read",
        "List collections (hand-picked and smart ones) in sidebar order.",
        "items with id, name, smart, rules, assetCount, position and version.",
        {"libraryId": LIB}),
    command(
        "collection.create", "normal",
        "Create a collection: hand-picked (no rules) or smart (rules pick the assets).",
        "the new collection.",
        {"libraryId": LIB, "name": "Skies", "rules": SKY_RULES},
        words=Words("created the collection “{name}”", "created a collection")),
    command(
        "collection.update", "normal",
        "Rename a collection or change a smart collection's rules.",
        "the collection with its new version.",
        {"libraryId": LIB, "collectionId": C1, "name": "Best skies"}, idempotent=True,
        words=Words("changed the collection “{name}”", "changed a collection")),
    command(
        "collection.reorder", "normal",
        "Set the sidebar order of collections (ids in the new order).",
        "items: the collections in their new order.",
        {"libraryId": LIB, "collectionIds": [C2, C1]}, idempotent=True,
        words=Words("reordered collections")),
    command(
        "collection.delete", "recoverable",
        "Delete a collection (its assets stay in the library). Can be undone.",
        "deleted: the collection id.",
        {"libraryId": LIB, "collectionId": C1},
        words=Words("deleted a collection")),
    command(
        "collection.members", "normal",
        "Add assets to or remove them from a hand-picked collection.",
        "the collection with its new assetCount and version.",
        {"libraryId": LIB, "collectionId": C1, "add": ["ast_01j9z3k4m5n6p7q8"]},
        idempotent=True,
        words=Words("changed the collection “{name}”", "changed a collection")),
    command(
        "collection.run-rules", "read",
        "List the assets a smart collection's rules (or ad-hoc rules) match right now.",
        "items, total, nextCursor, truncated.",
        {"libraryId": LIB, "rules": SKY_RULES, "limit": 50}),
]

COMMANDS: list[CommandSpec] = [*FOLDERS, *LINKED_FOLDERS, *TAGS, *COLLECTIONS]
