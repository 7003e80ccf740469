"""`fold(text)` in PostgreSQL: Python's `str.casefold`, which the library's SQL calls.

Runs in the worker process when a studio library is made. On SQLite `fold` is a Python
function registered on each connection (`assetrows.register_functions`); PostgreSQL has no
casefold (before 18), so the function is made here from two things: the server's own
`lower()` (ICU's, full Unicode) and Python's casefold, asked of every character that has
case. Where the two differ (µ → μ, ς → σ, ß → ss, Cherokee, Greek with iota, ...) the
function puts the casefolded text after `lower`: `translate` for one character to one,
`replace` for the rest. ASCII text takes a short path (`lower` of the C collation). The
test holds it to Python's casefold over every character with case.
"""

from __future__ import annotations

from typing import Any

_ICU = "und-x-icu"


def _has_case(code: int) -> bool:
    char = chr(code)
    return char.lower() != char or char.upper() != char or char.casefold() != char


def function_sql(raw: Any) -> str:
    """`CREATE FUNCTION fold(text)` for this server (asks it how it lowers)."""
    icu = raw.execute("SELECT 1 FROM pg_collation WHERE collname = %s", (_ICU,)).fetchone()
    collate = f' COLLATE "{_ICU}"' if icu else ""
    candidates = [chr(n) for n in range(128, 0x110000)
                  if not 0xD800 <= n <= 0xDFFF and _has_case(n)]
    lowered = raw.execute(
        f"SELECT lower(x{collate}) FROM unnest(%s::text[]) WITH ORDINALITY AS u(x, i) "
        f"ORDER BY i", (candidates,)).fetchall()
    one: dict[str, str] = {}
    more: dict[str, str] = {}
    for char, row in zip(candidates, lowered, strict=True):
        low, want = row[0], char.casefold()
        if low == want:
            continue
        if len(low) == 1 and len(want) == 1:
            one[low] = want
        else:
            more[low] = want
    body = f"lower(t{collate})"
    if one:
        body = f"translate({body}, {_quote(''.join(one))}, {_quote(''.join(one.values()))})"
    for low, want in sorted(more.items()):
        body = f"replace({body}, {_quote(low)}, {_quote(want)})"
    # the two ways are two functions: their collations never meet in one expression
    return (
        "CREATE OR REPLACE FUNCTION fold_unicode(t text) RETURNS text LANGUAGE sql "
        f"IMMUTABLE PARALLEL SAFE AS $fold$ SELECT {body} $fold$;\n"
        "CREATE OR REPLACE FUNCTION fold_ascii(t text) RETURNS text LANGUAGE sql "
        "IMMUTABLE PARALLEL SAFE AS $fold$ SELECT lower(t COLLATE \"C\") $fold$;\n"
        "CREATE OR REPLACE FUNCTION fold(t text) RETURNS text LANGUAGE sql IMMUTABLE "
        "PARALLEL SAFE AS $fold$ SELECT CASE WHEN t IS NULL THEN '' "
        "WHEN octet_length(t) = char_length(t) THEN fold_ascii(t) "
        "ELSE fold_unicode(t) END $fold$")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
