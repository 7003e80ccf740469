"""Models of the tag commands."""

from typing import Annotated, Literal

from pydantic import Field

from library.schemas.common import DEFAULT_LIMIT, Cursor, Limit, Model, Page, TagName

__all__ = [
    "Tag", "TagListIn", "TagListOut", "TagRenameIn", "TagDeleteIn", "TagDeleteBatchIn",
    "TagMergeIn", "TagCooccurrenceIn", "TagCount", "TagCooccurrenceOut", "TagChangeOut",
]


class Tag(Model):
    name: str
    count: int = Field(description="Assets (not in the trash) carrying this tag.")
    version: int


class TagListIn(Model):
    prefix: Annotated[str, Field(max_length=100)] | None = Field(
        default=None, description="Only tags starting so (any case).")
    sort: Literal["name", "count"] = Field(default="name", description="count: most used "
                                           "first.")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class TagListOut(Page):
    items: list[Tag]
    total: int


class TagRenameIn(Model):
    """Rename a tag everywhere. Renaming onto an existing tag is refused: use tag.merge."""

    tag: TagName = Field(description="The tag.")
    new_name: TagName = Field(description="Its new name.")


class TagDeleteIn(Model):
    tag: TagName = Field(description="The tag.")


class TagDeleteBatchIn(Model):
    tags: Annotated[list[TagName], Field(min_length=1, max_length=500)] = Field(
        description="The tags.")


class TagMergeIn(Model):
    """Move every use of the source tags onto `target` (created if needed), then drop them."""

    sources: Annotated[list[TagName], Field(min_length=1, max_length=100)] = Field(
        description="Tags to merge away.")
    target: TagName = Field(description="The tag they become (created if needed).")


class TagChangeOut(Model):
    """What a tag command did; it never silently does nothing."""

    affected_assets: int = Field(description="Assets (trash included) whose tags changed.")
    tags: list[str] = Field(description="The tags acted on, as they were spelled.")
    target: str | None = Field(default=None, description="rename/merge: the resulting tag.")
    target_created: bool = Field(default=False, description="merge: the target was new.")
    not_found: list[str] = Field(default_factory=list,
                                 description="Requested tags that do not exist.")


class TagCooccurrenceIn(Model):
    tag: TagName = Field(description="The tag.")
    limit: Limit = 20


class TagCount(Model):
    name: str
    count: int


class TagCooccurrenceOut(Model):
    tag: str
    count: int = Field(default=0, description="Assets (not in the trash) carrying the tag.")
    items: list[TagCount] = Field(description="Other tags on those assets, most shared first.")
