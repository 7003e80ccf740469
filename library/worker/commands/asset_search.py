"""`asset.search` and `asset.get`: find assets with filters, page through them stably.

Runs in the worker process, on a reader thread (its own WAL snapshot per request). Every
sort ends with import order (the rowid) as tie-breaker, in the sort's direction: assets
imported together share one `added_at`, so newest-first shows the later-imported first and
oldest-first the earlier; pages never repeat or skip an asset. The `cursor` is opaque (base64
of the last row's sort key and rowid, bound to the filters it came from); `offset` jumps to a
position instead. `collection-order` pages through a hand-picked
collection in its members' order. `total` counts every match in the same snapshot: the
unfiltered total comes from the trigger-kept `asset_counts`, a filtered one is remembered
per filter and change sequence (`CountCache`), so paging through a grid counts only once,
and after a change it is moved along by the writer rather than counted again (`livecounts`).
Free text is matched through the trigram index where it can (`textindex`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import threading
from collections import OrderedDict
from typing import Any

from library.errors import INVALID_ARGUMENT, LibraryError
from library.schemas import AssetGetIn, AssetGetOut, AssetSearchIn
from library.worker.context import ReadContext
from library.worker.rows import assetrows, filters, livecounts, searchtree, textindex
from library.worker.rows.assetrows import SUMMARY_COLUMNS

# sort name -> (SQL expression, direction)
SORTS: dict[str, tuple[str, str]] = {
    "added-desc": ("a.added_at", "DESC"),
    "added-asc": ("a.added_at", "ASC"),
    "name-asc": ("a.name COLLATE NOCASE", "ASC"),
    "name-desc": ("a.name COLLATE NOCASE", "DESC"),
    "rating-desc": ("a.rating", "DESC"),
    "size-desc": ("a.size", "DESC"),
    "modified-desc": ("a.modified_at", "DESC"),
}
_SORT_COLUMN = {"added-desc": "added_at", "added-asc": "added_at", "name-asc": "name",
                "name-desc": "name", "rating-desc": "rating", "size-desc": "size",
                "modified-desc": "modified_at"}
_PAGING_FIELDS = {"limit", "cursor", "offset"}


class CountCache:
    """Totals of recent filters, valid while the library's change sequence stays the same.

    Thread-safe (reader threads share it). Sound because every write that can change what a
    filter matches bumps the change sequence (every `WriteTx` does): a writer that changed
    searchable rows outside a `WriteTx` would have to bump it too."""

    def __init__(self, size: int = 128) -> None:
        self._size = size
        self._totals: OrderedDict[tuple[Any, ...], int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> int | None:
        with self._lock:
            if key in self._totals:
                self._totals.move_to_end(key)
                return self._totals[key]
            return None

    def put(self, key: tuple[Any, ...], total: int) -> None:
        with self._lock:
            self._totals[key] = total
            while len(self._totals) > self._size:
                self._totals.popitem(last=False)


_COUNTS = CountCache()


def search(ctx: ReadContext, args: AssetSearchIn) -> dict[str, Any]:
    return search_page(ctx.conn, args)


def get(ctx: ReadContext, args: AssetGetIn) -> AssetGetOut:
    items, not_found = assetrows.full_assets(ctx.conn, args.asset_ids, ctx.layout)
    return AssetGetOut.model_validate({"items": items, "notFound": not_found})


def search_page(conn: sqlite3.Connection, args: AssetSearchIn,
                condition: filters.Condition | None = None) -> dict[str, Any]:
    """One page of matches as `AssetSearchOut` JSON (`condition`: smart rules, ANDed)."""
    if args.cursor is not None and args.offset is not None:
        raise LibraryError(INVALID_ARGUMENT, "Give either cursor or offset, not both.",
                           field="offset")
    where, params, timeless = _filters(conn, args)
    if where is None:  # a filter that cannot match (an unknown tag)
        return {"items": [], "total": 0, "nextCursor": None, "truncated": False}
    if condition is not None:
        where.append(condition.sql)
        params += condition.params
        timeless = timeless and condition.timeless
    only_text = len(where) == 1
    count_where, count_params = list(where), list(params)
    text = textindex.match(conn, args.text) if args.text else None
    if text is not None:
        where += text.where
        params += text.params
        count_where += text.count_where
        count_params += text.count_params
    expression, direction, sort_params = _sort(conn, args)
    key = _filter_key(args) + (condition.key if condition is not None else "")
    page_where, page_params = list(where), list(params)
    if args.cursor is not None:
        value, last_row = _read_cursor(args.cursor, key)
        compare = "<" if direction == "DESC" else ">"
        page_where.append(f"({expression} {compare} ? OR ({expression} = ? AND "
                          f"a.rowid {compare} ?))")
        page_params += [*sort_params, value, *sort_params, value, last_row]
    sort_value = f"a.{_SORT_COLUMN[args.sort]}" if args.sort in _SORT_COLUMN else expression
    sql = (f"SELECT {SUMMARY_COLUMNS}, {sort_value} AS sort_value, a.rowid AS sort_row "
           f"FROM assets a WHERE {' AND '.join(page_where)} "
           f"ORDER BY {expression} {direction}, a.rowid {direction} LIMIT ? OFFSET ?")
    select_params = [] if args.sort in _SORT_COLUMN else sort_params
    rows = conn.execute(sql, (*select_params, *page_params, *sort_params, args.limit + 1,
                              args.offset or 0)).fetchall()
    more = len(rows) > args.limit
    rows = rows[:args.limit]
    total = _total(conn, count_where, count_params, text, only_text=only_text,
                   follow=timeless)
    next_cursor = _make_cursor(rows[-1]["sort_value"], rows[-1]["sort_row"], key) if more \
        else None
    return {"items": assetrows.summaries(conn, rows), "total": total,
            "nextCursor": next_cursor, "truncated": False}


def _sort(conn: sqlite3.Connection, args: AssetSearchIn) -> tuple[str, str, list[Any]]:
    """The ORDER BY expression, its direction and the parameters the expression takes."""
    if args.sort in searchtree.SORTS:  # date taken, colour
        return searchtree.sort(args)
    if args.sort != "collection-order":
        expression, direction = SORTS[args.sort]
        return expression, direction, []
    collection = conn.execute("SELECT smart FROM collections WHERE id = ?",
                              (args.collection_id or "",)).fetchone()
    if collection is None or collection["smart"]:
        raise LibraryError(INVALID_ARGUMENT, "sort: collection-order needs the collectionId "
                           "of a hand-picked (not smart) collection.", field="sort")
    return ("(SELECT ca.position FROM collection_assets ca WHERE ca.collection_id = ? "
            "AND ca.asset_id = a.id)", "ASC", [args.collection_id])


def _total(conn: sqlite3.Connection, where: list[str], params: list[Any],
           text: textindex.TextMatch | None, *, only_text: bool, follow: bool) -> int:
    """How many assets match: the trash flag alone from its counter; anything else counted
    once and then followed across changes (`livecounts`). A free text is followed by its
    `LIKE` form (cheap on the assets a write changed) and counted the first time through
    the index (`_text_count`)."""
    if len(where) == 1:  # only the trash flag: kept by triggers
        return int(conn.execute("SELECT n FROM asset_counts WHERE trashed = ?",
                                params).fetchone()[0])
    sequence = conn.execute("SELECT change_sequence FROM library_state").fetchone()[0]
    key = (sequence, tuple(where), tuple(params))
    total = _COUNTS.get(key)
    if total is not None:
        return total
    if text is None:
        total = livecounts.COUNTS.count(conn, " AND ".join(where), params, follow=follow)
    else:
        filters_where = where[:len(where) - len(text.count_where)]
        filters_params = params[:len(params) - len(text.count_params)]
        total = livecounts.COUNTS.count(
            conn, " AND ".join([*filters_where, *text.like_where]),
            [*filters_params, *text.like_params], follow=follow,
            first=lambda: _text_count(conn, where, params, text, only_text=only_text))
    _COUNTS.put(key, total)
    return total


def _text_count(conn: sqlite3.Connection, where: list[str], params: list[Any],
                text: textindex.TextMatch, *, only_text: bool) -> int:
    """A search with free text counted afresh: from the index alone when the text is the
    only filter (`TextMatch.total`), else with the index's conditions (`count_where`)."""
    if only_text:
        from_index = text.total(conn, params[0])
        if from_index is not None:
            return from_index
    return int(conn.execute(f"SELECT count(*) FROM assets a WHERE {' AND '.join(where)}",
                            params).fetchone()[0])


def _filters(conn: sqlite3.Connection, args: AssetSearchIn
             ) -> tuple[list[str] | None, list[Any], bool]:
    """The conditions of every filter but the free text (`textindex.match`): the trash
    flag, then the filter tree (`searchtree`) compiled by the query builder smart
    collections use (`filters`)."""
    where: list[str] = ["a.trashed = ?"]
    params: list[Any] = [1 if args.trashed else 0]
    tree = searchtree.build(conn, args)
    if tree is None:  # a filter that cannot match (an unknown tag)
        return None, [], True
    timeless = True
    if tree.rules:
        condition = filters.compile_tree(tree)
        where.append(condition.sql)
        params += condition.params
        timeless = condition.timeless
    return where, params, timeless


def _filter_key(args: AssetSearchIn) -> str:
    filters = args.model_dump(mode="json", exclude=_PAGING_FIELDS)
    return hashlib.sha256(json.dumps(filters, sort_keys=True).encode()).hexdigest()[:12]


def _make_cursor(value: Any, last_row: int, key: str) -> str:
    raw = json.dumps({"k": key, "v": value, "r": last_row}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _read_cursor(cursor: str, key: str) -> tuple[Any, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        value, last_row, cursor_key = data["v"], data["r"], data["k"]
        if type(last_row) is not int or not isinstance(value, str | int | float):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise LibraryError(INVALID_ARGUMENT, "cursor: not a cursor from this command",
                           field="cursor") from None
    if cursor_key != key:
        raise LibraryError(INVALID_ARGUMENT, "cursor: it belongs to a search with other "
                           "filters or sort", field="cursor")
    return value, last_row
