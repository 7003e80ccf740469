"""`asset.update`, `asset.rename-batch`, `asset.tag`, `asset.untag`, `asset.move`: change
assets, undoably.

Runs in the worker process, writer thread, each inside one `WriteTx` (one undo step). Batch
commands answer per asset (changed / unchanged / not_found) and bump the version only of
assets that really changed; `asset.update` of one asset refuses a stale `expectedVersion`
with VERSION_CONFLICT, of many it answers version_conflict for each asset `expectedVersions`
finds stale and leaves it alone; `asset.rename-batch` refuses the whole batch when any asset
is missing or stale (a batch of names is planned as a whole: half of it would make no sense).
"""

from __future__ import annotations

import sqlite3
from typing import Any

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
    UpdateItem,
)
from library.worker.rows import assetrows
from library.worker.store.transaction import WriteTx


def update(tx: WriteTx, args: AssetUpdateIn) -> AssetUpdateOut:
    """One asset (`assetId`: a missing one or a stale expectedVersion is an error) or the same
    change to many (`assetIds`: answered per asset), in one undo step either way."""
    conn = tx.conn
    ids = [args.asset_id] if args.asset_id is not None else \
        list(dict.fromkeys(args.asset_ids or []))
    rows = {row["id"]: row for part in assetrows.chunks(ids) for row in conn.execute(
        f"SELECT id, version, name, notes, rating, source_url FROM assets WHERE id IN "
        f"({assetrows.marks(len(part))})", list(part))}
    expected = dict(args.expected_versions or {})
    if args.asset_id is not None:
        row = rows.get(args.asset_id)
        if row is None:
            raise LibraryError(NOT_FOUND, "That asset does not exist.", field="assetId",
                               assetId=args.asset_id)
        if args.expected_version is not None and args.expected_version != row["version"]:
            raise LibraryError(VERSION_CONFLICT, f"The asset changed meanwhile (it is at "
                               f"version {row['version']}, not {args.expected_version}).",
                               currentVersion=row["version"], assetId=args.asset_id)
    wanted = {"name": args.name, "notes": args.notes, "rating": args.rating,
              "source_url": None if args.source_url is None else str(args.source_url)}
    changes: dict[str, dict[str, Any]] = {}
    outcome: dict[str, UpdateItem] = {}
    fields_changed: set[str] = set()
    for asset_id in ids:
        row = rows.get(asset_id)
        if row is None:
            outcome[asset_id] = UpdateItem(id=asset_id, status="not_found")
            continue
        if asset_id in expected and expected[asset_id] != row["version"]:
            outcome[asset_id] = UpdateItem(id=asset_id, status="version_conflict",
                                           current_version=row["version"])
            continue
        values = {column: row[column] for column in wanted}
        for column, value in wanted.items():
            if value is not None:
                values[column] = (value or None) if column == "source_url" else value
        differ = [column for column in wanted if values[column] != row[column]]
        if differ:
            changes[asset_id] = values
            fields_changed.update(differ)
    tx.track("asset", list(changes))
    for asset_id, values in changes.items():
        conn.execute("UPDATE assets SET name = ?, notes = ?, rating = ?, source_url = ? "
                     "WHERE id = ?", (values["name"], values["notes"], values["rating"],
                                      values["source_url"], asset_id))
    assetrows.mark_modified(conn, list(changes), tx.now, tx.actor_json)
    if changes:
        what = ", ".join(_label(k) for k in wanted if k in fields_changed)
        first = next(iter(changes.values()))
        tx.summary = (f"Changed the {what} of {first['name']}" if len(changes) == 1 else
                      f"Changed the {what} of {len(changes)} assets")
    versions = dict(conn.execute(
        f"SELECT id, version FROM assets WHERE id IN ({assetrows.marks(len(rows))})",
        list(rows)).fetchall()) if rows else {}
    items = [outcome.get(asset_id) or UpdateItem(
        id=asset_id, version=versions[asset_id],
        status="changed" if asset_id in changes else "unchanged") for asset_id in ids]
    single = None
    if args.asset_id is not None:
        single = assetrows.full_assets(conn, [args.asset_id], tx.layout)[0][0]
    return AssetUpdateOut.model_validate({"item": single, "items": [
        i.model_dump(by_alias=True, exclude_none=True) for i in items],
        "changed": len(changes)})


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


def tag(tx: WriteTx, args: AssetTagIn) -> AssetBatchOut:
    return _retag(tx, args.wanted(), add=True)


def untag(tx: WriteTx, args: AssetUntagIn) -> AssetBatchOut:
    return _retag(tx, args.wanted(), add=False)


def _retag(tx: WriteTx, wanted_by_asset: dict[str, list[str]], *, add: bool
           ) -> AssetBatchOut:
    """Add (or remove) each asset's own tags: the same ones for all, or per asset."""
    conn = tx.conn
    asset_ids = list(wanted_by_asset)
    found = assetrows.existing(conn, asset_ids)
    current = assetrows.tags_of(conn, list(found))
    changes: dict[str, list[str]] = {}
    for asset_id, names in current.items():
        wanted = {t.casefold(): t for t in wanted_by_asset[asset_id]}
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
    every = list(dict.fromkeys(t for tags in wanted_by_asset.values() for t in tags))
    tag_text = ", ".join(every[:5]) + (f" and {len(every) - 5} more" if len(every) > 5 else "")
    count = len(changes)
    tx.summary = (f"Tagged {count} asset{'s' if count != 1 else ''} with {tag_text}" if add
                  else f"Removed {tag_text} from {count} asset{'s' if count != 1 else ''}")
    return batch_result(conn, asset_ids, found, set(changes))


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


def batch_result(conn: sqlite3.Connection, asset_ids: list[str], found: dict[str, Any],
                 changed: set[str]) -> AssetBatchOut:
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
