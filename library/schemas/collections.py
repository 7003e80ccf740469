"""Models of collections: hand-picked, ordered sets, and smart ones defined by rules."""

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, WithJsonSchema

from library.schemas.common import (
    DEFAULT_LIMIT,
    AssetId,
    CollectionId,
    Cursor,
    EntityName,
    Limit,
    Model,
    Page,
)

__all__ = [
    "Rule", "RuleGroup", "RuleSet", "Collection", "CollectionListOut", "CollectionCreateIn",
    "CollectionUpdateIn", "CollectionReorderIn", "CollectionDeleteIn", "CollectionMembersIn",
    "CollectionRunRulesIn", "RuleField", "RuleOp", "CollectionDeleteOut", "Rules",
    "RulesLikeCreate", "RULES_SCHEMA",
]

RuleField = Literal["tag", "name", "notes", "ext", "kind", "rating", "width", "height", "size",
                    "added-at", "folder", "source-url", "untagged", "taken-at", "camera",
                    "lens", "orientation", "aspect-ratio", "color", "duration", "pages",
                    "found-text"]
RuleOp = Literal["is", "is-not", "contains", "not-contains", "gte", "lte", "before", "after",
                 "in-last-days", "within"]
MAX_DEPTH = 4  # a rule set, and groups in it, nested at most this deep (RuleGroup2..4)


class Rule(Model):
    """One condition: field, op and value (the fields and their operators: see the rule
    set)."""

    field: RuleField = Field(description="What to test.")
    op: RuleOp = Field(description="How; which ops a field takes: see the rule set.")
    value: Any = Field(description="A string, number, ISO date, boolean or colour, per field.")


def _rule_or_group(value: Any) -> str:
    if isinstance(value, dict):
        return "group" if "rules" in value else "rule"
    return "group" if isinstance(value, RuleGroup) else "rule"


class RuleGroup(Model):
    """Rules combined: all of them must match, or any one of them. A group may hold groups,
    nested at most 4 deep (the rule set itself is the first level), e.g. tag is sky AND
    (rating gte 4 OR color is #ff8800). Each level is its own model, so the JSON schema has
    no recursive reference (every MCP client can read it)."""

    match: Literal["all", "any"] = "all"
    rules: list[Any]


class RuleGroup4(RuleGroup):
    """A group at the fourth level: it holds rules only."""

    rules: Annotated[list[Rule], Field(min_length=1, max_length=50)]


class RuleGroup3(RuleGroup):
    """A group at the third level: rules, and groups of rules."""

    rules: Annotated[list[Annotated[Annotated[Rule, Tag("rule")]
                                    | Annotated[RuleGroup4, Tag("group")],
                                    Discriminator(_rule_or_group)]],
                     Field(min_length=1, max_length=50)]


class RuleGroup2(RuleGroup):
    """A group at the second level: rules, and groups of them (two more levels)."""

    rules: Annotated[list[Annotated[Annotated[Rule, Tag("rule")]
                                    | Annotated[RuleGroup3, Tag("group")],
                                    Discriminator(_rule_or_group)]],
                     Field(min_length=1, max_length=50)]


class RuleSet(RuleGroup):
    """The rules of a smart collection (or of a search): rules and any/all groups (nested
    at most 4 deep). Fields and the operators they take:
    tag, name, notes, source-url, camera, lens, found-text: is, is-not, contains,
    not-contains (text, any case; camera is make and model, e.g. "Canon EOS R5"; found-text
    is text an analyser found in the asset, e.g. the words in a picture);
    ext, kind: is, is-not (one value or a list: any of them);
    rating, width, height, size, pages: is, is-not, gte, lte (a whole number; size in bytes;
    width and height as the picture is displayed, EXIF orientation applied);
    duration: is, is-not, gte, lte (seconds of a video or sound);
    aspect-ratio: is (within 1 %), is-not, gte, lte (width / height as displayed: a number
    like 1.5 or "16:9");
    orientation: is, is-not (portrait, landscape, square, panoramic, or a list: any of
    them; square: sides within 5 % of each other; panoramic: one side at least twice the
    other; portrait and landscape: the rest);
    added-at, taken-at: before, after (ISO date, a whole day: UTC for added-at, the
    camera's local time for taken-at; or a date and time), in-last-days (a number);
    folder: is, is-not (a folder id: assets directly in it), within (in it or any of its
    subfolders); untagged: is, is-not (true or false);
    color: is, is-not. Value "#rrggbb", or {"color": "#rrggbb", "tolerance": 20,
    "minRatio": 0.05}: an asset has the colour when some colour of its palette covers at
    least minRatio of the picture (0-1, default 0.05) and lies within tolerance of it in
    CIELAB (CIE76 delta E, 1-100, default 20: about 2 is a just-noticeable difference,
    10 a clearly different shade, 30+ another colour)."""

    rules: Annotated[list[Annotated[Annotated[Rule, Tag("rule")]
                                    | Annotated[RuleGroup2, Tag("group")],
                                    Discriminator(_rule_or_group)]],
                     Field(min_length=1, max_length=50)]


# What a tool advertises for rules: pydantic's schema of the four levels inlines `Rule` at
# each of them (about 6 KB per tool), while a model reads the fields and operators once, in
# the description (RuleSet's docstring says the same at length). Validation still uses
# RuleSet (unknown fields and ops are refused there, naming the rule), and this schema
# accepts everything it does (no field takes a null value). Every property says what it is
# (a type, an enum, "not null"), so clients that lint schemas find nothing left open.
_MATCH = {"enum": ["all", "any"], "default": "all", "description": "all rules, or any."}
_RULE_OR_GROUP = {
    "type": "object",
    "properties": {
        "field": {"type": "string", "description":
                  "tag, name, notes, source-url, camera, lens, found-text: is, is-not, "
                  "contains, not-contains; ext, kind, orientation: is, is-not (or a list); "
                  "rating, width, height, size, "
                  "aspect-ratio, pages, duration (s): is, is-not, gte, lte; added-at, taken-at: "
                  "before, after (ISO date), in-last-days; folder: is, is-not, within; "
                  "untagged: is, is-not (true/false); color: is, is-not (\"#rrggbb\" or "
                  "{color, tolerance, minRatio})."},
        "op": {"type": "string", "description": "See field."},
        "value": {"not": {"type": "null"}, "description": "See field."},
        "match": {"enum": ["all", "any"], "description": "A group's."},
        "rules": {"type": "array", "description": "A group's rules."}},
}
RULES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"match": _MATCH,
                   "rules": {"type": "array", "items": _RULE_OR_GROUP, "description":
                             "Rules {field, op, value}, groups {match, rules}; 4 deep."}},
    "required": ["rules"],
}
Rules = Annotated[RuleSet, WithJsonSchema(RULES_SCHEMA)]
# Where the rules' full schema was shown already (collection.create), a pointer to it: each
# tool's schema costs an agent's context on every turn. Validation still uses RuleSet.
RulesLikeCreate = Annotated[RuleSet | None, WithJsonSchema({
    "type": "object", "description": "Smart rules, as collection.create takes them."})]


class Collection(Model):
    id: CollectionId
    name: str
    smart: bool
    rules: RuleSet | None = None
    asset_count: int
    position: int
    version: int


class CollectionListOut(Page):
    items: list[Collection]


class CollectionCreateIn(Model):
    """A normal collection (no rules) or a smart one (with rules)."""

    name: EntityName = Field(description="Its name (unique).")
    rules: Rules | None = Field(default=None, description="Smart: rules pick the assets.")


class CollectionUpdateIn(Model):
    collection_id: CollectionId = Field(description="The collection.")
    name: EntityName | None = Field(default=None, description="New name.")
    rules: RulesLikeCreate = None
    expected_version: int | None = Field(default=None, ge=1, description="Refuse unless at "
                                         "this version.")


class CollectionReorderIn(Model):
    """Set the sidebar order of collections (ids in the new order)."""

    collection_ids: Annotated[list[CollectionId], Field(min_length=1, max_length=1000)] = \
        Field(description="Collection ids in the new order.")


class CollectionDeleteIn(Model):
    collection_id: CollectionId = Field(description="The collection.")


class CollectionMembersIn(Model):
    """Add or remove assets of a normal (not smart) collection."""

    collection_id: CollectionId = Field(description="A hand-picked collection.")
    add: Annotated[list[AssetId], Field(max_length=1000)] = Field(
        default_factory=list, description="Assets to add, in order.")
    remove: Annotated[list[AssetId], Field(max_length=1000)] = Field(
        default_factory=list, description="Assets to take out.")


class CollectionRunRulesIn(Model):
    """Evaluate a smart collection's rules now (or ad-hoc `rules`) and page the matches."""

    collection_id: CollectionId | None = Field(default=None, description="A smart "
                                               "collection.")
    rules: RulesLikeCreate = None
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class CollectionDeleteOut(Model):
    deleted: CollectionId
