"""Smart-collection rules: checked rule by rule, compiled to one parameterized SQL condition.

Runs in the worker process, any thread. Values never enter the SQL text: each one is a `?`
parameter, and a rule's field and operator only pick fixed SQL fragments from the tables
below. `check` refuses a bad rule with INVALID_ARGUMENT naming it (`rules.rules.2.value`)
and returns the rules in canonical form (what gets stored); `compile_rules` turns rules into
a condition over `assets a`. Text matches ignore case; `contains` is a plain substring
(`%` and `_` match themselves). Dates without a time are whole UTC days: `before
2026-05-01` means earlier than that day, `after 2026-05-01` later than that day.

field        ops                                    value
tag          is, is-not, contains, not-contains     a tag name (contains: part of one)
name, notes, source-url   same                      text
ext, kind    is, is-not                             one value or a list (any of them)
rating, width, height, size  is, is-not, gte, lte   a whole number (size in bytes)
added-at     before, after, in-last-days            ISO date/time; days for in-last-days
folder       is, is-not                             a folder id (assets directly in it)
untagged     is, is-not                             true or false
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, get_args

from library.errors import INVALID_ARGUMENT, NOT_FOUND, LibraryError
from library.schemas import Rule, RuleSet
from library.schemas.common import AssetKind
from library.worker.store.identity import from_datetime

TEXT_OPS = ("is", "is-not", "contains", "not-contains")
CHOICE_OPS = ("is", "is-not")
NUMBER_OPS = ("is", "is-not", "gte", "lte")
DATE_OPS = ("before", "after", "in-last-days")
OPS: dict[str, tuple[str, ...]] = {
    "tag": TEXT_OPS, "name": TEXT_OPS, "notes": TEXT_OPS, "source-url": TEXT_OPS,
    "ext": CHOICE_OPS, "kind": CHOICE_OPS,
    "rating": NUMBER_OPS, "width": NUMBER_OPS, "height": NUMBER_OPS, "size": NUMBER_OPS,
    "added-at": DATE_OPS, "folder": CHOICE_OPS, "untagged": CHOICE_OPS,
}
_TEXT_COLUMNS = {"name": "a.name", "notes": "a.notes", "source-url": "coalesce(a.source_url, '')"}
_NUMBER_COLUMNS = {"rating": "a.rating", "width": "a.width", "height": "a.height",
                   "size": "a.size"}
_NUMBER_RANGES = {"rating": (0, 5), "width": (0, 1_000_000), "height": (0, 1_000_000),
                  "size": (0, 2 ** 62)}
_TAGGED = ("a.id IN (SELECT at.asset_id FROM asset_tags at JOIN tags t ON t.id = at.tag_id "
           "WHERE {test})")
_EXT = re.compile(r"^[a-z0-9]{1,16}$")
_FOLDER_ID = re.compile(r"^fld_[0-9a-z]{8,40}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_KINDS = frozenset(get_args(AssetKind))
MAX_TEXT = 500
MAX_CHOICES = 50
MAX_DAYS = 36_500
# How a rule error names a field and an operator to a person (the window's rule rows show it)
FIELD_WORDS = {"ext": "extension", "source-url": "source URL", "added-at": "date added"}
OP_WORDS = {"is-not": "is not", "not-contains": "does not contain", "gte": "at least",
            "lte": "at most", "in-last-days": "in the last … days"}


def op_words(op: str) -> str:
    return OP_WORDS.get(op, op)


def field_words(field: str) -> str:
    return FIELD_WORDS.get(field, field)


@dataclass(frozen=True)
class Condition:
    sql: str  # over `assets a`, wrapped in parentheses
    params: list[Any]
    key: str  # names these rules (pagination cursors are bound to it)


class _Bad(Exception):
    def __init__(self, part: str, message: str) -> None:
        super().__init__(message)
        self.part = part
        self.message = message


def check(ruleset: RuleSet, conn: sqlite3.Connection | None = None, *,
          field: str = "rules") -> RuleSet:
    """The rules in canonical form, or INVALID_ARGUMENT naming the bad rule.

    With `conn`, a folder rule must name an existing folder (else NOT_FOUND).
    """
    canonical = []
    for index, rule in enumerate(ruleset.rules):
        where = f"{field}.rules.{index}"
        try:
            value = _canonical(rule)
        except _Bad as bad:
            raise LibraryError(INVALID_ARGUMENT, f"{where}.{bad.part}: {bad.message}",
                               field=f"{where}.{bad.part}") from None
        if conn is not None and rule.field == "folder" and not conn.execute(
                "SELECT 1 FROM folders WHERE id = ?", (value,)).fetchone():
            raise LibraryError(NOT_FOUND, f"{where}.value: no folder has this id.",
                               field=f"{where}.value")
        canonical.append(Rule(field=rule.field, op=rule.op, value=value))
    return RuleSet(match=ruleset.match, rules=canonical)


def compile_rules(ruleset: RuleSet, now: datetime | None = None) -> Condition:
    """One SQL condition matching the assets these rules pick."""
    ruleset = check(ruleset)
    now = now or datetime.now(UTC)
    parts, params = [], []
    for rule in ruleset.rules:
        sql, values = _sql(rule, now)
        parts.append(f"({sql})")
        params += values
    joiner = " AND " if ruleset.match == "all" else " OR "
    key_source = json.dumps(ruleset.model_dump(mode="json"), sort_keys=True)
    return Condition(f"({joiner.join(parts)})", params,
                     hashlib.sha256(key_source.encode()).hexdigest()[:16])


def compile_stored(rules_json: str, now: datetime | None = None) -> Condition:
    return compile_rules(RuleSet.model_validate_json(rules_json), now)


# -- checking values -------------------------------------------------------------------
def _canonical(rule: Rule) -> Any:
    if rule.op not in OPS[rule.field]:
        allowed = ", ".join(op_words(op) for op in OPS[rule.field])
        raise _Bad("op", f"{field_words(rule.field)} takes: {allowed} "
                         f"(not “{op_words(rule.op)}”)")
    value = rule.value
    if rule.field in _TEXT_COLUMNS or rule.field == "tag":
        return _text(value, contains=rule.op in ("contains", "not-contains"),
                     tag=rule.field == "tag")
    if rule.field == "ext":
        return _choices(value, lambda v: v.lower().removeprefix("."), _EXT.match,
                        "an extension without the dot, like png")
    if rule.field == "kind":
        return _choices(value, lambda v: v, lambda v: v in _KINDS,
                        f"one of {', '.join(sorted(_KINDS))}")
    if rule.field in _NUMBER_COLUMNS:
        return _whole_number(value, *_NUMBER_RANGES[rule.field])
    if rule.field == "added-at":
        if rule.op == "in-last-days":
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0 < value <= MAX_DAYS:
                raise _Bad("value", f"a number of days between 0 and {MAX_DAYS}")
            return value
        return _moment(value)
    if rule.field == "folder":
        if not isinstance(value, str) or not _FOLDER_ID.match(value):
            raise _Bad("value", "a folder id (fld_...)")
        return value
    if not isinstance(value, bool):  # untagged
        raise _Bad("value", "true or false")
    return value


def _text(value: Any, *, contains: bool, tag: bool) -> str:
    if not isinstance(value, str):
        raise _Bad("value", "must be text")
    if len(value) > (100 if tag else MAX_TEXT):
        raise _Bad("value", f"at most {100 if tag else MAX_TEXT} characters")
    if _CONTROL.search(value):
        raise _Bad("value", "must not contain control characters")
    if (contains or tag) and not value.strip():
        raise _Bad("value", "must not be empty")
    return value.strip() if tag else value


def _choices(value: Any, clean: Any, valid: Any, what: str) -> str | list[str]:
    values = value if isinstance(value, list) else [value]
    if not values or len(values) > MAX_CHOICES:
        raise _Bad("value", f"one value or a list of 1 to {MAX_CHOICES}")
    cleaned = []
    for item in values:
        if not isinstance(item, str) or not valid(clean(item)):
            raise _Bad("value", f"{item!r} is not {what}")
        cleaned.append(clean(item))
    cleaned = list(dict.fromkeys(cleaned))
    return cleaned if isinstance(value, list) else cleaned[0]


def _whole_number(value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not value.is_integer()):
        raise _Bad("value", "must be a whole number")
    if not low <= value <= high:
        raise _Bad("value", f"must be between {low} and {high}")
    return int(value)


def _moment(value: Any) -> str:
    """An ISO date (`2026-05-01`) or date and time, canonical (UTC for a time)."""
    if not isinstance(value, str) or len(value) > 40:
        raise _Bad("value", "an ISO date like 2026-05-01 or a date and time")
    try:
        if len(value) == 10:
            return date.fromisoformat(value).isoformat()
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _Bad("value", "an ISO date like 2026-05-01 or a date and time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


# -- SQL -------------------------------------------------------------------------------
def _like(text: str) -> str:
    escaped = text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _sql(rule: Rule, now: datetime) -> tuple[str, list[Any]]:
    field, op, value = rule.field, rule.op, rule.value
    negate = op in ("is-not", "not-contains")
    if field == "tag":
        test = ("fold(t.name) LIKE ? ESCAPE '\\'" if op in ("contains", "not-contains")
                else "t.name = ?")
        param = _like(value) if "contains" in op else value
        sql = _TAGGED.format(test=test)
        return (f"NOT {sql}" if negate else sql), [param]
    if field in _TEXT_COLUMNS:
        column = f"fold({_TEXT_COLUMNS[field]})"
        if op in ("contains", "not-contains"):
            return f"{column} {'NOT ' if negate else ''}LIKE ? ESCAPE '\\'", [_like(value)]
        return f"{column} {'!=' if negate else '='} ?", [value.casefold()]
    if field in ("ext", "kind"):
        values = value if isinstance(value, list) else [value]
        column = "a.ext" if field == "ext" else "a.kind"
        marks = ",".join("?" * len(values))
        return f"{column} {'NOT ' if negate else ''}IN ({marks})", list(values)
    if field in _NUMBER_COLUMNS:
        column = _NUMBER_COLUMNS[field]
        if op == "is-not":
            return f"({column} IS NULL OR {column} != ?)", [value]
        return f"{column} {({'is': '=', 'gte': '>=', 'lte': '<='})[op]} ?", [value]
    if field == "added-at":
        if op == "in-last-days":
            return "a.added_at >= ?", [from_datetime(now - timedelta(days=value))]
        if len(value) == 10:  # a whole day
            start = datetime.fromisoformat(value).replace(tzinfo=UTC)
            if op == "before":
                return "a.added_at < ?", [from_datetime(start)]
            return "a.added_at >= ?", [from_datetime(start + timedelta(days=1))]
        moment = from_datetime(datetime.fromisoformat(value))
        return ("a.added_at < ?" if op == "before" else "a.added_at > ?"), [moment]
    if field == "folder":
        sql = "a.id IN (SELECT asset_id FROM asset_folders WHERE folder_id = ?)"
        return (f"NOT {sql}" if negate else sql), [value]
    untagged = value != negate  # "is true" / "is-not false": no tags at all
    exists = "EXISTS (SELECT 1 FROM asset_tags x WHERE x.asset_id = a.id)"
    return (f"NOT {exists}" if untagged else exists), []
