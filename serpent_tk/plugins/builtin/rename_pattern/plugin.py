"""`plugin.rename-pattern.apply`: rename the given assets by a pattern, as one undoable step.

Runs in the plugin's host process. The pattern is Python's format syntax over a fixed set of
fields (see `FIELDS`): `{folder}-{n:03}` → `Skies-001`, `{date:%Y%m%d}_{name}` →
`20250131_sunset`. With `dryRun` it only answers the planned names; otherwise it renames
through `asset.rename-batch` (with each asset's version, so a change made meanwhile refuses
the whole batch), which one Undo takes back.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from serpent_tk.plugins.api import Api, AssetId, Model, Plugin, PluginError, get_assets

plugin = Plugin()

FIELDS = {
    "name": "the asset's name now",
    "original": "the name of the file it was imported from (without extension)",
    "ext": "its file extension, without the dot (png)",
    "folder": "the name of its folder (\"Unfiled\" when in none)",
    "n": "its number in the order given, from start (format it: {n:03} → 001)",
    "date": "the day it was added (format it: {date:%Y%m%d} → 20250131; plain: 2025-01-31)",
    "rating": "its rating, 0-5",
    "kind": "image, video, audio, document, font, model, archive or other",
    "width": "its width in pixels (0 if unknown)",
    "height": "its height in pixels (0 if unknown)",
}
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]+")


class ApplyIn(Model):
    asset_ids: list[AssetId] = Field(min_length=1, max_length=1000, description="The assets "
                                     "to rename, in the order {n} counts them.")
    pattern: str = Field(min_length=1, max_length=255, description="The new name, with "
                         "fields in braces: " + "; ".join(f"{{{k}}} {v}" for k, v in
                                                          FIELDS.items()) + ".")
    start: int = Field(default=1, ge=0, le=1_000_000, description="The first {n}.")
    order: Literal["given", "name", "added"] = Field(default="given", description="How {n} "
                                                     "counts: in the order of assetIds, by "
                                                     "current name, or by date added.")
    dry_run: bool = Field(default=False, description="Only answer the planned names; "
                          "nothing is renamed.")


class PlannedName(Model):
    asset_id: str
    old_name: str
    new_name: str


class ApplyOut(Model):
    dry_run: bool
    renamed: int = Field(description="How many assets got a new name (0 for a dry run).")
    items: list[PlannedName]


@plugin.command(
    "apply", input=ApplyIn, output=ApplyOut, risk="normal", title="Rename by pattern",
    summary="Rename assets by a pattern such as {folder}-{n:03} (→ Skies-001, Skies-002, "
            "...) in one undoable step. Call it with dryRun true "
            "first to see the planned names.",
    returns="each asset's old and new name; renamed: how many changed.",
    example={"libraryId": "lib_01j9z3k4m5n6p7q8",
             "assetIds": ["ast_01j9z3k4m5n6p7q8", "ast_01j9z3k4m5n6p7q9"],
             "pattern": "{folder}-{n:03}", "dryRun": True})
def apply(api: Api, args: ApplyIn) -> ApplyOut:
    if len(set(args.asset_ids)) != len(args.asset_ids):
        raise PluginError("assetIds: name each asset once")
    assets = get_assets(api, args.asset_ids)
    folders = _folder_names(api) if "{folder" in args.pattern.replace(" ", "") else {}
    ordered = _ordered(assets, args.order)
    planned = []
    for number, asset in enumerate(ordered, start=args.start):
        values = _values(asset, number, folders)
        planned.append(PlannedName(asset_id=asset["id"], old_name=asset["name"],
                                   new_name=render(args.pattern, values)))
    changed = [p for p in planned if p.new_name != p.old_name]
    if args.dry_run or not changed:
        return ApplyOut(dry_run=args.dry_run, renamed=0, items=planned)
    versions = {asset["id"]: asset["version"] for asset in assets}
    api.call("asset.rename-batch", {"items": [
        {"assetId": p.asset_id, "name": p.new_name, "expectedVersion": versions[p.asset_id]}
        for p in changed]})
    return ApplyOut(dry_run=False, renamed=len(changed), items=planned)


def _folder_names(api: Api) -> dict[str, str]:
    """Every folder's name by id (`folder.list` answers the whole tree)."""
    return {folder["id"]: folder["name"] for folder in api.call("folder.list")["items"]}


def _ordered(assets: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    if order == "name":
        return sorted(assets, key=lambda a: (str(a["name"]).casefold(), a["id"]))
    if order == "added":
        return sorted(assets, key=lambda a: (a["addedAt"], a["id"]))
    return assets


def _values(asset: Mapping[str, Any], number: int, folders: Mapping[str, str]
            ) -> dict[str, Any]:
    folder_ids: Sequence[str] = asset.get("folderIds") or []
    original = str(asset.get("originalName") or asset["name"])
    return {
        "name": asset["name"], "original": original.rsplit(".", 1)[0] if "." in original
        else original, "ext": asset.get("ext", ""),
        "folder": folders.get(folder_ids[0], "") if folder_ids else "Unfiled",
        "n": number, "date": _Day(datetime.fromisoformat(str(asset["addedAt"]))),
        "rating": int(asset.get("rating") or 0), "kind": asset.get("kind", ""),
        "width": int(asset.get("width") or 0), "height": int(asset.get("height") or 0)}


class _Day:
    """A date that prints as 2025-01-31 and takes strftime formats: {date:%d.%m.%Y}."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __format__(self, spec: str) -> str:
        return self.moment.strftime(spec or "%Y-%m-%d")


class _Fields(string.Formatter):
    """`str.format` over the known fields only: no attributes, no indexes, no positions."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]
                  ) -> tuple[Any, str]:
        if field_name not in FIELDS:
            raise PluginError(f"pattern: {{{field_name}}} is not a field; use "
                              + ", ".join(f"{{{k}}}" for k in FIELDS))
        return kwargs[field_name], field_name


def render(pattern: str, values: Mapping[str, Any]) -> str:
    """The new name `pattern` gives an asset with these field values."""
    try:
        name = _Fields().vformat(pattern, (), values)
    except PluginError:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise PluginError(f"pattern: {error}") from None
    name = _UNSAFE.sub("-", name).strip()
    if not name:
        raise PluginError("pattern: it gives an empty name")
    if len(name) > 255:
        raise PluginError("pattern: it gives a name longer than 255 characters")
    return name
