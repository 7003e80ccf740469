"""`asset.update`, `asset.rename-batch`, `asset.tag`, `asset.untag`, `asset.move`: change
assets, undoably.

Runs in the worker process, writer thread, each inside one `WriteTx` (one undo step). Batch
commands answer per asset (changed / unchanged / not_found) and bump the version only of
assets that really changed; `asset.update` refuses a stale `expectedVersion` with
VERSION_CONFLICT, and `asset.rename-batch` refuses the whole batch when any asset is
missing or stale (a batch of names is planned as a whole: half of it would make no sense).
"""

from __future__ import annotations

from library.errors import NOT_FOUND, VERSION_CONFLICT, LibraryError
from library.schemas import (
    AssetBatchOut,
    AssetMoveIn,
    AssetRenameBatchIn,
    AssetTagIn,
    AssetUntagIn,
    AssetUpdateIn,
    AssetUpdateOut,
    ItemResult,
)
from library.worker.commands import handles
from library.worker.rows import assetrows
from library.worker.store.transaction import WriteTx


@handles("asset.update")
def update(tx: WriteTx, args: AssetUpdateIn) -> AssetUpdateOut:
    conn = tx.conn
    row = conn.execute("SELECT version, name, notes, rating, source_url FROM assets "
                       "WHERE id = ?", (args.asset_id,)).fetchone()
    if row is None:
        raise LibraryError(NOT_FOUND, "That asset does not exist.", field="assetId",
                           assetId=args.asset_id)
    if args.expected_version is not None and args.expected_version != row["version"]:
        raise LibraryError(VERSION_CONFLICT, f"The asset changed meanwhile (it is at version "
                           f"{row['version']}, not {args.expected_version}).",
                           currentVersion=row["version"], assetId=args.asset_id)
    values = {"name": row["name"], "notes": row["notes"], "rating": row["rating"],
              "source_url": row["source_url"]}
    if args.name is not None:
        values["name"] = args.name
    if args.notes is not None:
        values["notes"] = args.notes
    if args.rating is not None:
        values["rating"] = args.rating
    if args.source_url is not None:
        values["source_url"] = str(args.source_url) or None
    changed = [k for k, v in values.items() if v != row[k]]
    if changed:
        tx.track("asset", [args.asset_id])
        conn.execute("UPDATE assets SET name = ?, notes = ?, rating = ?, source_url = ? "
                     "WHERE id = ?", (values["name"], values["notes"], values["rating"],
                                      values["source_url"], args.asset_id))
        assetrows.mark_modified(conn, [args.asset_id], tx.now, tx.actor_json)
        tx.summary = f"Changed the {', '.join(_label(k) for k in changed)} of {values['name']}"
    items, _ = assetrows.full_assets(conn, [args.asset_id], tx.layout)
    return AssetUpdateOut.model_validate({"item": items[0]})


@handles("asset.rename-batch")
def rename_batch(tx: WriteTx, args: AssetRenameBatchIn) -> AssetBatchOut:
    conn = tx.conn
    ids = [item.asset_id for item in args.items]
    rows = {r["id"]: r for part in assetrows.chunks(ids) for r in conn.execute(
        f"SELECT id, name, version FROM assets WHERE id IN ({assetrows.marks(len(part))})",
        part)}
    missing = [a for a in ids if a not in rows]
    if missing:
        raise LibraryError(NOT_FOUND, f"{len(missing)} of the assets do not exist; nothing "
                           "was renamed.", field="items", notFound=missing[:100])
    for item in args.items:
        current = rows[item.asset_id]["version"]
        if item.expected_version is not None and item.expected_version != current:
            raise LibraryError(VERSION_CONFLICT, f"An asset changed meanwhile (it is at "
                               f"version {current}, not {item.expected_version}); nothing "
                               "was renamed.", currentVersion=current, assetId=item.asset_id)
    changed = [item for item in args.items if item.name != rows[item.asset_id]["name"]]
    tx.track("asset", [item.asset_id for item in changed])
    conn.executemany("UPDATE assets SET name = ? WHERE id = ?",
                     [(item.name, item.asset_id) for item in changed])
    assetrows.mark_modified(conn, [item.asset_id for item in changed], tx.now, tx.actor_json)
    tx.summary = f"Renamed {len(changed)} asset{'s' if len(changed) != 1 else ''}"
    return batch_result(conn, ids, rows, {item.asset_id for item in changed})


def _label(column: str) -> str:
    return {"source_url": "source URL"}.get(column, column)


@handles("asset.tag")
def tag(tx: WriteTx, args: AssetTagIn) -> AssetBatchOut:
    return _retag(tx, args.asset_ids, args.tags, add=True)


@handles("asset.untag")
def untag(tx: WriteTx, args: AssetUntagIn) -> AssetBatchOut:
    return _retag(tx, args.asset_ids, args.tags, add=False)


def _retag(tx: WriteTx, asset_ids: list[str], tags: list[str], *, add: bool) -> AssetBatchOut:
    conn = tx.conn
    found = assetrows.existing(conn, asset_ids)
    current = assetrows.tags_of(conn, list(found))
    wanted = {t.casefold(): t for t in tags}
    changes: dict[str, list[str]] = {}
    for asset_id, names in current.items():
        have = {n.casefold(): n for n in names}
        if add:
            missing = [name for key, name in wanted.items() if key not in have]
            if missing:
                changes[asset_id] = names + missing
        else:
            keep = [name for key, name in have.items() if key not in wanted]
            if len(keep) != len(names):
                changes[asset_id] = keep
    tx.track("asset", list(changes))
    for asset_id, names in changes.items():
        assetrows.set_tags(conn, asset_id, names, tx.now)
    assetrows.mark_modified(conn, list(changes), tx.now, tx.actor_json)
    if changes:
        tx.touch("tag")
        if not add:
            assetrows.drop_unused_tags(conn)
    tag_text = ", ".join(tags)
    count = len(changes)
    tx.summary = (f"Tagged {count} asset{'s' if count != 1 else ''} with {tag_text}" if add
                  else f"Removed {tag_text} from {count} asset{'s' if count != 1 else ''}")
    return batch_result(conn, asset_ids, found, set(changes))


@handles("asset.move")
def move(tx: WriteTx, args: AssetMoveIn) -> AssetBatchOut:
    """Put each asset in exactly `folderId` (or in no folder with null)."""
    conn = tx.conn
    if args.folder_id is not None:
        folder = conn.execute("SELECT name FROM folders WHERE id = ?",
                              (args.folder_id,)).fetchone()
        if folder is None:
            raise LibraryError(NOT_FOUND, "That folder does not exist.", field="folderId")
    found = assetrows.existing(conn, args.asset_ids)
    target = [args.folder_id] if args.folder_id else []
    current = assetrows.folders_of(conn, list(found))
    changed = [a for a, folders in current.items() if sorted(folders) != target]
    tx.track("asset", changed)
    for asset_id in changed:
        assetrows.set_folders(conn, asset_id, target)
    assetrows.mark_modified(conn, changed, tx.now, tx.actor_json)
    if changed:
        tx.touch("folder", [args.folder_id] if args.folder_id else [])
    where = f"to {folder['name']}" if args.folder_id else "out of their folders"
    tx.summary = f"Moved {len(changed)} asset{'s' if len(changed) != 1 else ''} {where}"
    return batch_result(conn, args.asset_ids, found, set(changed))


def batch_result(conn, asset_ids: list[str], found: dict, changed: set[str]) -> AssetBatchOut:
    versions = dict(conn.execute(
        f"SELECT id, version FROM assets WHERE id IN ({assetrows.marks(len(found))})",
        list(found)).fetchall()) if found else {}
    items = []
    for asset_id in dict.fromkeys(asset_ids):
        if asset_id not in found:
            items.append(ItemResult(id=asset_id, status="not_found",
                                    error="No asset with this id."))
        else:
            items.append(ItemResult(id=asset_id, version=versions[asset_id],
                                    status="changed" if asset_id in changed else "unchanged"))
    return AssetBatchOut(items=items, changed=len(changed))
