"""Collections: `collection.list`, `.create`, `.update`, `.reorder`, `.delete`, `.members`,
and `collection.run-rules`.

Runs in the worker process: writes on the writer thread, each one undoable `WriteTx`
(history kind `collection`, see `collectionstate`); list and run-rules on a reader thread.
A collection is hand-picked (ordered members, changed with `collection.members`) or smart
(a `RuleSet`, checked and stored in canonical form, evaluated whenever it is read: see
`rules`). Names are unique, ignoring case. A smart collection has no members to edit and a
hand-picked one no rules (INVALID_ARGUMENT either way). `asset.search` with a
`collectionId` pages through either kind; `collection.run-rules` pages through a smart
collection's matches or ad-hoc rules (to try rules out before saving them).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from library import pathrules
from library.errors import (
    ALREADY_EXISTS,
    INVALID_ARGUMENT,
    NOT_FOUND,
    VERSION_CONFLICT,
    LibraryError,
)
from library.schemas import (
    AssetSearchIn,
    Collection,
    CollectionCreateIn,
    CollectionDeleteIn,
    CollectionDeleteOut,
    CollectionListOut,
    CollectionMembersIn,
    CollectionReorderIn,
    CollectionRunRulesIn,
    CollectionUpdateIn,
    Empty,
    RuleSet,
)
from library.worker.commands.asset_search import search_page
from library.worker.context import ReadContext
from library.worker.rows import assetrows, collectionstate, filters
from library.worker.store.identity import new_id
from library.worker.store.transaction import WriteTx


def _get(conn: sqlite3.Connection, collection_id: str) -> sqlite3.Row:
    found = collectionstate.rows(conn, "WHERE c.id = ?", (collection_id,))
    if not found:
        raise LibraryError(NOT_FOUND, "That collection does not exist.", field="collectionId",
                           collectionId=collection_id)
    return found[0]


def _out(conn: sqlite3.Connection, collection_id: str) -> Collection:
    return collectionstate.collection_out(conn, _get(conn, collection_id))


def _check_name(conn: sqlite3.Connection, name: str, collection_id: str | None) -> None:
    others = [r[0] for r in conn.execute("SELECT name FROM collections WHERE id != ?",
                                         (collection_id or "",))]
    clash = pathrules.casefold_collides(name, others)
    if clash is not None:
        raise LibraryError(ALREADY_EXISTS, f"A collection called {clash!r} already exists.",
                           field="name", existing=clash)


def _rules_json(ruleset: RuleSet) -> str:
    return json.dumps(ruleset.model_dump(mode="json", by_alias=True), separators=(",", ":"))


def list_collections(ctx: ReadContext, args: Empty) -> CollectionListOut:
    return CollectionListOut(items=[collectionstate.collection_out(ctx.conn, row)
                                    for row in collectionstate.rows(ctx.conn)])


def create(tx: WriteTx, args: CollectionCreateIn) -> Collection:
    conn = tx.conn
    _check_name(conn, args.name, None)
    ruleset = filters.check(args.rules, conn) if args.rules is not None else None
    position = conn.execute("SELECT coalesce(max(position) + 1, 0) FROM collections"
                            ).fetchone()[0]
    collection_id = new_id("col")
    conn.execute("INSERT INTO collections (id, name, smart, rules, position, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (collection_id, args.name, int(ruleset is not None),
                  _rules_json(ruleset) if ruleset is not None else None, position, tx.now))
    tx.created("collection", [collection_id])
    tx.summary = f"Created the {'smart ' if ruleset else ''}collection {args.name}"
    return _out(conn, collection_id)


def update(tx: WriteTx, args: CollectionUpdateIn) -> Collection:
    conn = tx.conn
    if args.name is None and args.rules is None:
        raise LibraryError(INVALID_ARGUMENT, "Give a new name or new rules.", field="name")
    row = _get(conn, args.collection_id)
    if args.expected_version is not None and args.expected_version != row["version"]:
        raise LibraryError(VERSION_CONFLICT, f"The collection changed meanwhile (it is at "
                           f"version {row['version']}, not {args.expected_version}).",
                           currentVersion=row["version"], collectionId=args.collection_id)
    name, rules_json = row["name"], row["rules"]
    if args.rules is not None:
        if not row["smart"]:
            raise LibraryError(INVALID_ARGUMENT, "A hand-picked collection has no rules; "
                               "create a smart collection instead.", field="rules")
        rules_json = _rules_json(filters.check(args.rules, conn))
    if args.name is not None and args.name != row["name"]:
        _check_name(conn, args.name, args.collection_id)
        name = args.name
    if (name, rules_json) != (row["name"], row["rules"]):
        tx.track("collection", [args.collection_id])
        conn.execute("UPDATE collections SET name = ?, rules = ?, version = version + 1 "
                     "WHERE id = ?", (name, rules_json, args.collection_id))
        what = [w for w, changed in (("name", name != row["name"]),
                                     ("rules", rules_json != row["rules"])) if changed]
        tx.summary = f"Changed the {' and '.join(what)} of the collection {name}"
    return _out(conn, args.collection_id)


def reorder(tx: WriteTx, args: CollectionReorderIn) -> CollectionListOut:
    conn = tx.conn
    if len(set(args.collection_ids)) != len(args.collection_ids):
        raise LibraryError(INVALID_ARGUMENT, "collectionIds: an id is listed twice.",
                           field="collectionIds")
    current = collectionstate.rows(conn)
    known = {r["id"]: r for r in current}
    unknown = [i for i in args.collection_ids if i not in known]
    if unknown:
        raise LibraryError(NOT_FOUND, f"{len(unknown)} of the collections do not exist.",
                           field="collectionIds", notFound=unknown)
    listed = set(args.collection_ids)
    order = [*args.collection_ids, *(r["id"] for r in current if r["id"] not in listed)]
    moved = [cid for position, cid in enumerate(order) if known[cid]["position"] != position]
    tx.track("collection", moved)
    conn.executemany("UPDATE collections SET position = ?, version = version + 1 WHERE id = ?",
                     [(order.index(cid), cid) for cid in moved])
    if moved:
        tx.summary = "Reordered the collections"
    return CollectionListOut(items=[collectionstate.collection_out(conn, row)
                                    for row in collectionstate.rows(conn)])


def delete(tx: WriteTx, args: CollectionDeleteIn) -> CollectionDeleteOut:
    conn = tx.conn
    row = _get(conn, args.collection_id)
    tx.track("collection", [args.collection_id])
    conn.execute("DELETE FROM collections WHERE id = ?", (args.collection_id,))
    tx.summary = f"Deleted the collection {row['name']}"
    return CollectionDeleteOut(deleted=args.collection_id)


def members(tx: WriteTx, args: CollectionMembersIn) -> Collection:
    conn = tx.conn
    row = _get(conn, args.collection_id)
    if row["smart"]:
        raise LibraryError(INVALID_ARGUMENT, "A smart collection's rules pick its assets: "
                           "none can be added or removed by hand; change its rules instead.",
                           field="collectionId", reason="smart")
    if not args.add and not args.remove:
        raise LibraryError(INVALID_ARGUMENT, "Give assets to add or to remove.", field="add")
    both = set(args.add) & set(args.remove)
    if both:
        raise LibraryError(INVALID_ARGUMENT, "An asset cannot be added and removed at once.",
                           field="remove", assetIds=sorted(both))
    found = assetrows.existing(conn, [*args.add, *args.remove])
    unknown = [i for i in dict.fromkeys([*args.add, *args.remove]) if i not in found]
    if unknown:
        raise LibraryError(NOT_FOUND, f"{len(unknown)} of the assets do not exist; nothing "
                           f"was changed.", field="add" if unknown[0] in args.add else "remove",
                           notFound=unknown[:100])
    present = [r[0] for r in conn.execute("SELECT asset_id FROM collection_assets WHERE "
                                          "collection_id = ? ORDER BY position, asset_id",
                                          (args.collection_id,))]
    have = set(present)
    dropping = set(args.remove) & have
    adding = [a for a in dict.fromkeys(args.add) if a not in have]
    if adding or dropping:
        tx.track("collection", [args.collection_id])
        collectionstate.set_members(conn, args.collection_id,
                                    [a for a in present if a not in dropping] + adding)
        conn.execute("UPDATE collections SET version = version + 1 WHERE id = ?",
                     (args.collection_id,))
        parts = [f"added {len(adding)}" if adding else "",
                 f"removed {len(dropping)}" if dropping else ""]
        tx.summary = (f"{' and '.join(p for p in parts if p).capitalize()} "
                      f"asset{'s' if len(adding) + len(dropping) != 1 else ''} in "
                      f"the collection {row['name']}")
    return _out(conn, args.collection_id)


def run_rules(ctx: ReadContext, args: CollectionRunRulesIn) -> dict[str, Any]:
    conn = ctx.conn
    if (args.collection_id is None) == (args.rules is None):
        raise LibraryError(INVALID_ARGUMENT, "Give either collectionId (a smart collection) "
                           "or rules, not both.", field="rules")
    if args.collection_id is not None:
        row = _get(conn, args.collection_id)
        if not row["smart"]:
            raise LibraryError(INVALID_ARGUMENT, "That collection is hand-picked and has no "
                               "rules; list it with asset.search and collectionId.",
                               field="collectionId", reason="not-smart")
        condition = filters.compile_stored(row["rules"])
    else:
        assert args.rules is not None
        condition = filters.compile_rules(filters.check(args.rules, conn))
    return search_page(conn, AssetSearchIn(limit=args.limit, cursor=args.cursor), condition)
