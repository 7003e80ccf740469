"""`tag.list`: every tag with how many assets (outside the trash) carry it.

Runs in the worker process, on a reader thread. Sorted by name or by count (ties by name),
filtered by a case-insensitive prefix, paged with an opaque cursor. The counts are the
trigger-kept `tags.live_count` (schema migration 5), not counted per request.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from library.errors import INVALID_ARGUMENT, LibraryError
from library.schemas import Tag, TagListIn, TagListOut
from library.worker.context import ReadContext
from library.worker.rows import tagfold


def list_tags(ctx: ReadContext, args: TagListIn) -> TagListOut:
    where, params = "", []
    if args.prefix:
        escaped = args.prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where = "WHERE t.folded LIKE ? ESCAPE '\\'"
        params.append(tagfold.fold(escaped) + "%")
    order = ("t.name COLLATE NOCASE ASC, t.id" if args.sort == "name"
             else "t.live_count DESC, t.name COLLATE NOCASE ASC, t.id")
    start = _read_cursor(args.cursor, args) if args.cursor else 0
    rows = ctx.conn.execute(
        f"SELECT t.name, t.version, t.live_count AS count "
        f"FROM tags t {where} ORDER BY {order} LIMIT ? OFFSET ?",
        (*params, args.limit + 1, start)).fetchall()
    total = ctx.conn.execute(f"SELECT count(*) FROM tags t {where}", params).fetchone()[0]
    more = len(rows) > args.limit
    rows = rows[:args.limit]
    return TagListOut(items=[Tag(name=r["name"], count=r["count"], version=r["version"])
                             for r in rows], total=total,
                      next_cursor=_make_cursor(start + len(rows), args) if more else None)


def _key(args: TagListIn) -> list[Any]:
    return [args.prefix, args.sort]


def _make_cursor(position: int, args: TagListIn) -> str:
    raw = json.dumps({"p": position, "k": _key(args)}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _read_cursor(cursor: str, args: TagListIn) -> int:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if data["k"] != _key(args) or not isinstance(data["p"], int) or data["p"] < 0:
            raise ValueError
        return int(data["p"])
    except (ValueError, KeyError, TypeError):
        raise LibraryError(INVALID_ARGUMENT, "cursor: not a cursor from this tag list",
                           field="cursor") from None
