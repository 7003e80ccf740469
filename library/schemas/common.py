"""Building blocks shared by the command models: ids, names, pages, actors, batch results."""

import re
import unicodedata
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "Model", "AssetId", "FolderId", "CollectionId", "TagName", "EntityName", "Limit", "Cursor",
    "Actor", "ItemResult", "BatchOut", "Empty", "AssetKind", "Page", "DEFAULT_LIMIT",
    "MAX_LIMIT", "Timestamp", "ASSET_ID",
]

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


class Model(BaseModel):
    """Every command model. Its validator is built when first used (`defer_build`): both
    processes import all of them at start, and most commands are never called in a run."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid",
                              ser_json_timedelta="float", defer_build=True)


def _id_pattern(prefix: str) -> str:
    return rf"^{prefix}_[0-9a-z]{{8,40}}$"


ASSET_ID = re.compile(_id_pattern("ast"))
AssetId = Annotated[str, Field(pattern=_id_pattern("ast"), examples=["ast_01j9z3k4m5n6p7q8"])]
FolderId = Annotated[str, Field(pattern=_id_pattern("fld"), examples=["fld_01j9z3k4m5n6p7q8"])]
CollectionId = Annotated[str, Field(pattern=_id_pattern("col"),
                                    examples=["col_01j9z3k4m5n6p7q8"])]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _clean_name(value: str) -> str:
    value = unicodedata.normalize("NFC", value).strip()
    if not value:
        raise ValueError("must not be empty or only spaces")
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters")
    return value


EntityName = Annotated[str, Field(min_length=1, max_length=255), AfterValidator(_clean_name)]
TagName = Annotated[str, Field(min_length=1, max_length=100, examples=["reference"]),
                    AfterValidator(_clean_name)]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Page size.")]
Cursor = Annotated[str, Field(max_length=500, description="nextCursor of the last page.")]
Timestamp = datetime
AssetKind = Literal["image", "vector", "video", "audio", "document", "font", "model", "archive",
                    "other"]


class Empty(Model):
    """A command without arguments (besides `libraryId`)."""


class Actor(Model):
    """Audit label of whoever made a change: `"Claude Desktop via MCP"`, `"You"`."""

    source: Literal["ui", "mcp", "plugin", "cli", "system"]
    credential: str | None = None
    label: str
    # said only when known: their name in Settings → General, and (a studio library) the
    # Serpent that made the change
    person: str | None = Field(None, exclude_if=lambda v: v is None)
    machine: str | None = Field(None, exclude_if=lambda v: v is None)


class ItemResult(Model):
    """Per-item outcome of a batch command; a batch never fails all-or-nothing silently."""

    id: str
    status: Literal["changed", "unchanged", "not_found", "failed"]
    version: int | None = None
    error: str | None = None


class BatchOut(Model):
    items: list[ItemResult]
    changed: int


class Page(Model):
    next_cursor: str | None = None
    truncated: bool = False
