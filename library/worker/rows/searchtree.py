"""`asset.search`'s filters as a filter tree for the query builder, and its extra sorts.

Runs in the worker process, on a reader thread. Every flat search filter becomes the rule a
smart collection would use for it (tags -> tag is, ratingMin -> rating gte, color -> color
is, ...), so a search and a smart rule with the same filter match the same assets; the few
filters no rule has (a collection's members, unfiled) are `filters.Raw` leaves, and a
search's own `rules` (a whole tree) is checked and added as a group. All of them are ANDed.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from library.errors import INVALID_ARGUMENT, NOT_FOUND, LibraryError
from library.schemas import AssetSearchIn, Rule, RuleGroup, RuleSet
from library.worker.rows import colourmatch, filters, rulefields, tagfold

_UNFILED = "NOT EXISTS (SELECT 1 FROM asset_folders af WHERE af.asset_id = a.id)"
_MEMBERS = "a.id IN (SELECT asset_id FROM collection_assets WHERE collection_id = ?)"
SORTS: dict[str, tuple[str, str]] = {  # sort -> (SQL expression, direction)
    "taken-desc": ("coalesce(a.taken_at, '')", "DESC"),  # no date: last
    "taken-asc": ("coalesce(a.taken_at, '~')", "ASC"),
    "hue": ("coalesce((SELECT c.hue FROM asset_colors c WHERE c.asset_id = a.id AND "
            "c.position = 0), 1000.0)", "ASC"),
    "color-similarity": ("", "ASC"),            # colourmatch.closeness_sql(color)
}


def build(conn: sqlite3.Connection, args: AssetSearchIn) -> filters.Group | None:
    """The search's filters as one ANDed group; None when a filter cannot match."""
    group = filters.Group()
    add = group.rules.append
    for tag in dict.fromkeys(args.tags):
        if tagfold.find(conn, tag) is None:
            return None  # no such tag: nothing carries it
        add(_rule("tag", "is", tag, "tags"))
    if args.folder_id is not None:
        if not conn.execute("SELECT 1 FROM folders WHERE id = ?", (args.folder_id,)).fetchone():
            raise LibraryError(NOT_FOUND, "That folder does not exist.", field="folderId")
        add(_rule("folder", "within" if args.include_subfolders else "is", args.folder_id,
                  "folderId"))
    if args.unfiled:
        add(filters.Raw(_UNFILED))
    if args.untagged:
        add(_rule("untagged", "is", True, "untagged"))
    if args.collection_id is not None:
        add(_collection(conn, args.collection_id))
    if args.kind:
        add(_rule("kind", "is", list(args.kind), "kind"))
    if args.ext:
        add(Rule(field="ext", op="is", value=[e.lower().lstrip(".") for e in args.ext]))
    for value, op in ((args.rating_min, "gte"), (args.rating_max, "lte")):
        if value is not None:
            add(_rule("rating", op, value, "ratingMin" if op == "gte" else "ratingMax"))
    for field, after, before in (("added-at", args.added_after, args.added_before),
                                 ("taken-at", args.taken_after, args.taken_before)):
        if after is not None:
            add(_rule(field, "after", after.isoformat(), field))
        if before is not None:
            add(_rule(field, "before", before.isoformat(), field))
    if args.orientation:
        add(_rule("orientation", "is", list(args.orientation), "orientation"))
    if args.color is not None:
        add(_rule("color", "is", {"color": args.color, "tolerance": args.color_tolerance,
                                  "minRatio": args.color_min_ratio}, "color"))
    if args.rules is not None:
        checked = filters.check(args.rules, conn)
        add(RuleGroup(match=checked.match, rules=checked.rules))
    return group


def _rule(field: str, op: str, value: Any, argument: str) -> Rule:
    rule = Rule.model_validate({"field": field, "op": op, "value": value})
    try:
        return Rule(field=rule.field, op=rule.op, value=rulefields.canonical(rule))
    except rulefields.BadValue as bad:
        raise LibraryError(INVALID_ARGUMENT, f"{argument}: {bad.message}",
                           field=argument) from None


def _collection(conn: sqlite3.Connection, collection_id: str) -> filters.Raw | RuleGroup:
    row = conn.execute("SELECT smart, rules FROM collections WHERE id = ?",
                       (collection_id,)).fetchone()
    if row is None:
        raise LibraryError(NOT_FOUND, "That collection does not exist.", field="collectionId")
    if row["smart"]:  # a smart collection: its rules (stored canonical), evaluated now
        stored = filters.check(RuleSet.model_validate_json(row["rules"]))
        return RuleGroup(match=stored.match, rules=stored.rules)
    return filters.Raw(_MEMBERS, [collection_id])


def sort(args: AssetSearchIn) -> tuple[str, str, list[Any]]:
    """ORDER BY expression, direction and parameters of a sort in `SORTS`."""
    expression, direction = SORTS[args.sort]
    if args.sort != "color-similarity":
        return expression, direction, []
    if args.color is None:
        raise LibraryError(INVALID_ARGUMENT, "sort: color-similarity needs a color to compare "
                           "with.", field="sort")
    expression, params = colourmatch.closeness_sql(args.color)
    return expression, direction, params
