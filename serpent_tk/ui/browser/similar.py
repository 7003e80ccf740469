"""The "Similar to …" view: one image and those that look like it (`asset.find-similar`,
closest first), as full summaries for the grid (`asset.get`, 100 at a time).

Tk thread only (answers arrive through the UiBus). `SIMILAR_KEY` in a grid query marks this
view; `AssetPages` hands such a query here instead of to `asset.search`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.sidebar.sidebar import Scope

SIMILAR_KEY = "similarTo"
MAX_SIMILAR = 500        # one find-similar page: the closest 500 are plenty to look through
GET_BATCH = 100          # asset.get takes at most 100 ids


def similar_scope(asset_id: str, name: str) -> Scope:
    """The view of the images that look like `asset_id` (named `name`: its label, which
    `Scope.name` says as "Similar to “name”")."""
    return Scope(f"similar:{asset_id}", name, {SIMILAR_KEY: asset_id}, "similar", asset_id)


def why_not_compared(result: dict[str, Any]) -> str:
    """Why `asset.find-similar` compared nothing, in the window's words (the library's note
    is written for AI clients: it names commands to run)."""
    if str(result.get("note", "")).startswith("It is not an image"):  # i18n: not words
        return _("It is not an image, so it cannot be compared.")
    return _("It is not analysed yet, so it cannot be compared; it can be once its analysis "
             "is done.")


def load_similar(commands: Commands, library_id: str, asset_id: str,
                 done: Callable[[list[dict[str, Any]], str | None], None]) -> None:
    """Find what looks like `asset_id`; `done(items, note)` on the Tk thread with the asset
    itself first, then the similar ones closest first (note: why nothing was compared, or
    what failed)."""

    def found(reply: Reply) -> None:
        if not reply.ok:
            done([], describe_error(reply, _("look for similar images")))
            return
        ids = [asset_id] + [m["assetId"] for m in reply.result.get("items", [])]
        note = why_not_compared(reply.result) if reply.result.get("note") else None
        fetched: dict[str, dict[str, Any]] = {}
        batches = [ids[i:i + GET_BATCH] for i in range(0, len(ids), GET_BATCH)]
        waiting = [len(batches)]

        def got(reply: Reply) -> None:
            for item in reply.result.get("items", []) if reply.ok else []:
                if not item.get("trashed"):
                    fetched[item["id"]] = item
            waiting[0] -= 1
            if waiting[0] == 0:
                done([fetched[i] for i in ids if i in fetched], note)

        for batch in batches:
            commands.call("asset.get", {"libraryId": library_id, "assetIds": batch}, got)

    commands.call("asset.find-similar", {"libraryId": library_id, "assetId": asset_id,
                                         "limit": MAX_SIMILAR}, found)
