"""The fields a filter rule can test: each field's operators, how its value is checked and
put in canonical form, and the SQL fragment it becomes (over `assets a`).

Runs in the worker process, any thread. Values never enter the SQL text: each is a `?`
parameter; a rule's field and operator only pick fixed fragments. Text matches ignore case
(full Unicode folding); `contains` is a plain substring (`%` and `_` match themselves).
Dates without a time are whole days. `filters` walks the tree of rules and groups; this
module knows one rule at a time (see `library.schemas.Rule` for the table of fields).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any, get_args

from library.schemas import Orientation, Rule
from library.schemas.common import AssetKind
from library.worker.files import colours
from library.worker.rows import colourmatch, tagfold
from library.worker.store.identity import from_datetime

TEXT_OPS = ("is", "is-not", "contains", "not-contains")
CHOICE_OPS = ("is", "is-not")
NUMBER_OPS = ("is", "is-not", "gte", "lte")
DATE_OPS = ("before", "after", "in-last-days")
OPS: dict[str, tuple[str, ...]] = {
    "tag": TEXT_OPS, "name": TEXT_OPS, "notes": TEXT_OPS, "source-url": TEXT_OPS,
    "camera": TEXT_OPS, "lens": TEXT_OPS,
    "ext": CHOICE_OPS, "kind": CHOICE_OPS, "orientation": CHOICE_OPS, "color": CHOICE_OPS,
    "rating": NUMBER_OPS, "width": NUMBER_OPS, "height": NUMBER_OPS, "size": NUMBER_OPS,
    "aspect-ratio": NUMBER_OPS, "duration": NUMBER_OPS, "pages": NUMBER_OPS,
    "found-text": TEXT_OPS,
    "added-at": DATE_OPS, "taken-at": DATE_OPS, "folder": ("is", "is-not", "within"),
    "untagged": CHOICE_OPS,
}
TEXT_COLUMNS = {"name": "a.name", "notes": "a.notes", "source-url": "coalesce(a.source_url, '')",
                "camera": "coalesce(a.camera, '')", "lens": "coalesce(a.lens, '')"}
NUMBER_COLUMNS = {"rating": "a.rating", "width": "a.width", "height": "a.height",
                  "size": "a.size", "duration": "a.duration", "pages": "a.pages"}
_NUMBER_RANGES = {"rating": (0, 5), "width": (0, 1_000_000), "height": (0, 1_000_000),
                  "size": (0, 2 ** 62), "pages": (0, 10_000_000)}
MAX_SECONDS = 10 * 365 * 86400  # a duration rule's value, in seconds
_FOUND = ("a.id IN (SELECT x.asset_id FROM asset_texts x WHERE fold(x.text) LIKE ? "
          "ESCAPE '\\')")
_FOUND_IS = "a.id IN (SELECT x.asset_id FROM asset_texts x WHERE fold(x.text) = ?)"
_TAGGED = ("a.id IN (SELECT at.asset_id FROM asset_tags at JOIN tags t ON t.id = at.tag_id "
           "WHERE {test})")
_IN_FOLDER = "a.id IN (SELECT asset_id FROM asset_folders WHERE folder_id = ?)"
IN_TREE = ("a.id IN (SELECT asset_id FROM asset_folders WHERE folder_id IN (WITH RECURSIVE "
           "tree(id) AS (SELECT id FROM folders WHERE id = ? UNION SELECT f.id FROM folders f "
           "JOIN tree ON f.parent_id = tree.id) SELECT id FROM tree))")
_HAS_SIZE = "a.width > 0 AND a.height > 0"
SHAPES: dict[str, str] = {  # width and height as displayed
    "square": "a.width * 100 <= a.height * 105 AND a.height * 100 <= a.width * 105",
    "panoramic": "(a.width >= 2 * a.height OR a.height >= 2 * a.width)",
    "landscape": "a.width * 100 > a.height * 105 AND a.width < 2 * a.height",
    "portrait": "a.height * 100 > a.width * 105 AND a.height < 2 * a.width",
}
_RATIO = "(CAST(a.width AS REAL) / a.height)"
_EXT = re.compile(r"^[a-z0-9]{1,16}$")
_FOLDER_ID = re.compile(r"^fld_[0-9a-z]{8,40}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_RATIO_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[:x/]\s*(\d+(?:\.\d+)?)\s*$")
KINDS = frozenset(get_args(AssetKind))
ORIENTATIONS = frozenset(get_args(Orientation))
MAX_TEXT = 500
MAX_CHOICES = 50
MAX_DAYS = 36_500
# How a rule error names a field and an operator to a person (the window's rule rows show it)
FIELD_WORDS = {"ext": "extension", "source-url": "source URL", "added-at": "date added",
               "taken-at": "date taken", "aspect-ratio": "aspect ratio",
               "found-text": "text in the picture", "duration": "duration (seconds)"}
OP_WORDS = {"is-not": "is not", "not-contains": "does not contain", "gte": "at least",
            "lte": "at most", "in-last-days": "in the last … days"}
DEFAULT_TOLERANCE = colourmatch.DEFAULT_TOLERANCE
DEFAULT_MIN_RATIO = colourmatch.DEFAULT_MIN_RATIO
RATIO_SLACK = 0.01  # aspect-ratio "is": within 1 %


class BadValue(Exception):
    """A rule that cannot be used; `part` is "op" or "value"."""

    def __init__(self, part: str, message: str) -> None:
        super().__init__(message)
        self.part = part
        self.message = message


# -- checking values -------------------------------------------------------------------
def op_words(op: str) -> str:
    return OP_WORDS.get(op, op)


def field_words(field: str) -> str:
    return FIELD_WORDS.get(field, field)


def canonical(rule: Rule) -> Any:
    """The rule's value in canonical form (what is stored), or BadValue."""
    field, op, value = rule.field, rule.op, rule.value
    if op not in OPS[field]:
        allowed = ", ".join(op_words(o) for o in OPS[field])
        raise BadValue("op", f"{field_words(field)} takes: {allowed} (not “{op_words(op)}”)")
    if field in TEXT_COLUMNS or field in ("tag", "found-text"):
        return _text(value, contains=op in ("contains", "not-contains"), tag=field == "tag")
    if field == "ext":
        return _choices(value, lambda v: v.lower().removeprefix("."), _EXT.match,
                        "an extension without the dot, like png")
    if field == "kind":
        return _choices(value, lambda v: v, lambda v: v in KINDS,
                        f"one of {', '.join(sorted(KINDS))}")
    if field == "orientation":
        return _choices(value, lambda v: v.lower(), lambda v: v in ORIENTATIONS,
                        f"one of {', '.join(sorted(ORIENTATIONS))}")
    if field == "duration":
        return _seconds(value)
    if field in NUMBER_COLUMNS:
        return _whole_number(value, *_NUMBER_RANGES[field])
    if field == "aspect-ratio":
        return _ratio(value)
    if field in ("added-at", "taken-at"):
        if op == "in-last-days":
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0 < value <= MAX_DAYS:
                raise BadValue("value", f"a number of days between 0 and {MAX_DAYS}")
            return value
        return _moment(value, local=field == "taken-at")
    if field == "folder":
        if not isinstance(value, str) or not _FOLDER_ID.match(value):
            raise BadValue("value", "a folder id (fld_...)")
        return value
    if field == "color":
        return _colour(value)
    if not isinstance(value, bool):  # untagged
        raise BadValue("value", "true or false")
    return value


def _text(value: Any, *, contains: bool, tag: bool) -> str:
    if not isinstance(value, str):
        raise BadValue("value", "must be text")
    if len(value) > (100 if tag else MAX_TEXT):
        raise BadValue("value", f"at most {100 if tag else MAX_TEXT} characters")
    if _CONTROL.search(value):
        raise BadValue("value", "must not contain control characters")
    if (contains or tag) and not value.strip():
        raise BadValue("value", "must not be empty")
    return value.strip() if tag else value


def _choices(value: Any, clean: Callable[[str], str], valid: Callable[[str], Any],
             what: str) -> str | list[str]:
    values = value if isinstance(value, list) else [value]
    if not values or len(values) > MAX_CHOICES:
        raise BadValue("value", f"one value or a list of 1 to {MAX_CHOICES}")
    cleaned = []
    for item in values:
        if not isinstance(item, str) or not valid(clean(item)):
            raise BadValue("value", f"{item!r} is not {what}")
        cleaned.append(clean(item))
    cleaned = list(dict.fromkeys(cleaned))
    return cleaned if isinstance(value, list) else cleaned[0]


def _whole_number(value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not value.is_integer()):
        raise BadValue("value", "must be a whole number")
    if not low <= value <= high:
        raise BadValue("value", f"must be between {low} and {high}")
    return int(value)


def _seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 0 <= value <= MAX_SECONDS:
        raise BadValue("value", f"seconds: a number between 0 and {MAX_SECONDS}")
    return round(float(value), 3)


def _ratio(value: Any) -> float:
    """1.5, 1, or "16:9" / "3x2" -> width / height (4 decimals)."""
    if isinstance(value, str) and (found := _RATIO_TEXT.match(value)):
        width, height = float(found.group(1)), float(found.group(2))
        value = width / height if height else 0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 100:
        raise BadValue("value", "width / height: a number between 0 and 100 (1.5) or a "
                       "ratio like 16:9")
    return round(float(value), 4)


def _moment(value: Any, *, local: bool) -> str:
    """An ISO date (`2026-05-01`) or date and time, canonical: UTC for added-at; for
    taken-at the wall-clock time as given (cameras record local time)."""
    if not isinstance(value, str) or len(value) > 40:
        raise BadValue("value", "an ISO date like 2026-05-01 or a date and time")
    try:
        if len(value) == 10:
            return date.fromisoformat(value).isoformat()
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise BadValue("value", "an ISO date like 2026-05-01 or a date and time") from None
    if local:
        return moment.replace(tzinfo=None, microsecond=0).isoformat()
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _colour(value: Any) -> dict[str, Any]:
    given = {"color": value} if isinstance(value, str) else value
    if not isinstance(given, dict) or not set(given) <= {"color", "tolerance", "minRatio"}:
        raise BadValue("value", 'a colour "#rrggbb" or {"color": "#rrggbb", "tolerance": '
                       '44, "minRatio": 0.3}')
    try:
        hex_value = colours.normal_hex(str(given.get("color", "")))
    except ValueError as problem:
        raise BadValue("value", str(problem)) from None
    tolerance = given.get("tolerance", DEFAULT_TOLERANCE)
    share = given.get("minRatio", DEFAULT_MIN_RATIO)
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) \
            or not 1 <= tolerance <= 100:
        raise BadValue("value", "tolerance: a delta E between 1 and 100")
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise BadValue("value", "minRatio: a share between 0 and 1")
    return {"color": hex_value, "tolerance": float(tolerance), "minRatio": float(share)}


# -- SQL -------------------------------------------------------------------------------
def _like(text: str) -> str:
    escaped = text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def sql(rule: Rule, now: datetime) -> tuple[str, list[Any]]:
    """The condition over `assets a` of a canonical rule, and its parameters."""
    field, op, value = rule.field, rule.op, rule.value
    negate = op in ("is-not", "not-contains")
    if field == "tag":
        contains = op in ("contains", "not-contains")
        test = "t.folded LIKE ? ESCAPE '\\'" if contains else "t.folded = ?"
        found = _TAGGED.format(test=test)
        return (f"NOT {found}" if negate else found), [
            _like(tagfold.fold(value)) if contains else tagfold.fold(value)]
    if field == "found-text":
        contains = op in ("contains", "not-contains")
        found = _FOUND if contains else _FOUND_IS
        return (f"NOT {found}" if negate else found), [
            _like(value) if contains else value.casefold()]
    if field in TEXT_COLUMNS:
        column = f"fold({TEXT_COLUMNS[field]})"
        if op in ("contains", "not-contains"):
            return f"{column} {'NOT ' if negate else ''}LIKE ? ESCAPE '\\'", [_like(value)]
        return f"{column} {'!=' if negate else '='} ?", [value.casefold()]
    if field in ("ext", "kind"):
        values = value if isinstance(value, list) else [value]
        column = "a.ext" if field == "ext" else "a.kind"
        return (f"{column} {'NOT ' if negate else ''}IN ({','.join('?' * len(values))})",
                list(values))
    if field == "orientation":
        values = value if isinstance(value, list) else [value]
        shapes = " OR ".join(f"({SHAPES[v]})" for v in values)
        test = f"(coalesce({_HAS_SIZE}, 0) AND ({shapes}))"
        return (f"NOT {test}" if negate else test), []
    if field in NUMBER_COLUMNS:
        column = NUMBER_COLUMNS[field]
        if op == "is-not":
            return f"({column} IS NULL OR {column} != ?)", [value]
        return f"{column} {({'is': '=', 'gte': '>=', 'lte': '<='})[op]} ?", [value]
    if field == "aspect-ratio":
        return _ratio_sql(op, value)
    if field in ("added-at", "taken-at"):
        return _date_sql(field, op, value, now)
    if field == "folder":
        if op == "within":
            return IN_TREE, [value]
        return (f"NOT {_IN_FOLDER}" if negate else _IN_FOLDER), [value]
    if field == "color":
        test, params = colour_sql(value)
        return (f"NOT {test}" if negate else test), params
    untagged = value != negate  # "is true" / "is-not false": no tags at all
    exists = "EXISTS (SELECT 1 FROM asset_tags x WHERE x.asset_id = a.id)"
    return (f"NOT {exists}" if untagged else exists), []


def _ratio_sql(op: str, value: float) -> tuple[str, list[Any]]:
    if op in ("is", "is-not"):
        test = f"(coalesce({_HAS_SIZE}, 0) AND abs({_RATIO} - ?) <= ?)"
        return (f"NOT {test}" if op == "is-not" else test), [value, value * RATIO_SLACK]
    return f"(coalesce({_HAS_SIZE}, 0) AND {_RATIO} {'>=' if op == 'gte' else '<='} ?)", \
        [value]


def _date_sql(field: str, op: str, value: Any, now: datetime) -> tuple[str, list[Any]]:
    column = "a.added_at" if field == "added-at" else "a.taken_at"
    local = field == "taken-at"
    if op == "in-last-days":
        if local:  # the camera's clock is local time: compare with this computer's
            since = (datetime.now() - timedelta(days=value)).replace(microsecond=0)
            return f"{column} >= ?", [since.isoformat()]
        return f"{column} >= ?", [from_datetime(now - timedelta(days=value))]
    if len(value) == 10:  # a whole day
        start = datetime.fromisoformat(value)
        bound = start if op == "before" else start + timedelta(days=1)
        text = bound.date().isoformat() if local else from_datetime(bound.replace(tzinfo=UTC))
        return f"{column} {'<' if op == 'before' else '>='} ?", [text]
    moment = value if local else from_datetime(datetime.fromisoformat(value))
    return f"{column} {'<' if op == 'before' else '>='} ?", [moment]


def colour_sql(value: dict[str, Any]) -> tuple[str, list[Any]]:
    """Assets whose palette colours within tolerance of the colour cover minRatio."""
    return colourmatch.having_sql(value)
