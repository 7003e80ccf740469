"""Reading and changing asset rows: summaries, full records, tags, folders, search text.

Runs in the worker process (any thread with its own connection). Commands and the history
journal share these so an asset is always changed the same way: a change bumps `version`,
stamps `modified_at`/`modified_by` and refreshes the text the search matches.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from library.worker import who
from library.worker.files import media
from library.worker.rows import tagfold
from library.worker.store.layout import Layout

SUMMARY_COLUMNS = ("a.id, a.name, a.ext, a.kind, a.size, a.width, a.height, a.rating, "
                   "a.version, a.added_at, a.trashed, a.missing, a.problem")
T = TypeVar("T")
CHUNK = 500
PROBLEMS = {  # assets.problem -> what the person reads
    "damaged": "Damaged file: it cannot be decoded (the file is kept as it is).",
    "truncated": "Incomplete file: the picture is cut off; the part that is there is shown.",
    "too-large": "Too large to preview: the picture has more pixels than Serpent decodes.",
}


_ASSET_COLUMNS = ("id, name, original_name, ext, kind, mime, format, size, width, height, "
                  "sha256, taken_at, camera, lens, problem, added_at, modified_at, added_by, "
                  "modified_by, import_key, search_text, duration, pages, codec, font_family, "
                  "font_style")
_ASSET_VALUES = "(" + ", ".join("?" * (_ASSET_COLUMNS.count(",") + 1)) + ")"
ROWS_PER_INSERT = 999 // (_ASSET_COLUMNS.count(",") + 1)  # SQLite's oldest variable limit


def insert_assets(conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert new asset rows (`new_asset_row`), `ROWS_PER_INSERT` to a statement: the text
    index takes a statement's rows in one go (a statement per row costs it twice as much)."""
    for start in range(0, len(rows), ROWS_PER_INSERT):
        part = rows[start:start + ROWS_PER_INSERT]
        conn.execute(f"INSERT INTO assets ({_ASSET_COLUMNS}) VALUES "
                     f"{', '.join([_ASSET_VALUES] * len(part))}",
                     [value for row in part for value in row])


def new_asset_row(asset_id: str, name: str, original_name: str, ext: str, size: int,
                  sha256: str, facts: media.ImageFacts, now: str, actor_json: str,
                  import_key: str | None = None) -> tuple[Any, ...]:
    """The row `insert_assets` inserts for a newly stored file, its search text included
    (that of an asset without notes, source URL or tags: `refresh_search_text` after
    giving it tags)."""
    return (asset_id, name, original_name, ext, media.kind_of(ext), media.mime_of(ext),
            facts.format, size, facts.width, facts.height, sha256, facts.taken_at,
            facts.camera, facts.lens, facts.problem, now, now, actor_json, actor_json,
            import_key, search_text_of(name, original_name, camera=facts.camera,
                                       lens=facts.lens, font=font_of(facts)),
            facts.duration, facts.pages, facts.codec, facts.family, facts.style)


def font_of(facts: media.ImageFacts) -> str:
    """A font's family and style as its search text has them ("" for other files)."""
    return " ".join(part for part in (facts.family, facts.style) if part)


def search_text_of(name: str, original_name: str, notes: str = "",
                   source_url: str | None = None, camera: str | None = None,
                   lens: str | None = None, tags: str | None = None, font: str = "") -> str:
    """The text `refresh_search_text` stores for these fields (`tags`: their names joined
    with spaces; `font`: family and style; a new asset has no found text yet), made without
    asking the database."""
    text = " ".join((name, original_name, notes, source_url or "", camera or "", lens or "",
                     tags or "")).casefold()
    return f"{text} {font.casefold()}" if font else text


def chunks(ids: Sequence[T], size: int = CHUNK) -> Iterable[Sequence[T]]:
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def marks(count: int) -> str:
    return ",".join("?" * count)


def tags_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {i: [] for i in ids}
    for part in chunks(ids):
        for asset_id, name in conn.execute(
                f"SELECT at.asset_id, t.name FROM asset_tags at JOIN tags t ON t.id = at.tag_id "
                f"WHERE at.asset_id IN ({marks(len(part))}) ORDER BY t.name COLLATE NOCASE",
                part):
            found[asset_id].append(name)
    return found


def folders_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {i: [] for i in ids}
    for part in chunks(ids):
        for asset_id, folder_id in conn.execute(
                f"SELECT asset_id, folder_id FROM asset_folders WHERE asset_id IN "
                f"({marks(len(part))}) ORDER BY folder_id", part):
            found[asset_id].append(folder_id)
    return found


def summaries(conn: sqlite3.Connection, rows: Sequence[sqlite3.Row]) -> list[dict[str, Any]]:
    """`AssetSummary` JSON (camelCase) for rows selected with SUMMARY_COLUMNS."""
    ids = [row["id"] for row in rows]
    tags = tags_of(conn, ids)
    folders = folders_of(conn, ids)
    return [{"id": r["id"], "name": r["name"], "ext": r["ext"], "kind": r["kind"],
             "size": r["size"], "width": r["width"], "height": r["height"],
             "rating": r["rating"], "tags": tags[r["id"]], "folderIds": folders[r["id"]],
             "version": r["version"], "addedAt": r["added_at"], "trashed": bool(r["trashed"]),
             "missing": bool(r["missing"]), "problem": problem_of(r["problem"])} for r in rows]


def problem_of(code: str | None) -> dict[str, str] | None:
    if code is None:
        return None
    return {"code": code, "message": PROBLEMS.get(code, "This file cannot be shown.")}


def palettes_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each asset's palette (colour, ratio), largest share first."""
    found: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    for part in chunks(ids):
        for asset_id, color, ratio in conn.execute(
                f"SELECT asset_id, color, ratio FROM asset_colors WHERE asset_id IN "
                f"({marks(len(part))}) ORDER BY asset_id, position", part):
            found[asset_id].append({"color": color, "ratio": ratio})
    return found


def full_assets(conn: sqlite3.Connection, ids: Sequence[str],
                layout: Layout) -> tuple[list[dict[str, Any]], list[str]]:
    """`Asset` JSON for the ids that exist (in the order asked), and the ids that do not.
    `filePath` is where the stored file is (`layout`: the library it lies in)."""
    rows: dict[str, sqlite3.Row] = {}
    for part in chunks(list(dict.fromkeys(ids))):
        for row in conn.execute(f"SELECT {SUMMARY_COLUMNS}, a.format, a.mime, a.sha256, "
                                f"a.notes, a.source_url, a.original_name, a.modified_at, "
                                f"a.added_by, a.modified_by, a.trashed_at, a.taken_at, "
                                f"a.camera, a.lens, a.duration, a.pages, a.codec, "
                                f"a.font_family, a.font_style FROM assets a "
                                f"WHERE a.id IN ({marks(len(part))})", part):
            rows[row["id"]] = row
    ordered = [rows[i] for i in dict.fromkeys(ids) if i in rows]
    items = summaries(conn, ordered)
    palettes = palettes_of(conn, [r["id"] for r in ordered])
    found = found_texts(conn, [r["id"] for r in ordered])
    for item, row in zip(items, ordered, strict=True):
        item.update({"format": row["format"], "mime": row["mime"], "sha256": row["sha256"],
                     "notes": row["notes"], "sourceUrl": row["source_url"],
                     "originalName": row["original_name"], "modifiedAt": row["modified_at"],
                     "addedBy": who.seen_from(json.loads(row["added_by"]), layout.machine),
                     "modifiedBy": who.seen_from(json.loads(row["modified_by"]),
                                                 layout.machine),
                     "trashedAt": row["trashed_at"],
                     "filePath": os.path.abspath(layout.file_for(row["sha256"], row["ext"])),
                     "takenAt": row["taken_at"], "camera": row["camera"], "lens": row["lens"],
                     "palette": palettes[row["id"]], "duration": row["duration"],
                     "pages": row["pages"], "codec": row["codec"],
                     "fontFamily": row["font_family"], "fontStyle": row["font_style"],
                     "foundText": found[row["id"]]})
    return items, [i for i in dict.fromkeys(ids) if i not in rows]


def found_texts(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[dict[str, str]]]:
    """The text analysers found in each asset (`asset_texts`), by source."""
    found: dict[str, list[dict[str, str]]] = {i: [] for i in ids}
    for part in chunks(ids):
        for asset_id, source, text in conn.execute(
                f"SELECT asset_id, source, text FROM asset_texts WHERE asset_id IN "
                f"({marks(len(part))}) ORDER BY asset_id, source", part):
            found[asset_id].append({"source": source, "text": text})
    return found


def existing(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, sqlite3.Row]:
    found: dict[str, sqlite3.Row] = {}
    for part in chunks(list(dict.fromkeys(ids))):
        for row in conn.execute(f"SELECT id, version, trashed, name, size, sha256, ext "
                                f"FROM assets WHERE id IN ({marks(len(part))})", part):
            found[row["id"]] = row
    return found


def tag_ids(conn: sqlite3.Connection, names: Iterable[str], now: str) -> dict[str, int]:
    """Ids of the tags (any case, `tagfold`), created when missing. Keyed by the folded name."""
    result: dict[str, int] = {}
    for name in names:
        key = tagfold.fold(name)
        if key in result:
            continue
        row = tagfold.find(conn, name)
        if row is None:
            row = conn.execute("INSERT INTO tags (name, folded, created_at) VALUES (?, ?, ?) "
                               "RETURNING id", (name, key, now)).fetchone()
        result[key] = row[0]
    return result


def set_tags(conn: sqlite3.Connection, asset_id: str, names: Iterable[str], now: str) -> None:
    ids = tag_ids(conn, names, now)
    conn.execute("DELETE FROM asset_tags WHERE asset_id = ?", (asset_id,))
    conn.executemany("INSERT INTO asset_tags (asset_id, tag_id) VALUES (?, ?)",
                     [(asset_id, tag_id) for tag_id in ids.values()])


def set_folders(conn: sqlite3.Connection, asset_id: str, folder_ids: Iterable[str]) -> None:
    conn.execute("DELETE FROM asset_folders WHERE asset_id = ?", (asset_id,))
    conn.executemany("INSERT OR IGNORE INTO asset_folders (asset_id, folder_id) "
                     "SELECT ?, id FROM folders WHERE id = ?",
                     [(asset_id, folder_id) for folder_id in folder_ids])


def mark_modified(conn: sqlite3.Connection, ids: Sequence[str], now: str, actor_json: str) -> None:
    """Bump the version of changed assets and refresh what search matches."""
    for part in chunks(list(ids)):
        conn.execute(f"UPDATE assets SET version = version + 1, modified_at = ?, "
                     f"modified_by = ? WHERE id IN ({marks(len(part))})",
                     (now, actor_json, *part))
    refresh_search_text(conn, ids)


def refresh_search_text(conn: sqlite3.Connection, ids: Sequence[str], *,
                        media: bool = True) -> None:
    """Make the assets' search text from their fields and tags (`search_text_of` makes the
    same text in Python). `media=False`: without a font's names and found text (a migration
    step older than the schema that keeps them)."""
    more = _MORE_TEXT if media else "''"
    for part in chunks(list(ids)):
        conn.execute(
            f"UPDATE assets SET search_text = fold(name || ' ' || original_name || ' ' || "
            f"notes || ' ' || coalesce(source_url, '') || ' ' || coalesce(camera, '') || ' ' "
            f"|| coalesce(lens, '') || ' ' || coalesce((SELECT "
            f"group_concat(t.name, ' ') FROM asset_tags at JOIN tags t ON t.id = at.tag_id "
            f"WHERE at.asset_id = assets.id), '') || {more}) "
            f"WHERE id IN ({marks(len(part))})", part)


# a font's family and style, and the text analysers found in the asset, after the rest
# (`search_text_of` has the font's the same way; a new asset has found no text yet)
_MORE_TEXT = ("coalesce(' ' || nullif(trim(coalesce(font_family, '') || ' ' || "
              "coalesce(font_style, '')), ''), '') || coalesce(' ' || (SELECT "
              "group_concat(x.text, ' ') FROM asset_texts x WHERE x.asset_id = assets.id), '')")


def drop_unused_tags(conn: sqlite3.Connection) -> None:
    """A tag exists while some asset (trash included) carries it."""
    conn.execute("DELETE FROM tags WHERE NOT EXISTS (SELECT 1 FROM asset_tags at "
                 "WHERE at.tag_id = tags.id)")


def register_functions(conn: sqlite3.Connection) -> None:
    conn.create_function("fold", 1, lambda text: (text or "").casefold(), deterministic=True)
    try:                              # colour search's distance (SQLite's math functions)
        conn.execute("SELECT sqrt(4.0)").fetchone()
    except sqlite3.OperationalError:  # an SQLite built without them: Python's, a little slower
        conn.create_function("sqrt", 1, math.sqrt, deterministic=True)
