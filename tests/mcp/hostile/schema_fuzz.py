"""Hypothesis strategies built from a tool's `inputSchema` (as tools/list returns it): valid,
borderline and hostile arguments.

Test helper (no pytest fixtures here). Every JSON-schema keyword our tools use is followed
(`type`, `properties`, `required`, `additionalProperties`, `items`, `minItems`/`maxItems`,
`minLength`/`maxLength`, `minimum`/`maximum`, `enum`, `const`, `anyOf`, `pattern`, `format`),
so a value is valid, one step over a bound, or of the wrong type altogether. Fields are also
known by name: ids come from a pool of real ids of the library under test (so calls get past
"not found" into the code behind), paths from a pool of path tricks and special files, and
idempotency keys from a tiny pool so that keys collide with other arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

HUGE = 100_000  # characters: big, yet far below the 2 MiB body limit even when escaped
HOSTILE_TEXT = ["", " ", "\x00", "a\x00b", "\n", "\r\n", "\x1b[2J\x1b[31m", "\u202e\u2028",
                "..", "../../..", "%00", "${HOME}", "$(id)", "'; DROP TABLE assets; --",
                "<script>alert(1)</script>", "🐍" * 40, "CON", "nul.txt",
                "x" * 300, "\t" * 64]


@dataclass
class Pools:
    """Values that mean something to the library under test, by field name."""

    library_ids: list[str]
    asset_ids: list[str] = field(default_factory=list)
    folder_ids: list[str] = field(default_factory=list)
    collection_ids: list[str] = field(default_factory=list)
    tag_names: list[str] = field(default_factory=list)
    task_ids: list[str] = field(default_factory=list)
    linked_folder_ids: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def for_name(self, name: str | None) -> list[Any] | None:
        if not name:
            return None
        lowered = name.lower()
        table: list[tuple[tuple[str, ...], list[Any]]] = [
            (("libraryid",), self.library_ids),
            (("assetid", "assetids"), self.asset_ids),
            (("folderid", "folderids", "parentid"), self.folder_ids),
            (("collectionid", "collectionids"), self.collection_ids),
            (("taskid",), self.task_ids),
            (("linkedfolderid",), self.linked_folder_ids),
            (("tag", "tags", "sources", "target", "newname"), self.tag_names),
            (("idempotencykey",), ["key-1", "key-2"]),
        ]
        for names, pool in table:
            if lowered in names and pool:
                return pool
        if "path" in lowered and self.paths:
            return self.paths
        return None


def any_json(depth: int = 2) -> st.SearchStrategy[Any]:
    """A value of any JSON type (the wrong type, for most fields)."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                        st.floats(allow_nan=False, allow_infinity=False),
                        st.sampled_from(HOSTILE_TEXT), st.text(max_size=20))
    if depth <= 0:
        return scalars
    return st.one_of(scalars, st.lists(any_json(depth - 1), max_size=3),
                     st.dictionaries(st.text(max_size=8), any_json(depth - 1), max_size=3))


def for_schema(schema: Any, pools: Pools, name: str | None = None,
               hostile: bool = True) -> st.SearchStrategy[Any]:
    """Arguments for `schema`: mostly valid, some borderline, some hostile (`hostile`)."""
    if not isinstance(schema, dict):
        return any_json()
    valid = _valid(schema, pools, name)
    if not hostile:
        return valid
    return st.one_of(valid, valid, valid, _borderline(schema, pools, name), any_json(),
                     st.sampled_from(HOSTILE_TEXT))


MODES = ["valid"] * 5 + ["one-off"] * 3 + ["wild"] * 2
IDS = {"libraryid", "assetid", "assetids", "folderid", "folderids", "parentid", "collectionid",
       "collectionids", "taskid", "linkedfolderid"}
RARE = {"cursor", "confirmChallenge", "expectedVersion", "offset"}  # mostly left out


def tool_arguments(schema: dict[str, Any], pools: Pools) -> st.SearchStrategy[dict[str, Any]]:
    """A whole `arguments` object for one tool. Half the calls are valid (ids and paths from
    the pools, which hold path tricks of their own), three in ten have exactly one field
    borderline, hostile, missing or unknown, two in ten are hostile throughout."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        mode = draw(st.sampled_from(MODES))
        arguments: dict[str, Any] = {}
        for key, sub in properties.items():
            wanted = draw(st.integers(0, 9)) == 0 if key in RARE else draw(st.booleans())
            if key in required or wanted:
                arguments[key] = draw(for_schema(sub, pools, key, hostile=mode == "wild"))
        if mode == "one-off" and properties:
            # the one odd field is seldom the library: past it, there is more code to reach
            others = sorted(k for k in properties if k != "libraryId") or sorted(properties)
            key = draw(st.sampled_from(others))
            action = draw(st.sampled_from(["borderline", "borderline", "wrong", "drop",
                                           "unknown"]))
            if action == "borderline":
                arguments[key] = draw(_borderline(properties[key], pools, key))
            elif action == "wrong":
                arguments[key] = draw(st.one_of(any_json(), st.sampled_from(HOSTILE_TEXT)))
            elif action == "drop":
                arguments.pop(key, None)
            else:
                arguments[draw(st.sampled_from(["unknown", "__proto__", "libraryid", "",
                                                "\x00"]))] = draw(any_json(1))
        return arguments

    return build()


# -- valid values ---------------------------------------------------------------------------

def _valid(schema: dict[str, Any], pools: Pools, name: str | None) -> st.SearchStrategy[Any]:
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of(*(_valid(option, pools, name) for option in schema[key]
                               if isinstance(option, dict)))
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of(*(_valid({**schema, "type": k}, pools, name) for k in kind))
    pool = pools.for_name(name)
    if kind == "string":
        text = _text(schema)
        if not pool:
            return text
        known = st.sampled_from(pool)
        if name and name.lower() in IDS:  # a valid id is a known one (hostile ones: elsewhere)
            return known
        if name == "idempotencyKey":  # now and then the same key again, mostly a fresh one
            return st.one_of(known, st.uuids().map(str), st.uuids().map(str))
        return st.one_of(known, known, known, known, text)
    if kind == "integer":
        return st.integers(int(schema.get("minimum", -1000)),
                           int(schema.get("maximum", max(int(schema.get("minimum", 0)), 0)
                                          + 1000)))
    if kind == "number":
        return st.floats(float(schema.get("minimum", -1e6)), float(schema.get("maximum", 1e6)))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = schema.get("items", {})
        low = int(schema.get("minItems", 0))
        high = min(int(schema.get("maxItems", low + 4)), low + 4)
        element = for_schema(items, pools, name, hostile=False)
        return st.lists(element, min_size=low, max_size=max(high, low))
    if kind == "object" or "properties" in schema:
        return tool_arguments(schema, pools)
    return any_json()


def _text(schema: dict[str, Any]) -> st.SearchStrategy[str]:
    low = int(schema.get("minLength", 0))
    high = min(int(schema.get("maxLength", 40)), low + 40)
    if schema.get("format") == "date-time":
        return st.sampled_from(["2026-01-01T00:00:00Z", "2026-12-31T23:59:59+02:00",
                                "1970-01-01T00:00:00Z", "2026-02-30T00:00:00Z"])
    if "pattern" in schema:
        try:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda s: low <= len(s) <= max(high, low))
        except Exception:  # a pattern Python's re does not read: plain text will do
            pass
    return st.text(min_size=low, max_size=max(high, low))


# -- borderline and hostile values --------------------------------------------------------------

def _borderline(schema: dict[str, Any], pools: Pools,
                name: str | None) -> st.SearchStrategy[Any]:
    kind = schema.get("type")
    options: list[st.SearchStrategy[Any]] = [st.none()]
    if kind == "string" or "maxLength" in schema:
        top = int(schema.get("maxLength", 200))
        options += [st.just("x" * top), st.just("é" * (top + 1)), st.just("\x00" * 3),
                    st.just("a" * HUGE), st.just("\n".join(["line"] * 50))]
        if int(schema.get("minLength", 0)) > 0:
            options.append(st.just("x" * (int(schema["minLength"]) - 1)))
    if kind in ("integer", "number"):
        for bound, step in (("minimum", -1), ("maximum", 1)):
            if bound in schema:
                options.append(st.just(schema[bound] + step))
        options += [st.just(2**63), st.just(-(2**63)), st.just(1e308), st.just(0.5),
                    st.just(True), st.just("1")]
    if kind == "array":
        items = schema.get("items", {})
        top = int(schema.get("maxItems", 50))
        sample = for_schema(items, pools, name, hostile=False)
        options += [sample.map(lambda value: [value] * (top + 1)),  # one item too many
                    st.just([]), st.lists(any_json(1), min_size=1, max_size=3)]
    return st.one_of(*options)
