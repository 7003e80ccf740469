"""The library's SQL (written for SQLite) as PostgreSQL runs it: one mechanical rewrite.

Runs in the worker process, any thread (pure functions, cached). The statements of
`library/` are SQLite's, tuned for it; on a studio library the same text goes through
`postgres()` first, so both kinds of library run one query layer (docs/studio.md says why
not SQLAlchemy). What it rewrites, and why each is exact:

- `?` placeholders become `%s` (and a literal `%` becomes `%%`), outside string literals;
- `X COLLATE NOCASE` becomes `lower(X)` and a comparison `X COLLATE NOCASE <op> ?` becomes
  `lower(X) <op> lower(? COLLATE "C")`: every text column is `COLLATE "C"` in the studio
  schema, where `lower` folds ASCII only and compares bytes, exactly SQLite's NOCASE;
- `INSERT OR IGNORE` becomes `... ON CONFLICT DO NOTHING`, `INSERT OR REPLACE` an upsert on
  the table's primary key (`PRIMARY_KEYS`), replacing every other column given;
- `group_concat(` becomes `string_agg(`, `CAST(... AS REAL)` a double precision;
- SQLite's scalar `min(a, b, ...)` / `max(a, b, ...)` (more than one argument) become
  `least(...)` / `greatest(...)` (the aggregates, one argument, stay): the same for values
  that are not NULL, which is how the library calls them (SQLite would answer NULL).

`a.rowid` needs nothing: a studio `assets` table has a `rowid` column in import order.
"""

from __future__ import annotations

import re
from functools import lru_cache

# the primary key of every table an `INSERT OR REPLACE` writes to
PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "requests": ("id",),
    "history_items": ("entry_id", "kind", "entity_id"),
    "linked_dirs": ("linked_folder_id", "relative_dir"),
    "linked_files": ("linked_folder_id", "relative_path"),
    "asset_texts": ("asset_id", "source"),
    "analyser_runs": ("asset_id", "analyser"),
    "asset_analysis": ("asset_id",),
}

_LITERAL = re.compile(r"'(?:[^']|'')*'")
_NOCASE_COMPARED = re.compile(
    r"((?:\w+\.)?\w+) COLLATE NOCASE\s*(=|!=|<>|<=|>=|<|>)\s*\?")
_COMPARED_NOCASE = re.compile(r"((?:\w+\.)?\w+)\s*(=|!=|<>|<=|>=|<|>)\s*\? COLLATE NOCASE")
_NOCASE = re.compile(r"((?:\w+\.)?\w+) COLLATE NOCASE")
_INSERT_OR = re.compile(r"^\s*INSERT OR (IGNORE|REPLACE) INTO (\w+)\s*\(([^)]*)\)",
                        re.IGNORECASE)
_RETURNING = re.compile(r"\sRETURNING\s", re.IGNORECASE)
_MIN_MAX = re.compile(r"(?<![\w.])(min|max)\(", re.IGNORECASE)
_SCALAR = {"min": "least", "max": "greatest"}


class Untranslatable(ValueError):
    """A statement only SQLite can run (a PRAGMA, an `INSERT OR REPLACE` into a table whose
    key is not known here): a bug to fix where it is written."""


@lru_cache(maxsize=4096)
def postgres(sql: str) -> str:
    """`sql` as PostgreSQL runs it (placeholders `%s`)."""
    stripped = sql.lstrip()
    if stripped[:6].upper() == "PRAGMA":
        raise Untranslatable(f"a SQLite PRAGMA cannot run on PostgreSQL: {stripped[:60]!r}")
    parts: list[str] = []
    last = 0
    for literal in _LITERAL.finditer(sql):
        parts.append(_code(sql[last:literal.start()]))
        parts.append(literal.group(0).replace("%", "%%"))
        last = literal.end()
    parts.append(_code(sql[last:]))
    text = "".join(parts)
    return _insert_or(_scalar_min_max(text))


def _code(code: str) -> str:
    """A stretch of SQL outside string literals."""
    code = code.replace("%", "%%")
    code = _NOCASE_COMPARED.sub(r'lower(\1) \2 lower(? COLLATE "C")', code)
    code = _COMPARED_NOCASE.sub(r'lower(\1) \2 lower(? COLLATE "C")', code)
    code = _NOCASE.sub(r"lower(\1)", code)
    code = code.replace("group_concat(", "string_agg(")
    code = re.sub(r"\bAS REAL\)", "AS DOUBLE PRECISION)", code)
    return code.replace("?", "%s")


def _scalar_min_max(text: str) -> str:
    """Each `min(`/`max(` whose parentheses hold a comma at their own level, renamed."""
    out: list[str] = []
    last = 0
    for call in _MIN_MAX.finditer(text):
        if _arguments(text, call.end()) > 1:
            out.append(text[last:call.start()])
            out.append(_SCALAR[call.group(1).lower()] + "(")
            last = call.end()
    out.append(text[last:])
    return "".join(out)


def _arguments(text: str, start: int) -> int:
    """How many arguments the call whose `(` ends just before `start` has."""
    depth, count, at = 0, 1, start
    while at < len(text):
        char = text[at]
        if char == "'":  # a string literal: skip it ('' inside is an escaped quote)
            at = text.index("'", at + 1) + 1
            while at < len(text) and text[at] == "'":
                at = text.index("'", at + 1) + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return count
            depth -= 1
        elif char == "," and depth == 0:
            count += 1
        at += 1
    return count


def _insert_or(text: str) -> str:
    found = _INSERT_OR.match(text)
    if found is None:
        return text
    action, table, columns = found.group(1).upper(), found.group(2), found.group(3)
    head = f"INSERT INTO {table} ({columns})"
    rest = text[found.end():]
    returning = _RETURNING.search(rest)
    body, tail = (rest[:returning.start()], rest[returning.start():]) if returning \
        else (rest, "")
    if action == "IGNORE":
        return f"{head}{body.rstrip()} ON CONFLICT DO NOTHING{tail}"
    key = PRIMARY_KEYS.get(table)
    if key is None:
        raise Untranslatable(f"INSERT OR REPLACE INTO {table}: its primary key is not in "
                             f"sqltext.PRIMARY_KEYS")
    names = [c.strip() for c in columns.split(",")]
    others = [c for c in names if c not in key]
    update = ", ".join(f"{c} = EXCLUDED.{c}" for c in others)
    action_sql = f"DO UPDATE SET {update}" if others else "DO NOTHING"
    return f"{head}{body.rstrip()} ON CONFLICT ({', '.join(key)}) {action_sql}{tail}"
