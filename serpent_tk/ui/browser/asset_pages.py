"""The grid's data: pages of `asset.search` results fetched by offset, on demand.

Tk thread only (answers arrive through the UiBus). Only the pages near the visible cells
are fetched, at most two at a time, newest wish first; far-away pages are forgotten. After
a library change the pages are marked stale and the visible ones fetched again, while the
stale data stays on screen until its replacement arrives, so nothing flickers. The
"Similar to …" view is one list (`similar.load_similar`) cut into the same pages.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from serpent_tk.automation import envelope as envelopes
from serpent_tk.ui.browser.grid import GridCell
from serpent_tk.ui.browser.similar import SIMILAR_KEY, load_similar
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.commands import Commands, Reply

log = logging.getLogger(__name__)

PAGE_SIZE = 200
MAX_IN_FLIGHT = 2
MAX_PAGES = 60          # pages kept in memory (12,000 summaries)
MARGIN_PAGES = 1        # also fetch one page before and after the visible ones


def _dimensions(item: dict[str, Any]) -> str:
    width, height = item.get("width"), item.get("height")
    if width and height:
        return f"{width} × {height}"
    return str(item.get("ext", "")).upper() or str(item.get("kind", ""))


# what is wrong with a file, in a grid cell's few words (asset.get has the whole message)
PROBLEM_WORDS = {"damaged": N_("Damaged file"), "truncated": N_("Cut off"),
                 "too-large": N_("Too large")}


def to_cell(item: dict[str, Any]) -> GridCell:
    ext = str(item.get("ext") or "").upper() or "FILE"
    problem = item.get("problem") or {}
    detail = _dimensions(item)
    if problem:
        words = _(PROBLEM_WORDS.get(str(problem.get("code")), N_("Damaged file")))
        detail = f"⚠ {words}" if not item.get("width") else f"{detail} · ⚠ {words}"
    width, height = item.get("width"), item.get("height")
    size = item.get("size")
    return GridCell(key=item["id"], title=str(item.get("name", "")), badge=ext,
                    detail=detail, picture=item.get("kind", "image") == "image",
                    stars=max(0, min(5, int(item.get("rating") or 0))),
                    ratio=width / height if width and height else 1.0,
                    kind=str(item.get("kind") or ""),
                    size=int(size) if isinstance(size, int) else None,
                    tags=tuple(item.get("tags") or ()), added=str(item.get("addedAt") or ""),
                    dimensions=f"{width} × {height}" if width and height else "")


class AssetPages:
    """Implements `GridSource` over `asset.search` for one library and one query."""

    def __init__(self, commands: Commands) -> None:
        self.commands = commands
        self.library_id: str | None = None
        self.query: dict[str, Any] = {}
        self.on_changed: Callable[[], None] = lambda: None
        self.on_loaded_first: Callable[[], None] = lambda: None
        self._total = 0
        self._known = False            # has any answer for this query arrived?
        self._pages: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._stale: dict[int, list[dict[str, Any]]] = {}
        self._in_flight: set[int] = set()
        self._wanted: list[int] = []
        self._generation = 0
        self._visible = (0, -1)
        self._index: dict[str, int] = {}
        self._refetching: set[int] = set()   # pages of the last invalidate still on the way
        self._again = False
        self.note: str | None = None         # the similar view: why nothing was compared

    # queries -----------------------------------------------------------------------------
    def set_query(self, library_id: str | None, query: dict[str, Any]) -> None:
        """Show another library or filter: forget everything, fetch the first page."""
        self.library_id = library_id
        self.query = dict(query)
        self._generation += 1
        self._pages.clear()
        self._stale.clear()
        self._in_flight.clear()
        self._wanted = []
        self._index.clear()
        self._total = 0
        self._known = False
        self._visible = (0, -1)
        self._refetching = set()
        self._again = False
        self.note = None
        if library_id is not None:
            self._fetch(0)
        self.on_changed()

    def invalidate(self) -> None:
        """The library changed: refetch what is on screen, keep showing the old data.

        While a refetch is still on its way, another one is only noted and sent when the
        answer arrives: a slow library is never handed a growing queue of searches."""
        if self.library_id is None:
            return
        if self._refetching:
            self._again = True
            return
        self._generation += 1
        self._stale = {**self._stale, **self._pages}
        self._pages.clear()
        self._in_flight.clear()
        self._index.clear()
        first, last = self._visible
        # only what is on screen now; the margin pages follow when the grid asks again
        pages = list(range(first // PAGE_SIZE, max(first, last) // PAGE_SIZE + 1)) \
            if self._known else [0]
        self._wanted = []
        self._refetching = set(pages)
        for page in pages:
            self._fetch(page)

    @property
    def known(self) -> bool:
        return self._known

    # GridSource --------------------------------------------------------------------------
    def count(self) -> int:
        return self._total

    def cell(self, index: int) -> GridCell | None:
        item = self.item(index)
        return to_cell(item) if item is not None else None

    def item(self, index: int) -> dict[str, Any] | None:
        page, offset = divmod(index, PAGE_SIZE)
        items = self._pages.get(page)
        if items is None:
            items = self._stale.get(page)
        if items is not None and offset < len(items):
            return items[offset]
        return None

    def request(self, first: int, last: int) -> None:
        self._visible = (first, last)
        pages = self._pages_for(first, last)
        self._wanted = [p for p in pages if p not in self._pages and p not in self._in_flight]
        self._pump()
        self._trim(pages)

    def index_of(self, key: str) -> int | None:
        index = self._index.get(key)
        if index is not None:
            return index
        for page, items in list(self._pages.items()) + list(self._stale.items()):
            for offset, item in enumerate(items):
                if item["id"] == key:
                    return page * PAGE_SIZE + offset
        return None

    def items_for(self, keys: list[str]) -> list[dict[str, Any]]:
        """Loaded summaries of `keys`, in that order (missing ones left out)."""
        found = []
        for key in keys:
            index = self.index_of(key)
            item = self.item(index) if index is not None else None
            if item is not None and item["id"] == key:
                found.append(item)
        return found

    # fetching ----------------------------------------------------------------------------
    def _pages_for(self, first: int, last: int) -> list[int]:
        if last < first:
            return [0]
        lo = max(0, first // PAGE_SIZE - MARGIN_PAGES)
        hi = last // PAGE_SIZE + MARGIN_PAGES
        if self._known:
            hi = min(hi, max(0, (self._total - 1) // PAGE_SIZE))
        visible = list(range(first // PAGE_SIZE, last // PAGE_SIZE + 1))
        margin = [p for p in range(lo, hi + 1) if p not in visible]
        return visible + margin

    def _pump(self) -> None:
        while self._wanted and len(self._in_flight) < MAX_IN_FLIGHT:
            self._fetch(self._wanted.pop(0))

    def _fetch(self, page: int) -> None:
        if self.library_id is None or page in self._in_flight:
            return
        if SIMILAR_KEY in self.query:
            self._fetch_similar(page)
            return
        self._in_flight.add(page)
        generation = self._generation
        args = {**self.query, "libraryId": self.library_id, "limit": PAGE_SIZE,
                "offset": page * PAGE_SIZE}
        self.commands.call("asset.search", args,
                           lambda reply: self._arrived(generation, page, reply))

    def _arrived(self, generation: int, page: int, reply: Reply) -> None:
        if generation != self._generation:
            return
        self._in_flight.discard(page)
        self._refetching.discard(page)
        if not self._refetching and self._again:
            self._again = False
            self.invalidate()
        if not reply.ok:
            # asked again at the next redraw (scrolling, the next change event)
            log.info("asset.search page %d failed: %s", page, reply.code)
            return
        result = reply.result
        items = list(result.get("items", []))
        first_answer = not self._known
        self._known = True
        self._total = int(result.get("total", len(items)))
        self._pages[page] = items
        self._pages.move_to_end(page)
        self._stale.pop(page, None)
        for offset, item in enumerate(items):
            self._index[item["id"]] = page * PAGE_SIZE + offset
        if first_answer:
            self.on_loaded_first()
        self.on_changed()
        self._pump()

    def _fetch_similar(self, page: int) -> None:
        """The similar view is one list: every page comes with the first answer."""
        if self._in_flight or (self._known and page not in self._refetching):
            return
        self._in_flight.add(page)
        generation, library_id = self._generation, self.library_id
        assert library_id is not None

        def done(items: list[dict[str, Any]], note: str | None) -> None:
            if generation != self._generation:
                return
            self.note = note
            pages = {n: items[n * PAGE_SIZE:(n + 1) * PAGE_SIZE]
                     for n in range(max(1, -(-len(items) // PAGE_SIZE)))}
            for number, chunk in pages.items():
                self._arrived(generation, number, Reply(envelopes.ok({
                    "items": chunk, "total": len(items)})))
            self._in_flight.clear()
            self._refetching.clear()

        load_similar(self.commands, library_id, str(self.query[SIMILAR_KEY]), done)

    def _trim(self, keep: list[int]) -> None:
        while len(self._pages) > MAX_PAGES:
            page = next(iter(self._pages))
            if page in keep:
                self._pages.move_to_end(page)
                if all(p in keep for p in self._pages):
                    break
                continue
            items = self._pages.pop(page)
            for item in items:
                self._index.pop(item["id"], None)
        for page in [p for p in self._stale if p not in keep]:
            del self._stale[page]
