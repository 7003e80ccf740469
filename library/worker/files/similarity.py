"""Which images look alike: each picture's signature, and comparing signatures (numpy).

Runs in the worker process (pure functions, any thread). A signature is two 64-bit
perceptual hashes of the picture's luminance (`phash`: ImageHash's pHash of the whole
picture and of its central 94 %, so a few percent cropped off the edges still lines up), the
hashes of the picture turned and mirrored (the seven other orientations, from the same DCT:
`phash.turned`), the hashes of 27 windows of it (80, 85 and 90 % of each side, at nine
places: a crop of 10-20 % lines up with one of the larger picture's), the picture's mean
colour in CIELAB, how much detail it has, its aspect ratio and size. Two images are similar
when
  - their mean colours are within `COLOUR_TOLERANCE` (delta E): the hash sees no colour,
    so a red and a blue version of a picture differ here, while +12 % brightness does not
    (measured: at most 8.7 on the planted set, different flat colours at least 18.7), and
  - their hashes are within `max_distance` bits, the closest of: the four whole/centre
    pairings and the picture mirrored or turned upside down (when their shapes agree: aspect
    ratios within 10 %), the picture turned a quarter (when one's shape is the other's on
    its side), and one's whole picture against the other's windows (shapes agreeing: a crop
    keeps it); default 10: the planted set's resized, re-encoded and brightened copies are
    within 2, crops of 3 % within 8-10, unrelated pictures rarely under 16;
  - a picture with almost no detail (a flat colour) has a meaningless hash: two of those
    are similar only when their colours are within `FLAT_TOLERANCE`, and never similar to
    a detailed picture.
Signatures analysed before the turned and window hashes existed (no `turns`) compare as
before. Measured on the planted set (`tests/library/planted.py`: 30 groups of half size,
JPEG q30, +12 % brightness, 3 % crop, quarter turn, half turn, mirror, 15 % and 20 % crop
copies; 24 flat colours; 56 near-flat decoys; `bench/bench_import_previews.py` prints it):
recall 0.99+ (turns and mirrors 30 of 30, 15 % crops 30, 20 % crops 29), precision 1.00,
no flat colours grouped; before the turns and windows: turns and mirrors 0, 15 % crops 5,
20 % crops 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where arrays are made: every worker imports this
    import numpy as np  # module, few compare pictures, and numpy costs ~60 ms of a start
    from numpy.typing import NDArray

DEFAULT_MAX_DISTANCE = 10
COLOUR_TOLERANCE = 12.0
FLAT_DETAIL = 2.0  # grey standard deviation (0-255) of the 32 x 32 picture below this: flat
FLAT_TOLERANCE = 5.0
ASPECT_SLACK = math.log(1.10)
CHUNK = 32  # rows compared at once: memory stays at a few MB per 100,000
MASK64 = 0xFFFF_FFFF_FFFF_FFFF
TURNS = 7  # the orientations besides the picture's own (`phash.ORIENTATIONS[1:]`)
UPRIGHT_TURNS = (0, 1, 2)  # mirrored, upside down, turned half: the shape stays
SIDEWAYS_TURNS = (3, 4, 5, 6)  # a quarter turn (with or without a mirror): the shape swaps
WINDOWS = 27
FAR = 255  # a distance no threshold accepts


@dataclass(frozen=True)
class Signature:
    asset_id: str
    phash: int  # unsigned 64-bit
    centre: int
    lab: tuple[float, float, float]
    detail: float
    aspect: float  # log(width / height) as displayed; 0 when unknown
    turns: tuple[int, ...] = ()  # TURNS unsigned hashes; () when analysed before them
    windows: tuple[int, ...] = ()  # WINDOWS unsigned hashes
    pixels: int = 0  # width x height as displayed (the larger one's windows are compared)


def to_signed(value: int) -> int:
    """An unsigned 64-bit hash as the signed integer SQLite stores."""
    return value - (1 << 64) if value >= 1 << 63 else value


def to_unsigned(value: int) -> int:
    return value & MASK64


def aspect_of(width: int | None, height: int | None) -> float:
    return math.log(width / height) if width and height else 0.0


def pack(hashes: list[int]) -> bytes:
    """Unsigned 64-bit hashes as the blob analysis stores (little-endian)."""
    return b"".join(value.to_bytes(8, "little") for value in hashes)


def unpack(blob: bytes | None) -> tuple[int, ...]:
    if not blob:
        return ()
    return tuple(int.from_bytes(blob[n:n + 8], "little") for n in range(0, len(blob), 8))


class Signatures:
    """Many signatures as arrays, for comparing them all at once."""

    def __init__(self, items: list[Signature]) -> None:
        import numpy as np

        self.items = items
        self.phash = np.array([s.phash for s in items], dtype=np.uint64)
        self.centre = np.array([s.centre for s in items], dtype=np.uint64)
        self.lab = np.array([s.lab for s in items], dtype=np.float32).reshape(-1, 3)
        self.lightness = np.ascontiguousarray(self.lab[:, 0])
        self.a = np.ascontiguousarray(self.lab[:, 1])
        self.b = np.ascontiguousarray(self.lab[:, 2])
        self.flat = np.array([s.detail < FLAT_DETAIL for s in items], dtype=bool)
        self.aspect = np.array([s.aspect for s in items], dtype=np.float32)
        self.pixels = np.array([s.pixels for s in items], dtype=np.int64)
        complete = [len(s.turns) == TURNS and len(s.windows) == WINDOWS for s in items]
        self.complete = np.array(complete, dtype=bool)
        self.turns = np.array([s.turns if ok else (0,) * TURNS
                               for s, ok in zip(items, complete, strict=True)],
                              dtype=np.uint64).reshape(-1, TURNS)
        self.windows = np.array([s.windows if ok else (0,) * WINDOWS
                                 for s, ok in zip(items, complete, strict=True)],
                                dtype=np.uint64).reshape(-1, WINDOWS)

    def __len__(self) -> int:
        return len(self.items)

    def colour(self, i: int | NDArray[np.intp], j: NDArray[np.intp]) -> NDArray[np.float32]:
        """Delta E between the mean colours of pairs (i, j) (broadcast)."""
        import numpy as np

        distance: NDArray[np.float32] = np.sqrt(
            (self.lightness[i] - self.lightness[j]) ** 2 + (self.a[i] - self.a[j]) ** 2
            + (self.b[i] - self.b[j]) ** 2)
        return distance

    def compare(self, i: int | NDArray[np.intp], j: NDArray[np.intp],
                limit: int | None = None
                ) -> tuple[NDArray[np.bool_], NDArray[np.uint8], NDArray[np.float32]]:
        """For pairs (i, j) (1-D, or one i against many j): similar (its distance still to
        be held against a threshold)?, hash distance, colour distance. A pair whose shapes
        allow no comparison is not similar; its distance is then that of the plain hashes
        (for reports). `limit`: only whether a distance is within it matters (a pair whose
        plain hashes are that close is not compared turned or in windows)."""
        import numpy as np

        i, j = np.broadcast_arrays(np.asarray(i, dtype=np.intp), np.asarray(j, dtype=np.intp))
        colour = self.colour(i, j)
        flat_i, flat_j = self.flat[i], self.flat[j]
        both_flat = flat_i & flat_j
        detailed = ~flat_i & ~flat_j
        similar = (both_flat & (colour <= FLAT_TOLERANCE)) | (detailed &
                                                              (colour <= COLOUR_TOLERANCE))
        distance = np.zeros(len(colour), dtype=np.uint8)
        pick = np.nonzero(detailed)[0]
        if len(pick):
            found, allowed = self._distance(i[pick], j[pick], limit)
            distance[pick] = found
            similar[pick] &= allowed
        return similar, distance, colour

    def _distance(self, i: NDArray[np.intp], j: NDArray[np.intp], limit: int | None
                  ) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
        """The closest hash distance of detailed pairs (see the module text), and whether
        their shapes allowed any comparison. The turned and window hashes are compared only
        for the pairs that can use them (and, with `limit`, are not close enough already)."""
        import numpy as np

        upright = np.abs(self.aspect[i] - self.aspect[j]) <= ASPECT_SLACK
        sideways = np.abs(self.aspect[i] + self.aspect[j]) <= ASPECT_SLACK
        near = _hamming(self.phash[i], self.phash[j])
        for one, other in ((self.phash, self.centre), (self.centre, self.phash),
                           (self.centre, self.centre)):
            near = np.minimum(near, _hamming(one[i], other[j]))
        full = self.complete[i] & self.complete[j]
        best = np.where(upright, near, FAR).astype(np.uint8)
        more = upright & full & ((near > limit) if limit is not None else True)
        k = np.nonzero(more)[0]
        if len(k):
            a, b = i[k], j[k]
            larger = self.pixels[a] >= self.pixels[b]  # a crop is the smaller picture
            whole, cut = np.where(larger, b, a), np.where(larger, a, b)
            best[k] = np.minimum.reduce([
                best[k], _hamming(self.turns[a][:, UPRIGHT_TURNS], self.phash[b][:, None]
                                  ).min(axis=1),
                _hamming(self.windows[cut], self.phash[whole][:, None]).min(axis=1)])
        k = np.nonzero(sideways & full)[0]
        if len(k):
            a, b = i[k], j[k]
            turned = _hamming(self.turns[a][:, SIDEWAYS_TURNS], self.phash[b][:, None])
            best[k] = np.minimum(best[k], turned.min(axis=1))
        allowed = best < FAR
        return np.where(allowed, best, near).astype(np.uint8), allowed


def _hamming(a: NDArray[np.uint64], b: NDArray[np.uint64]) -> NDArray[np.uint8]:
    import numpy as np

    return np.bitwise_count(np.bitwise_xor(a, b))


def similar_pairs(sigs: Signatures, max_distance: int) -> list[tuple[int, int, int, float]]:
    """Every similar pair (i < j) with its hash and colour distance. Pictures are compared
    in chunks along their lightness, each with those whose lightness is close enough to
    pass the colour test at all; hashes only where the colours agree."""
    import numpy as np

    if len(sigs) < 2:
        return []
    order = np.argsort(sigs.lab[:, 0], kind="stable")
    lightness = sigs.lab[order, 0]
    reach = max(COLOUR_TOLERANCE, FLAT_TOLERANCE)
    pairs: list[tuple[int, int, int, float]] = []
    for start in range(0, len(order), CHUNK):
        rows = order[start:start + CHUNK]
        stop = int(np.searchsorted(lightness, lightness[start:start + CHUNK].max() + reach,
                                   side="right"))
        cols = order[start:stop]
        colour = sigs.colour(rows[:, None], cols[None, :])
        later = np.arange(start, start + len(rows))[:, None] < np.arange(start, stop)[None, :]
        r, c = np.nonzero(later & (colour <= reach))  # each pair once, colours near enough
        if not len(r):
            continue
        similar, distance, near = sigs.compare(rows[r], cols[c], max_distance)
        for k in np.nonzero(similar & (distance <= max_distance))[0]:
            i, j = int(rows[r[k]]), int(cols[c[k]])
            pairs.append((min(i, j), max(i, j), int(distance[k]), float(near[k])))
    return pairs


def groups(sigs: Signatures, max_distance: int) -> list[list[int]]:
    """Groups (2+ members) of signatures joined by similar pairs (transitively)."""
    parent = list(range(len(sigs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j, _distance, _colour in similar_pairs(sigs, max_distance):
        a, b = root(i), root(j)
        if a != b:
            parent[max(a, b)] = min(a, b)
    by_root: dict[int, list[int]] = {}
    for index in range(len(sigs)):
        by_root.setdefault(root(index), []).append(index)
    return [members for members in by_root.values() if len(members) > 1]


def nearest(sigs: Signatures, index: int, max_distance: int
            ) -> list[tuple[int, int, float]]:
    """The pictures similar to `index`: (other index, hash distance, colour distance),
    closest first."""
    import numpy as np

    others = np.arange(len(sigs))
    similar, distance, colour = sigs.compare(np.full(len(sigs), index), others)
    similar &= (distance <= max_distance) & (others != index)
    found = [(int(j), int(distance[j]), float(colour[j])) for j in np.nonzero(similar)[0]]
    return sorted(found, key=lambda x: (x[1], x[2], sigs.items[x[0]].asset_id))
