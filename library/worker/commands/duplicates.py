"""`asset.find-duplicates`: groups of visually near-identical images, by perceptual hash.

Runs in the worker process (a read). Exact duplicates cannot exist in a library (content is
stored once; an import of the same bytes reports a duplicate instead), so `exact` always
finds nothing and says why. `similar` compares the 64-bit perceptual hashes analysis
recorded (Hydrus-style: distance 0 ≈ the same image resized or re-encoded, 4 ≈ small edits).
Candidate pairs come from a multi-index: split into `max_distance + 1` blocks, two hashes
within that distance agree on at least one whole block (pigeonhole), so only hashes that
share a block are compared. Pairs join groups transitively (union-find). Groups are ordered
by their oldest asset; `cursor` is the offset of the next group.
"""

from __future__ import annotations

from collections import defaultdict

from library.errors import INVALID_ARGUMENT, LibraryError
from library.schemas import DuplicateGroup, FindDuplicatesIn, FindDuplicatesOut
from library.worker.commands import handles
from library.worker.context import ReadContext
from library.worker.files.analyser import ANALYSER
from library.worker.files.phash import distance, to_unsigned

BITS = 64


@handles("asset.find-duplicates")
def find_duplicates(ctx: ReadContext, args: FindDuplicatesIn) -> FindDuplicatesOut:
    conn = ctx.conn
    offset = _read_cursor(args.cursor) if args.cursor else 0
    not_analysed = conn.execute(
        "SELECT count(*) FROM assets a LEFT JOIN asset_analysis x ON x.asset_id = a.id "
        "WHERE a.trashed = 0 AND (x.asset_id IS NULL OR x.analyser < ?)",
        (ANALYSER,)).fetchone()[0]
    if args.method == "exact":
        return FindDuplicatesOut(items=[], total=0, not_analysed=not_analysed, note=(
            "A library stores identical files only once (importing the same file again "
            "reports it as a duplicate), so there are no exact duplicates. Use method "
            "'similar' to find the same picture at another size or quality."))
    hashes = [(row[0], to_unsigned(row[1])) for row in conn.execute(
        "SELECT a.id, x.phash FROM assets a JOIN asset_analysis x ON x.asset_id = a.id "
        "WHERE a.trashed = 0 AND x.status = 'done' AND x.phash IS NOT NULL ORDER BY a.id")]
    groups = similar_groups(hashes, args.max_distance)
    page = groups[offset:offset + args.limit]
    more = offset + args.limit < len(groups)
    note = None
    if not_analysed:
        note = (f"{not_analysed} asset{'s are' if not_analysed != 1 else ' is'} not analysed "
                "yet and could not be compared; run analysis.run (without assetIds) and ask "
                "again when its task is done.")
    return FindDuplicatesOut(
        items=page, total=len(groups), analysed=len(hashes), not_analysed=not_analysed,
        note=note, next_cursor=f"g{offset + args.limit}" if more else None)


def similar_groups(hashes: list[tuple[str, int]], max_distance: int) -> list[DuplicateGroup]:
    """Groups (2+ members) of ids whose hashes chain together within `max_distance`."""
    parent = list(range(len(hashes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for block in _blocks(max_distance):
        buckets: dict[int, list[int]] = defaultdict(list)
        for index, (_asset_id, value) in enumerate(hashes):
            buckets[(value >> block[0]) & block[1]].append(index)
        for members in buckets.values():
            for position, i in enumerate(members):
                for j in members[position + 1:]:
                    if root(i) != root(j) and distance(hashes[i][1], hashes[j][1]) \
                            <= max_distance:
                        parent[root(j)] = root(i)
    by_root: dict[int, list[int]] = defaultdict(list)
    for index in range(len(hashes)):
        by_root[root(index)].append(index)
    groups = []
    for members in by_root.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda i: hashes[i][0])
        first = hashes[members[0]][1]
        groups.append(DuplicateGroup(
            asset_ids=[hashes[i][0] for i in members], reason="similar-image",
            distance=max(distance(first, hashes[i][1]) for i in members)))
    groups.sort(key=lambda g: g.asset_ids[0])
    return groups


def _blocks(max_distance: int) -> list[tuple[int, int]]:
    """(shift, mask) of `max_distance + 1` blocks that together cover the 64 bits."""
    count = max_distance + 1
    edges = [round(BITS * n / count) for n in range(count + 1)]
    return [(low, (1 << (high - low)) - 1) for low, high in zip(edges, edges[1:], strict=False)]


def _read_cursor(cursor: str) -> int:
    if not (cursor.startswith("g") and cursor[1:].isdigit()):
        raise LibraryError(INVALID_ARGUMENT, "cursor: not a cursor from asset.find-duplicates",
                           field="cursor")
    return int(cursor[1:])
