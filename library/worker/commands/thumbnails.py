"""`asset.thumbnail` and `asset.preview-status`: see an asset, and know whether you can.

Runs in the worker process. `asset.thumbnail` is a `derive` command (its own threads: image
work never delays a search) and writes only into `thumbs/` (see `thumbstore`). The result's
longest side is the smallest size bucket (64, 128, 192, 256, 384, 512, 768, 1024, 1568) at
or above `size`, or the image's own size when that is smaller; callers scale down further.
A picture, and an SVG, video, sound, font or PDF (drawn by `library.media`'s readers) has
a preview; a file with none to show (a .blend, a damaged or gigantic image) answers
UNSUPPORTED_FORMAT with `reason` not-an-image / damaged / too-large, never a made-up image:
the window draws its own type badge, and an agent learns plainly that there is nothing to
see. A record whose file is gone from the library answers NOT_FOUND with reason
file-missing. Trashed assets still have thumbnails (the trash view shows them). `thumbs/`
stays under a size cap, least recently used first (`thumbcap`, in the background).

With `assetIds` (up to 36) it answers the cells of a contact sheet instead: per asset its
number, name and thumbnail file (256 px), or why there is none (not_found, no_preview,
file_missing); the main process draws the sheet (`serpent_tk/mcp/tools/contact_sheet.py`).
The thumbnail files' paths are for the main process only, never for agents.

`asset.preview-status` (a plain read) answers per asset: `ready` (a thumbnail exists),
`queued` (the preview pool is making it: after an import), `pending` (not made yet:
asset.thumbnail makes it on request), `failed` (the file is missing, or decoding it
failed), `unsupported` (no decoder for this kind of file); with counts of each, over the
assets asked about or (without assetIds) the whole library, and the progress of the
background previews task. A thumbnail asked for while the pool is busy is made at once,
ahead of the pool's queue (`previews.PreviewPool.interactive`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

from library.errors import NOT_FOUND, UNSUPPORTED_FORMAT, LibraryError
from library.media import readers
from library.schemas import (
    AssetPreviewStatusIn,
    AssetPreviewStatusOut,
    AssetThumbnailIn,
    AssetThumbnailOut,
    PreviewCounts,
    PreviewProgress,
    PreviewStatus,
    SheetCell,
)
from library.worker.commands import background
from library.worker.context import ReadContext
from library.worker.files import imageformats, previews, thumbcap
from library.worker.files.thumbstore import NoThumbnail, store_for
from library.worker.rows.assetrows import chunks, marks


@background
def keep_thumbnails_capped(services: Any, stopping: threading.Event) -> Callable[[], None]:
    """Evicts least recently used thumbnails beyond the size cap (`thumbcap`), on its own
    thread for as long as the worker serves."""
    cap = thumbcap.ThumbCap(store_for(services.layout), thumbcap.max_bytes())
    cap.start()
    return cap.stop


SHEET_CELL_SIZE = 256  # a contact sheet's cells are drawn from thumbnails this big


@background
def preview_pool(services: Any, stopping: threading.Event) -> Callable[[], None]:
    """The preview pool starts with the first import; at close it stops (`previews`)."""
    return lambda: previews.stop(services)


def thumbnail(ctx: ReadContext, args: AssetThumbnailIn) -> AssetThumbnailOut:
    if args.asset_ids is not None:
        return _sheet_cells(ctx, list(dict.fromkeys(args.asset_ids)))
    assert args.asset_id is not None
    row = _asset_row(ctx, args.asset_id)
    if row is None:
        raise LibraryError(NOT_FOUND, "That asset does not exist.", field="assetId",
                           assetId=args.asset_id)
    try:
        thumb = _thumb(ctx, row, args.size)
    except FileNotFoundError:
        raise LibraryError(NOT_FOUND, "The asset's file is missing from the library folder.",
                           reason="file-missing", assetId=args.asset_id) from None
    except NoThumbnail as problem:
        raise LibraryError(UNSUPPORTED_FORMAT, problem.message, reason=problem.reason,
                           assetId=args.asset_id, kind=row["kind"], ext=row["ext"]) from None
    return AssetThumbnailOut(path=str(thumb.path), mime=thumb.mime, width=thumb.width,
                             height=thumb.height)


def _asset_row(ctx: ReadContext, asset_id: str) -> Any:
    return ctx.conn.execute("SELECT id, name, sha256, ext, kind, width, height, missing "
                            "FROM assets WHERE id = ?", (asset_id,)).fetchone()


def _thumb(ctx: ReadContext, row: Any, size: int) -> Any:
    store = store_for(ctx.layout)
    thumb = store.cached_for(row["sha256"], size, row["width"], row["height"])
    if thumb is None:  # made now, ahead of background work
        source = ctx.layout.file_for(row["sha256"], row["ext"])
        with previews.pool_for(ctx.services).interactive():
            thumb = store.get(source, row["sha256"], row["ext"], size, row["width"],
                              row["height"])
    return thumb


def _sheet_cells(ctx: ReadContext, asset_ids: list[str]) -> AssetThumbnailOut:
    """The cells of a contact sheet, numbered from 1 in the order asked: each with its
    thumbnail file, or why there is nothing to show. The main process draws the sheet."""
    cells = []
    for index, asset_id in enumerate(asset_ids, start=1):
        row = _asset_row(ctx, asset_id)
        if row is None:
            cells.append(SheetCell(index=index, asset_id=asset_id, status="not_found"))
            continue
        status: Literal["shown", "no_preview", "file_missing"]
        try:
            thumb = _thumb(ctx, row, SHEET_CELL_SIZE)
        except FileNotFoundError:
            status, path = "file_missing", None
        except NoThumbnail:
            status, path = "no_preview", None
        else:
            status, path = "shown", str(thumb.path)
        cells.append(SheetCell(index=index, asset_id=asset_id, name=row["name"],
                               status=status, path=path))
    return AssetThumbnailOut(items=cells)


def preview_status(ctx: ReadContext, args: AssetPreviewStatusIn) -> AssetPreviewStatusOut:
    store = store_for(ctx.layout)
    pool = previews.running_pool(ctx.layout.root)
    rows: dict[str, Any] = {}
    if args.asset_ids is None:  # the whole library, outside the trash
        ids = []
        for row in ctx.conn.execute("SELECT id, sha256, ext, format, missing FROM assets "
                                    "WHERE trashed = 0 ORDER BY sha256"):
            rows[row["id"]] = row
    else:
        ids = list(dict.fromkeys(args.asset_ids))
        for part in chunks(ids):
            for row in ctx.conn.execute(f"SELECT id, sha256, ext, format, missing FROM assets "
                                        f"WHERE id IN ({marks(len(part))})", part):
                rows[row["id"]] = row
    listings: dict[str, set[str]] = {}
    states: dict[str, PreviewStatus] = {}
    for asset_id, row in rows.items():
        names = listings.get(row["sha256"][:2])
        if names is None:
            names = listings[row["sha256"][:2]] = store.listing(row["sha256"][:2])
        states[asset_id] = _state(ctx, row, names, pool)
    counts = PreviewCounts()
    for state in states.values():
        setattr(counts, state, getattr(counts, state) + 1)
    run = pool.progress() if pool is not None else None
    making = None if run is None else PreviewProgress(task_id=run.task_id, done=run.done,
                                                     total=run.total, workers=previews.WORKERS)
    items = {} if args.asset_ids is None else {i: states[i] for i in ids if i in states}
    return AssetPreviewStatusOut(items=items, counts=counts, making=making,
                                 not_found=[i for i in ids if i not in rows])


def _state(ctx: ReadContext, row: Any, names: set[str],
           pool: previews.PreviewPool | None) -> PreviewStatus:
    store = store_for(ctx.layout)
    sha256 = row["sha256"]
    if row["missing"]:
        return "failed"
    if store.has_any(sha256, names):
        return "ready"
    if f"{sha256}.failed" in names and store.failure(sha256) is not None:
        return "failed"
    if pool is not None and pool.queued(row["id"]):
        return "queued"
    if not ctx.layout.file_for(sha256, row["ext"]).is_file():
        return "failed"  # gone, and recovery has not flagged it yet
    if _decodable(row["format"], row["ext"]):
        return "pending"
    return "unsupported"


def _decodable(fmt: str | None, ext: str) -> bool:
    if fmt is not None:
        return fmt not in imageformats.NEVER_OPENED
    return bool(ext) and (imageformats.decodable_ext(ext) or readers.reads(ext))
