"""Tag clean-up: `tag.rename`, `tag.delete`, `tag.delete-batch`, `tag.merge`, and the read
`tag.cooccurrence`.

Runs in the worker process: writes on the writer thread, each one `WriteTx` and undoable
(the assets' tag lists are journaled; a rename journals the tag's spelling, see
`tagstate`); co-occurrence on a reader thread. Tag names match case-insensitively as
everywhere in Serpent (full Unicode case folding, `tagfold`), so "sky" -> "Sky" and "été" ->
"Été" are renames. Nothing here is a silent no-op: an
unknown tag is NOT_FOUND (or listed in `notFound` when others were acted on), renaming onto
another tag is ALREADY_EXISTS pointing at tag.merge, merging a tag into itself is
INVALID_ARGUMENT, and every answer says how many assets changed.
"""

from __future__ import annotations

import sqlite3

from library.errors import ALREADY_EXISTS, INVALID_ARGUMENT, NOT_FOUND, LibraryError
from library.schemas import (
    TagChangeOut,
    TagCooccurrenceIn,
    TagCooccurrenceOut,
    TagCount,
    TagDeleteBatchIn,
    TagDeleteIn,
    TagMergeIn,
    TagRenameIn,
)
from library.worker.context import ReadContext
from library.worker.rows import assetrows, tagfold, tagstate
from library.worker.rows.assetrows import chunks, marks
from library.worker.store.transaction import WriteTx


def _find(conn: sqlite3.Connection, name: str) -> sqlite3.Row | None:
    return tagfold.find(conn, name)


def _resolve(conn: sqlite3.Connection, names: list[str]) -> tuple[list[sqlite3.Row], list[str]]:
    """The existing tags among `names` (each once), and the names of no tag."""
    found: dict[int, sqlite3.Row] = {}
    missing = []
    for name in dict.fromkeys(names):
        row = _find(conn, name)
        if row is None:
            missing.append(name)
        else:
            found.setdefault(row["id"], row)
    return list(found.values()), missing


def _carriers(conn: sqlite3.Connection, tag_ids: list[int]) -> list[str]:
    carriers: dict[str, None] = {}
    for part in chunks(tag_ids):
        for (asset_id,) in conn.execute(f"SELECT DISTINCT asset_id FROM asset_tags WHERE "
                                        f"tag_id IN ({marks(len(part))})", part):
            carriers[asset_id] = None
    return list(carriers)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def rename(tx: WriteTx, args: TagRenameIn) -> TagChangeOut:
    conn = tx.conn
    row = _find(conn, args.tag)
    if row is None:
        raise LibraryError(NOT_FOUND, f"There is no tag called {args.tag!r}.", field="tag")
    old = row["name"]
    if old == args.new_name:
        return TagChangeOut(affected_assets=0, tags=[old], target=old)
    clash = conn.execute("SELECT name FROM tags WHERE folded = ? AND id != ?",
                         (tagfold.fold(args.new_name), row["id"])).fetchone()
    if clash is not None:
        raise LibraryError(
            ALREADY_EXISTS, f"A tag called {clash['name']!r} already exists. To combine "
            f"{old!r} into it, use tag.merge.", field="newName", existing=clash["name"],
            hint="tag.merge")
    tx.track("tag", [str(row["id"])])
    carriers = tagstate.rename(tx, row["id"], args.new_name)
    tx.summary = f"Renamed the tag {old} to {args.new_name}"
    return TagChangeOut(affected_assets=len(carriers), tags=[old], target=args.new_name)


def delete(tx: WriteTx, args: TagDeleteIn) -> TagChangeOut:
    return _delete(tx, [args.tag], field="tag")


def delete_batch(tx: WriteTx, args: TagDeleteBatchIn) -> TagChangeOut:
    return _delete(tx, args.tags, field="tags")


def _delete(tx: WriteTx, names: list[str], *, field: str) -> TagChangeOut:
    conn = tx.conn
    rows, missing = _resolve(conn, names)
    if not rows:
        raise LibraryError(NOT_FOUND, f"No such tag: {', '.join(missing)}.", field=field,
                           notFound=missing)
    tag_ids = [r["id"] for r in rows]
    carriers = _carriers(conn, tag_ids)
    tx.track("asset", carriers)
    for part in chunks(tag_ids):
        conn.execute(f"DELETE FROM asset_tags WHERE tag_id IN ({marks(len(part))})", part)
        conn.execute(f"DELETE FROM tags WHERE id IN ({marks(len(part))})", part)
    assetrows.mark_modified(conn, carriers, tx.now, tx.actor_json)
    tx.touch("tag")
    deleted = [r["name"] for r in rows]
    tx.summary = (f"Deleted the tag {deleted[0]}" if len(deleted) == 1
                  else f"Deleted {len(deleted)} tags") + f" from {_plural(len(carriers), 'asset')}"
    return TagChangeOut(affected_assets=len(carriers), tags=deleted, not_found=missing)


def merge(tx: WriteTx, args: TagMergeIn) -> TagChangeOut:
    conn = tx.conn
    target = _find(conn, args.target)
    found, missing = _resolve(conn, args.sources)
    sources = [r for r in found if target is None or r["id"] != target["id"]]
    if not sources:
        if len(found) == len(sources):  # nothing found at all
            raise LibraryError(NOT_FOUND, f"None of the source tags exist: "
                               f"{', '.join(missing)}.", field="sources", notFound=missing)
        raise LibraryError(INVALID_ARGUMENT, "A tag cannot be merged into itself. To change "
                           "how it is spelled, use tag.rename.", field="sources")
    source_ids = [r["id"] for r in sources]
    carriers = _carriers(conn, source_ids)
    tx.track("asset", carriers)
    created = target is None
    if target is None:
        target_id = conn.execute("INSERT INTO tags (name, folded, created_at) VALUES (?, ?, ?) "
                                 "RETURNING id", (args.target, tagfold.fold(args.target),
                                                  tx.now)).fetchone()[0]
        target_name = args.target
    else:
        target_id, target_name = target["id"], target["name"]
    for part in chunks(source_ids):
        conn.execute(f"INSERT OR IGNORE INTO asset_tags (asset_id, tag_id) SELECT asset_id, ? "
                     f"FROM asset_tags WHERE tag_id IN ({marks(len(part))})", (target_id, *part))
        conn.execute(f"DELETE FROM asset_tags WHERE tag_id IN ({marks(len(part))})", part)
        conn.execute(f"DELETE FROM tags WHERE id IN ({marks(len(part))})", part)
    assetrows.mark_modified(conn, carriers, tx.now, tx.actor_json)
    assetrows.drop_unused_tags(conn)  # a new target nobody ended up carrying
    tx.touch("tag")
    merged = [r["name"] for r in sources]
    tx.summary = (f"Merged {', '.join(merged)} into {target_name} "
                  f"({_plural(len(carriers), 'asset')})")
    return TagChangeOut(affected_assets=len(carriers), tags=merged, target=target_name,
                        target_created=created and bool(carriers), not_found=missing)


def cooccurrence(ctx: ReadContext, args: TagCooccurrenceIn) -> TagCooccurrenceOut:
    conn = ctx.conn
    row = _find(conn, args.tag)
    if row is None:
        raise LibraryError(NOT_FOUND, f"There is no tag called {args.tag!r}.", field="tag")
    count = conn.execute("SELECT live_count FROM tags WHERE id = ?", (row["id"],)).fetchone()[0]
    items = conn.execute(
        "SELECT t.name, count(*) AS n FROM asset_tags x "
        "JOIN assets a ON a.id = x.asset_id AND a.trashed = 0 "
        "JOIN asset_tags y ON y.asset_id = x.asset_id AND y.tag_id != x.tag_id "
        "JOIN tags t ON t.id = y.tag_id "
        "WHERE x.tag_id = ? GROUP BY t.id, t.name ORDER BY n DESC, t.name COLLATE NOCASE, t.id "
        "LIMIT ?", (row["id"], args.limit)).fetchall()
    return TagCooccurrenceOut(tag=row["name"], count=count,
                              items=[TagCount(name=r["name"], count=r["n"]) for r in items])
