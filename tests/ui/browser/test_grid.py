"""The virtual grid on its own: 100,000 cells cost only what is on screen."""

from __future__ import annotations

import tkinter as tk
from collections.abc import Iterator, Sequence

import pytest

from serpent_tk.ui.browser.grid import GridCell, VirtualGrid
from serpent_tk.ui.shell.theme import Theme
from tests.ui.conftest import _ROOTS

pytestmark = pytest.mark.gui
COUNT = 100_000


class NumberedCells:
    """A grid source over 100,000 numbered cells that remembers what the grid asked for."""

    def __init__(self, count: int) -> None:
        self.total = count
        self.requests: list[tuple[int, int]] = []

    def count(self) -> int:
        return self.total

    def cell(self, index: int) -> GridCell | None:
        return GridCell(f"k{index}", f"picture-{index:06d}.png", "PNG", "64 × 64")

    def request(self, first: int, last: int) -> None:
        self.requests.append((first, last))

    def index_of(self, key: str) -> int | None:
        return int(key[1:])


class NoPictures:
    def __init__(self) -> None:
        self.wanted: list[str] = []

    def image(self, key: str, pixels: int) -> tk.PhotoImage | None:
        return None

    def want(self, keys: Sequence[str], pixels: int) -> None:
        self.wanted = list(keys)


@pytest.fixture
def grid(display: str) -> Iterator[tuple[tk.Tk, VirtualGrid, NumberedCells, NoPictures]]:
    root = tk.Tk()
    root.geometry("900x600+0+0")
    theme = Theme(root, "light")
    source, pictures = NumberedCells(COUNT), NoPictures()
    view = VirtualGrid(root, theme, source, pictures, cell_points=90)
    view.pack(fill="both", expand=True)
    root.update()
    try:
        yield root, view, source, pictures
    finally:
        root.destroy()
        _ROOTS.append(root)


def items_on_canvas(view: VirtualGrid) -> int:
    return len(view.canvas.find_all())


def test_only_visible_cells_exist_and_scrolling_recycles_them(grid) -> None:  # type: ignore[no-untyped-def]
    root, view, source, pictures = grid
    first, last = view.visible_range()
    visible = last - first + 1
    assert 0 < visible < 100
    assert len(view._cells) == visible
    created = items_on_canvas(view)
    per_cell = len(next(iter(view._cells.values())).items())
    assert created <= per_cell * (visible + view._cols)
    assert pictures.wanted == [f"k{i}" for i in range(first, last + 1)]

    view._on_scrollbar("moveto", "0.5")
    root.update()
    first, last = view.visible_range()
    assert first >= COUNT // 2 - view._cols * 10
    assert source.requests[-1] == (first, last)
    for _ in range(50):
        view.scroll_by(view.row_h * 0.7)
        root.update()
    assert items_on_canvas(view) <= created + per_cell * view._cols   # recycled, not piling up
    titles = {view.canvas.itemcget(c.title, "text") for c in view._cells.values()}
    assert any(t.startswith("picture-0") for t in titles)

    view._on_scrollbar("moveto", "1.0")
    root.update()
    assert view.visible_range()[1] == COUNT - 1


def test_click_shift_click_ctrl_click_and_rubber_band(grid) -> None:  # type: ignore[no-untyped-def]
    root, view, source, _ = grid

    def centre(index: int) -> tuple[int, int]:
        x, y = view._origin(index)
        return int(x + view.cell_w / 2), int(y + view.cell_h / 3)

    def click(index: int, modifier: str = "") -> None:
        x, y = centre(index)
        view.canvas.event_generate(f"<{modifier}ButtonPress-1>", x=x, y=y)
        view.canvas.event_generate("<ButtonRelease-1>", x=x, y=y)
        root.update()

    click(2)
    assert view.selected_keys() == ["k2"]
    click(5, "Shift-")
    assert view.selected_keys() == ["k2", "k3", "k4", "k5"]
    click(3, "Control-")
    assert view.selected_keys() == ["k2", "k4", "k5"]

    # a box dragged from the margin across the first two cells of the first row
    x0 = 1
    y0 = int(view.margin / 2)
    x1, y1 = centre(1)
    view.canvas.event_generate("<ButtonPress-1>", x=x0, y=y0)
    view.canvas.event_generate("<B1-Motion>", x=x1, y=y1)
    view.canvas.event_generate("<ButtonRelease-1>", x=x1, y=y1)
    root.update()
    assert set(view.selected_keys()) == {"k0", "k1"}

    view.canvas.focus_force()
    view.select_keys(["k0"], focus="k0")
    view.canvas.event_generate("<Down>")
    assert view.selected_keys() == [f"k{view._cols}"]
    opened: list[list[str]] = []
    view.on_open = opened.append                 # Enter and Space are the window's keys
    x, y = centre(view._cols + 1)
    view._on_double(type("Click", (), {"x": x, "y": y})())   # Tk cannot synthesize a double
    assert opened == [[f"k{view._cols + 1}"]]
