"""Models of collections: hand-picked, ordered sets, and smart ones defined by rules."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

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
    """One condition. Ops by field: tag, name, notes, source-url: is, is-not, contains,
    not-contains; ext, kind: is, is-not (a value or a list); rating, width, height, size
    (bytes): is, is-not, gte, lte; added-at: before, after (ISO date), in-last-days; folder:
    is, is-not (folder id); untagged: is, is-not (true/false)."""

    field: RuleField = Field(description="What to test.")
    op: RuleOp = Field(description="How; which ops a field takes: see the rule.")
    value: Any = Field(description="A string, number, ISO date or boolean, per field.")


class RuleSet(Model):
    """Smart rules: which assets belong."""

    match: Literal["all", "any"] = Field(default="all", description="all rules, or any.")
    rules: Annotated[list[Rule], Field(min_length=1, max_length=50)] = Field(
        description="The conditions.")


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
    rules: RuleSet | None = Field(default=None, description="Smart: rules pick the assets.")


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
