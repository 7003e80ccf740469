"""Reading a damaged SQLite file page by page, for what SQLite itself refuses to read.

Runs in the worker process, during `library.repair` (`salvage`). Pure Python, from SQLite's
documented file format (https://www.sqlite.org/fileformat2.html): the b-tree of a table is
walked from its root page, every page checked before it is trusted; a page that is not a
b-tree page, or whose cells do not parse, is skipped (counted) and the walk goes on with its
siblings. So a garbage header (the page size is then guessed from page 1's own b-tree), a
damaged schema page or a damaged interior page lose only what was on that page. What is read
are records: lists of values, in the table's column order as stored.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEADER = b"SQLite format 3\x00"
TABLE_INTERIOR, TABLE_LEAF, INDEX_INTERIOR, INDEX_LEAF = 0x05, 0x0D, 0x02, 0x0A
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
ENCODINGS = {1: "utf-8", 2: "utf-16-le", 3: "utf-16-be"}


class BadPage(Exception):
    """A page that is not what the b-tree says it is."""


@dataclass
class PageFile:
    """The pages of one database file, its layout taken from its header or guessed."""

    data: Any  # bytes, or the file mapped (slices are bytes)
    page_size: int
    usable: int
    encoding: str
    bad_pages: set[int] = field(default_factory=set)

    @classmethod
    def open(cls, path: Path) -> PageFile:
        """The file mapped into memory (read only; `close` it after)."""
        with open(path, "rb") as file:
            data: Any = (mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
                         if os.fstat(file.fileno()).st_size else b"")
        size = int.from_bytes(data[16:18], "big") if len(data) >= 100 else 0
        size = 65536 if size == 1 else size
        if data[:16] == HEADER and size in PAGE_SIZES:
            reserved = data[20]
            encoding = ENCODINGS.get(int.from_bytes(data[56:60], "big"), "utf-8")
            return cls(data, size, size - reserved, encoding)
        for guess in PAGE_SIZES:  # the header is garbage: which size makes page 1 a b-tree?
            if _plausible(data, guess):
                return cls(data, guess, guess, "utf-8")
        return cls(data, 4096, 4096, "utf-8")

    def close(self) -> None:
        if isinstance(self.data, mmap.mmap):
            self.data.close()

    @property
    def page_count(self) -> int:
        return len(self.data) // self.page_size

    def page(self, number: int) -> tuple[bytes, int]:
        """The page's bytes and where its b-tree header starts (100 on page 1)."""
        if not 1 <= number <= self.page_count:
            raise BadPage(f"page {number} is outside the file")
        start = (number - 1) * self.page_size
        return self.data[start:start + self.page_size], 100 if number == 1 else 0

    def rows(self, root: int) -> Iterator[tuple[int | None, list[Any]]]:
        """(rowid, values) of every readable row of the b-tree at `root` (rowid None for an
        index b-tree: a table without rowid)."""
        pending, seen = [root], set()
        while pending:
            number = pending.pop()
            if number in seen:
                continue  # a loop in garbage: never twice
            seen.add(number)
            try:
                kind, cells, right = self._cells(number)
                if kind in (TABLE_INTERIOR, INDEX_INTERIOR):
                    children = [int.from_bytes(page[offset:offset + 4], "big")
                                for page, offset in cells] + [right]
                    found: list[tuple[int | None, list[Any]]] = []
                    if kind == INDEX_INTERIOR:  # its cells hold rows too
                        found = [(None, self._record(page, offset + 4, TABLE_INTERIOR, number))
                                 for page, offset in cells]
                    pending.extend(reversed(children))
                else:
                    found = [self._leaf_cell(page, offset, kind, number)
                             for page, offset in cells]
            except (BadPage, IndexError, ValueError, UnicodeDecodeError, struct.error):
                self.bad_pages.add(number)
                continue
            yield from found

    def _cells(self, number: int) -> tuple[int, list[tuple[bytes, int]], int]:
        page, start = self.page(number)
        kind = page[start]
        if kind not in (TABLE_INTERIOR, TABLE_LEAF, INDEX_INTERIOR, INDEX_LEAF):
            raise BadPage(f"page {number} is not a b-tree page")
        count = int.from_bytes(page[start + 3:start + 5], "big")
        header = 12 if kind in (TABLE_INTERIOR, INDEX_INTERIOR) else 8
        right = int.from_bytes(page[start + 8:start + 12], "big") if header == 12 else 0
        if start + header + 2 * count > self.usable:
            raise BadPage(f"page {number} claims {count} cells")
        cells = []
        for index in range(count):
            at = start + header + 2 * index
            offset = int.from_bytes(page[at:at + 2], "big")
            if not start + header + 2 * count <= offset < self.usable:
                raise BadPage(f"page {number}: a cell outside the page")
            cells.append((page, offset))
        return kind, cells, right

    def _leaf_cell(self, page: bytes, offset: int, kind: int,
                   number: int) -> tuple[int | None, list[Any]]:
        if kind == TABLE_LEAF:
            _, after = _varint(page, offset)  # the payload's size: read again below
            rowid, _ = _varint(page, after)
            rowid = rowid - (1 << 64) if rowid >= 1 << 63 else rowid
            return rowid, self._record(page, offset, kind, number)
        return None, self._record(page, offset, kind, number)

    def _record(self, page: bytes, offset: int, kind: int, number: int) -> list[Any]:
        size, position = _varint(page, offset)
        if kind == TABLE_LEAF:
            _, position = _varint(page, position)  # the rowid
        payload = self._payload(page, position, size, kind)
        return _values(payload, self.encoding)

    def _payload(self, page: bytes, position: int, size: int, kind: int) -> bytes:
        """A cell's payload, its overflow pages followed."""
        usable = self.usable
        most = usable - 35 if kind == TABLE_LEAF else (usable - 12) * 64 // 255 - 23
        if size <= most:
            return page[position:position + size]
        least = (usable - 12) * 32 // 255 - 23
        local = least + (size - least) % (usable - 4)
        local = local if local <= most else least
        parts = [page[position:position + local]]
        following = int.from_bytes(page[position + local:position + local + 4], "big")
        remaining, visited = size - local, set()
        while remaining > 0:
            if following in visited:
                raise BadPage("a loop of overflow pages")
            visited.add(following)
            overflow, _ = self.page(following)
            following = int.from_bytes(overflow[:4], "big")
            parts.append(overflow[4:4 + min(remaining, usable - 4)])
            remaining -= usable - 4
        return b"".join(parts)


def _plausible(data: bytes, size: int) -> bool:
    """Does page 1 parse as a b-tree page if pages are `size` bytes?"""
    if len(data) < size or len(data) % size:
        return False
    kind = data[100]
    if kind not in (TABLE_INTERIOR, TABLE_LEAF):
        return False
    count = int.from_bytes(data[103:105], "big")
    header = 12 if kind == TABLE_INTERIOR else 8
    pointers = [int.from_bytes(data[108 + header - 8 + 2 * i:110 + header - 8 + 2 * i], "big")
                for i in range(min(count, 64))]
    return 0 < count < size // 4 and all(100 + header + 2 * count <= p < size for p in pointers)


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    value = 0
    for index in range(9):
        byte = data[offset + index]
        if index == 8:
            return (value << 8) | byte, offset + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, offset + index + 1
    raise ValueError("varint")  # unreachable


def _values(payload: bytes, encoding: str) -> list[Any]:
    """A record's values (SQLite's record format)."""
    header_size, position = _varint(payload, 0)
    if not 0 < header_size <= len(payload):
        raise BadPage("a record header longer than its record")
    types = []
    while position < header_size:
        serial, position = _varint(payload, position)
        types.append(serial)
    values: list[Any] = []
    body = header_size
    for serial in types:
        if serial == 0:
            values.append(None)
        elif 1 <= serial <= 6:
            width = (1, 2, 3, 4, 6, 8)[serial - 1]
            values.append(int.from_bytes(payload[body:body + width], "big", signed=True))
            body += width
        elif serial == 7:
            values.append(struct.unpack(">d", payload[body:body + 8])[0])
            body += 8
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial >= 12:
            length = (serial - 12) // 2
            chunk = payload[body:body + length]
            if len(chunk) < length:
                raise BadPage("a value past the end of its record")
            values.append(chunk.decode(encoding) if serial % 2 else bytes(chunk))
            body += length
        else:
            raise BadPage("a reserved serial type")
    return values
