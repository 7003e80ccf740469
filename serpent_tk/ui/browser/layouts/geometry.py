"""Where each cell of the grid goes, in the grid's virtual coordinates (y from the top of
all its content). Pure arithmetic, no Tk; used on the Tk thread by the grid.

- `Uniform`: cells of one size in columns (the thumbnail grid), or one column of rows as
  wide as the view (the list).
- `Justified`: rows of pictures at their own proportions, each row scaled to fill the width
  (the last one keeps the usual height). Proportions become known as pages of assets
  arrive; until then a cell counts as the average shape seen so far.

Both answer the same questions (`Arrangement`), and the functions below (what is visible,
what is under the pointer, the cell above or below, what a rubber band covers) work on any.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import Protocol

Box = tuple[float, float, float, float]           # x, y, width, height

MIN_RATIO, MAX_RATIO = 1 / 3, 3.0                 # a panorama does not get a row of its own


class Arrangement(Protocol):
    count: int
    cols: int                  # columns (a justified grid: the first row's)
    step: float                # a typical row's height with its gap (wheel, scroll units)

    def arrange(self, width: int, count: int) -> None: ...
    def box(self, index: int) -> Box: ...
    def row_of(self, index: int) -> int: ...
    def rows(self) -> int: ...
    def row_span(self, row: int) -> tuple[int, int]: ...
    def row_top(self, row: int) -> float: ...
    def row_bottom(self, row: int) -> float: ...
    def row_at(self, vy: float) -> int: ...
    def height(self) -> float: ...


class Uniform:
    """`cols` columns of `cell_w` x `cell_h` with the spare width spread between them; or,
    `stretch`, one column as wide as the view (the list's rows)."""

    def __init__(self, cell_w: float, cell_h: float, gap: float, margin: float, *,
                 stretch: bool = False, top: float | None = None) -> None:
        self.cell_w, self.cell_h, self.gap, self.margin = cell_w, cell_h, gap, margin
        self.top = margin if top is None else top   # above the first row and below the last
        self.stretch = stretch
        self.step = cell_h + gap
        self.count, self.cols = 0, 1
        self.x0, self.x_step = margin, cell_w

    def arrange(self, width: int, count: int) -> None:
        self.count = count
        if self.stretch:
            self.cols, self.x0 = 1, self.margin
            self.cell_w = max(1.0, width - 2 * self.margin)
            self.x_step = self.cell_w
            return
        usable = max(1, width - 2 * self.margin + self.gap)
        self.cols = max(1, int(usable // (self.cell_w + self.gap)))
        spare = max(0, width - 2 * self.margin - self.cols * self.cell_w)
        self.x_step = self.cell_w + (spare / (self.cols - 1) if self.cols > 1 else 0)
        self.x0 = self.margin if self.cols > 1 else (width - self.cell_w) / 2

    def box(self, index: int) -> Box:
        row, col = divmod(index, self.cols)
        return (self.x0 + col * self.x_step, self.top + row * self.step, self.cell_w,
                self.cell_h)

    def row_of(self, index: int) -> int:
        return index // self.cols

    def rows(self) -> int:
        return -(-self.count // self.cols)

    def row_span(self, row: int) -> tuple[int, int]:
        return row * self.cols, min(self.count, (row + 1) * self.cols) - 1

    def row_top(self, row: int) -> float:
        return self.top + row * self.step

    def row_bottom(self, row: int) -> float:
        return self.row_top(row) + self.cell_h

    def row_at(self, vy: float) -> int:
        return max(0, min(self.rows() - 1, int((vy - self.top) // self.step)))

    def height(self) -> float:
        return self.top * 2 + max(0.0, self.rows() * self.step - self.gap)


class Justified:
    """Rows about `target` pixels high (the picture, without the `pad` around it), each
    filled to the width with its pictures at their proportions."""

    def __init__(self, target: float, gap: float, margin: float, pad: float) -> None:
        self.resize(target, gap, margin, pad)
        self.count, self.cols, self.width = 0, 1, 1
        self._ratios: list[float] = []              # 0.0: not known yet
        self._known_sum, self._known = 0.0, 0
        self._q: list[float] = [0.0]
        self._first: list[int] = []                 # each row's first index
        self._y: list[float] = []
        self._h: list[float] = []                   # each row's cell height (with the pad)
        self._height = 2 * margin

    def resize(self, target: float, gap: float, margin: float, pad: float) -> None:
        """Other sizes (a zoom step); what is known about the cells stays."""
        self.target, self.gap, self.margin, self.pad = target, gap, margin, pad
        self.step = target + 2 * pad + gap

    # what is known about the cells ------------------------------------------------------
    def learn(self, index: int, ratio: float) -> bool:
        """Cell `index` is `ratio` (width / height) wide; True when that moves cells."""
        ratio = max(MIN_RATIO, min(MAX_RATIO, ratio or 1.0))
        if index >= len(self._ratios):
            self._ratios.extend([0.0] * (index + 1 - len(self._ratios)))
        old = self._ratios[index]
        if abs(old - ratio) < 1e-3:
            return False
        self._ratios[index] = ratio
        self._known_sum += ratio - old
        self._known += 0 if old else 1
        return True

    def forget(self) -> None:
        """Another query: nothing is known about its cells."""
        self._ratios, self._known_sum, self._known = [], 0.0, 0

    @property
    def estimate(self) -> float:
        return self._known_sum / self._known if self._known else 1.0

    def ratio(self, index: int) -> float:
        known = self._ratios[index] if index < len(self._ratios) else 0.0
        return known or self.estimate

    # layout ----------------------------------------------------------------------------
    def arrange(self, width: int, count: int) -> None:
        """Rows by running sums: `_q[k]` is the width cells 0..k-1 take at the target
        height with their pads and gaps, so a row's end is one bisection away (100,000
        cells in a few tens of milliseconds, on every page that brings new proportions)."""
        self.count, self.width = count, width
        known = self._ratios[:count]
        estimate, target = self.estimate, self.target
        gap, pad = self.gap, 2 * self.pad
        unit = pad + gap
        widths = [(r or estimate) * target + unit for r in known]
        widths.extend([estimate * target + unit] * (count - len(known)))
        q = self._q = list(accumulate(widths, initial=0.0))
        avail = max(1.0, width - 2 * self.margin)
        firsts, ys, hs = [], [], []
        y, start = float(self.margin), 0
        while start < count:
            end = bisect_left(q, q[start] + avail + gap, start + 1, count + 1)
            full = end <= count
            end = min(end, count)
            n = end - start
            total = (q[end] - q[start] - n * unit) / target       # the row's ratios
            fixed = n * pad + (n - 1) * gap
            height = max(1.0, (avail - fixed) / total) if full else target
            firsts.append(start)
            ys.append(y)
            hs.append(height + pad)
            y += height + pad + gap
            start = end
        self._first, self._y, self._h = firsts, ys, hs
        self._height = (y - gap if count else y) + self.margin
        self.cols = (firsts[1] if len(firsts) > 1 else count) or 1

    def box(self, index: int) -> Box:
        row = self.row_of(index)
        start, height = self._first[row], self._h[row]
        unit, target = 2 * self.pad + self.gap, self.target
        before = (self._q[index] - self._q[start] - (index - start) * unit) / target
        x = self.margin + before * (height - 2 * self.pad) + (index - start) * unit
        width = (self._q[index + 1] - self._q[index] - unit) / target * (height - 2 * self.pad)
        return x, self._y[row], width + 2 * self.pad, height

    def row_of(self, index: int) -> int:
        return max(0, bisect_right(self._first, index) - 1)

    def rows(self) -> int:
        return len(self._first)

    def row_span(self, row: int) -> tuple[int, int]:
        last = self._first[row + 1] - 1 if row + 1 < len(self._first) else self.count - 1
        return self._first[row], last

    def row_top(self, row: int) -> float:
        return self._y[row]

    def row_bottom(self, row: int) -> float:
        return self._y[row] + self._h[row]

    def row_at(self, vy: float) -> int:
        return max(0, min(len(self._y) - 1, bisect_right(self._y, vy) - 1))

    def height(self) -> float:
        return self._height


# questions any arrangement answers -----------------------------------------------------
def visible_range(a: Arrangement, top: float, height: float) -> tuple[int, int]:
    """First and last index at least partly in [top, top + height] (last < first: none)."""
    if not a.count or not a.rows():
        return 0, -1
    return a.row_span(a.row_at(top))[0], a.row_span(a.row_at(top + height))[1]


def index_at(a: Arrangement, x: float, vy: float) -> int:
    """The cell under (x, vy), or -1 (a gap, the margin, below the end)."""
    if not a.count or not a.rows():
        return -1
    row = a.row_at(vy)
    if not a.row_top(row) <= vy <= a.row_bottom(row):
        return -1
    first, last = a.row_span(row)
    for index in range(first, last + 1):
        bx, _by, bw, _bh = a.box(index)
        if bx <= x <= bx + bw:
            return index
    return -1


def vertical(a: Arrangement, index: int, rows: int) -> int:
    """The cell `rows` rows above (negative) or below `index`, nearest to it across."""
    if not a.count:
        return index
    row = a.row_of(index)
    target = max(0, min(a.rows() - 1, row + rows))
    if target == row:
        return 0 if rows < 0 else a.count - 1
    bx, _by, bw, _bh = a.box(index)
    centre = bx + bw / 2
    first, last = a.row_span(target)

    def distance(i: int) -> float:
        x, _y, w, _h = a.box(i)
        return abs(x + w / 2 - centre)

    return min(range(first, last + 1), key=distance)


def covered(a: Arrangement, left: float, top: float, right: float,
            bottom: float) -> list[int]:
    """The cells a rubber band from (left, top) to (right, bottom) touches, in order."""
    if not a.count or not a.rows():
        return []
    found = []
    for row in range(a.row_at(top), a.row_at(bottom) + 1):
        if a.row_top(row) > bottom or a.row_bottom(row) < top:
            continue
        first, last = a.row_span(row)
        for index in range(first, last + 1):
            x, _y, w, _h = a.box(index)
            if x <= right and x + w >= left:
                found.append(index)
    return found


def rows_on_screen(a: Arrangement, height: float) -> int:
    """About how many rows a screenful holds (Page Up / Page Down)."""
    return max(1, int(height // max(1.0, a.step)))
