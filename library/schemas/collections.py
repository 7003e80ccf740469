"""Models of collections: hand-picked, ordered sets, and smart ones defined by rules."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

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
    "Rule", "RuleSet", "Collection", "CollectionListOut", "CollectionCreateIn",
    "CollectionUpdateIn", "CollectionReorderIn", "CollectionDeleteIn", "CollectionMembersIn",
    "CollectionRunRulesIn", "RuleField", "RuleOp", "CollectionDeleteOut",
]

RuleField = Literal["tag", "name", "notes", "ext", "kind", "rating", "width", "height", "size",
                    "added-at", "folder", "source-url", "untagged"]
RuleOp = Literal["is", "is-not", "contains", "not-contains", "gte", "lte", "before", "after",
                 "in-last-days"]


class Rule(Model):
    """One condition of a smart collection. Fields and the operators they take:
    tag, name, notes, source-url: is, is-not, contains, not-contains (text, any case);
    ext, kind: is, is-not (one value or a list: any of them);
    rating, width, height, size: is, is-not, gte, lte (a whole number; size in bytes);
    added-at: before, after (ISO date, a whole UTC day, or date and time), in-last-days
    (a number); folder: is, is-not (a folder id); untagged: is, is-not (true or false)."""

    field: RuleField
    op: RuleOp
    value: Any = Field(description="A string, number, ISO date or boolean, per field.")


class RuleSet(Model):
    match: Literal["all", "any"] = "all"
    rules: Annotated[list[Rule], Field(min_length=1, max_length=50)]


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

    name: EntityName
    rules: RuleSet | None = None


class CollectionUpdateIn(Model):
    collection_id: CollectionId
    name: EntityName | None = None
    rules: RuleSet | None = None
    expected_version: int | None = Field(default=None, ge=1)


class CollectionReorderIn(Model):
    """Set the sidebar order of collections (ids in the new order)."""

    collection_ids: Annotated[list[CollectionId], Field(min_length=1, max_length=1000)]


class CollectionDeleteIn(Model):
    collection_id: CollectionId


class CollectionMembersIn(Model):
    """Add or remove assets of a normal (not smart) collection."""

    collection_id: CollectionId
    add: Annotated[list[AssetId], Field(max_length=1000)] = Field(default_factory=list)
    remove: Annotated[list[AssetId], Field(max_length=1000)] = Field(default_factory=list)


class CollectionRunRulesIn(Model):
    """Evaluate a smart collection's rules now (or ad-hoc `rules`) and page the matches."""

    collection_id: CollectionId | None = None
    rules: RuleSet | None = None
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class CollectionDeleteOut(Model):
    deleted: CollectionId
