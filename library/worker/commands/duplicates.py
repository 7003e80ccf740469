"""`asset.find-duplicates` (groups of near-identical images) and `asset.find-similar` (the
images that look like one asset).

Runs in the worker process (reads). Exact duplicates cannot exist in a library (content is
stored once; an import of the same bytes reports a duplicate instead), so `exact` always
finds nothing and says why. `similar` compares the signatures analysis recorded (two
perceptual hashes, mean colour, detail, shape: see `files.similarity` for the test and the
measurements behind its thresholds). Pairs join groups transitively. Each group names the
member that looks best to keep (most pixels, then the biggest file, then the oldest) and
lists every member with its size, dimensions and distance to that one, which is what a
review needs; trashing the others is one `asset.trash` (one undoable step). Groups are
ordered by their oldest asset; `cursor` is the offset of the next group.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from library.errors import INVALID_ARGUMENT, NOT_FOUND, LibraryError
from library.schemas import (
    DuplicateGroup,
    DuplicateMember,
    FindDuplicatesIn,
    FindDuplicatesOut,
    FindSimilarIn,
    FindSimilarOut,
)
from library.worker.context import ReadContext
from library.worker.files import similarity
from library.worker.files.analyser import ANALYSER

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_SIGNATURES = (
    "SELECT a.id, a.name, a.ext, a.width, a.height, a.size, a.added_at, x.phash, "
    "x.phash_centre, x.mean_l, x.mean_a, x.mean_b, x.detail, x.hashes FROM assets a "
    "JOIN asset_analysis x ON x.asset_id = a.id WHERE a.trashed = 0 AND x.status = 'done' "
    "AND x.analyser >= ? AND x.phash IS NOT NULL AND x.mean_l IS NOT NULL ORDER BY a.id")


def find_duplicates(ctx: ReadContext, args: FindDuplicatesIn) -> FindDuplicatesOut:
    conn = ctx.conn
    offset = _read_cursor(args.cursor) if args.cursor else 0
    not_analysed = _not_analysed(conn)
    if args.method == "exact":
        return FindDuplicatesOut(items=[], total=0, not_analysed=not_analysed, note=(
            "A library stores identical files only once (importing the same file again "
            "reports it as a duplicate), so there are no exact duplicates. Use method "
            "'similar' to find the same picture at another size or quality."))
    rows = conn.execute(_SIGNATURES, (ANALYSER,)).fetchall()
    sigs = similarity.Signatures([_signature(r) for r in rows])
    groups = [_group(rows, sigs, members) for members in
              similarity.groups(sigs, args.max_distance)]
    groups.sort(key=lambda g: g.asset_ids[0])
    page = groups[offset:offset + args.limit]
    more = offset + args.limit < len(groups)
    note = None
    if not_analysed:
        note = (f"{not_analysed} asset{'s are' if not_analysed != 1 else ' is'} not analysed "
                "yet and could not be compared. Serpent analyses every import by itself: ask "
                "again when that is done.")
    return FindDuplicatesOut(
        items=page, total=len(groups), analysed=len(rows), not_analysed=not_analysed,
        note=note, next_cursor=f"g{offset + args.limit}" if more else None)


def find_similar(ctx: ReadContext, args: FindSimilarIn) -> FindSimilarOut:
    conn = ctx.conn
    asset = conn.execute("SELECT kind FROM assets WHERE id = ?", (args.asset_id,)).fetchone()
    if asset is None:
        raise LibraryError(NOT_FOUND, "That asset does not exist.", field="assetId",
                           assetId=args.asset_id)
    rows = conn.execute(_SIGNATURES, (ANALYSER,)).fetchall()
    index = next((n for n, r in enumerate(rows) if r["id"] == args.asset_id), None)
    if index is None:
        note = ("It is not an image, so it cannot be compared." if asset["kind"] != "image"
                else "It is not analysed yet (or in the trash, or its picture cannot be "
                "decoded). Serpent analyses every import by itself: ask again when that is "
                "done.")
        return FindSimilarOut(asset_id=args.asset_id, items=[], total=0, note=note)
    sigs = similarity.Signatures([_signature(r) for r in rows])
    found = similarity.nearest(sigs, index, args.max_distance)
    return FindSimilarOut(asset_id=args.asset_id, total=len(found), items=[
        _member(rows[j], distance, colour) for j, distance, colour in found[:args.limit]])


def _not_analysed(conn: sqlite3.Connection) -> int:
    return int(conn.execute(
        "SELECT count(*) FROM assets a LEFT JOIN asset_analysis x ON x.asset_id = a.id "
        "WHERE a.trashed = 0 AND (x.asset_id IS NULL OR x.analyser < ?)",
        (ANALYSER,)).fetchone()[0])


def _signature(row: sqlite3.Row) -> similarity.Signature:
    return similarity.Signature(
        row["id"], similarity.to_unsigned(row["phash"]),
        similarity.to_unsigned(row["phash_centre"] if row["phash_centre"] is not None
                               else row["phash"]),
        (row["mean_l"], row["mean_a"], row["mean_b"]), row["detail"] or 0.0,
        similarity.aspect_of(row["width"], row["height"]), *_extra(row["hashes"]),
        (row["width"] or 0) * (row["height"] or 0))


def _extra(blob: bytes | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The turned and window hashes analysis kept (none for an older analysis)."""
    hashes = similarity.unpack(blob)
    return hashes[:similarity.TURNS], hashes[similarity.TURNS:]


def _group(rows: list[sqlite3.Row], sigs: similarity.Signatures,
           members: list[int]) -> DuplicateGroup:
    keep = max(members, key=lambda i: _keep_rank(rows[i]))
    others = [i for i in members if i != keep]
    distances: list[int] = []
    colours: list[float] = []
    if others:
        _similar, found, colour = sigs.compare(keep, _indices(others))
        distances, colours = [int(d) for d in found], [float(c) for c in colour]
    ordered = [_member(rows[keep], 0, 0.0)] + [
        _member(rows[i], d, c) for i, d, c in zip(others, distances, colours, strict=True)]
    row = rows[keep]
    pixels = (row["width"] or 0) * (row["height"] or 0)
    reason = (f"the largest picture ({row['width']} x {row['height']})"
              if pixels > min((rows[i]["width"] or 0) * (rows[i]["height"] or 0)
                              for i in members)
              else "the largest file" if row["size"] > min(rows[i]["size"] for i in members)
              else "the oldest")
    return DuplicateGroup(asset_ids=sorted(rows[i]["id"] for i in members),
                          reason="similar-image", keep=row["id"], keep_reason=reason,
                          distance=max((m.distance for m in ordered), default=0),
                          members=ordered)


def _keep_rank(row: sqlite3.Row) -> tuple[Any, ...]:
    """Larger is better: more pixels, a bigger file (less compression), older (a smaller
    id: ids sort by creation)."""
    return ((row["width"] or 0) * (row["height"] or 0), row["size"],
            tuple(-ord(ch) for ch in row["id"]))


def _indices(values: list[int]) -> NDArray[np.intp]:
    import numpy as np  # when asked: a worker's start does without numpy

    return np.array(values, dtype=np.intp)


def _member(row: sqlite3.Row, distance: int, colour: float) -> DuplicateMember:
    return DuplicateMember(asset_id=row["id"], name=row["name"], ext=row["ext"],
                           width=row["width"], height=row["height"], size=row["size"],
                           added_at=row["added_at"], distance=distance,
                           color_distance=round(colour, 2))


def _read_cursor(cursor: str) -> int:
    if not (cursor.startswith("g") and cursor[1:].isdigit()):
        raise LibraryError(INVALID_ARGUMENT, "cursor: not a cursor from asset.find-duplicates",
                           field="cursor")
    return int(cursor[1:])
