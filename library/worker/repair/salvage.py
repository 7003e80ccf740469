"""Reading every row SQLite can still read out of a damaged database, table by table.

Runs in the worker process, during `library.repair` (`recover.py`), on a copy of the damaged
database. Pure Python, no `sqlite3` command line (an artist's machine has none): each table is
read in key order, a page at a time. Where a read meets a damaged page, a rowid table is read
on past it (the next readable row is found by jumping ahead and narrowing back, so only the
rows on damaged pages are lost); a table without rowid is read from its other end as well.
A table SQLite could not read whole (or at all: a damaged schema or header) is then also read
page by page (`pages`), which reaches every leaf that is not itself damaged. Rows go into the
new library's table (`INSERT OR IGNORE`: a row a constraint refuses is counted as dropped, a
row read twice is kept once); rows that point at what was lost are detached or dropped
afterwards (`drop_dangling`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from library.worker.repair.pages import PageFile

PAGE = 2000  # rows per read
MAX_ROWID = 2**63 - 1


@dataclass
class TableReport:
    """What became of one table: rows copied, rows a constraint refused, places where rows
    could not be read (`damagedSpots`; 0 means the whole table was read)."""

    recovered: int = 0
    dropped: int = 0
    damaged_spots: int = 0
    unreadable: bool = False  # not even its columns could be read

    def as_json(self) -> dict[str, Any]:
        return {"recovered": self.recovered, "dropped": self.dropped,
                "damagedSpots": self.damaged_spots, "unreadable": self.unreadable}


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, bool, int]]:
    """(name, not null, position in the primary key) of each column of `table`."""
    return [(str(row[1]), bool(row[3]), int(row[5]))
            for row in conn.execute(f"PRAGMA table_info({quoted(table)})")]


def has_rowid(conn: sqlite3.Connection, table: str) -> bool:
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (table,)).fetchone()
    return not (row and row[0] and "WITHOUT ROWID" in str(row[0]).upper())


@dataclass
class Pages:
    """The damaged file read page by page, and where each table's b-tree starts."""

    file: PageFile
    roots: dict[str, int]

    @classmethod
    def of(cls, path: Path, old: sqlite3.Connection) -> Pages:
        file = PageFile.open(path)
        try:
            roots = {str(name): int(root) for name, root in old.execute(
                "SELECT name, rootpage FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError:  # SQLite cannot read its schema: walk it ourselves
            roots = {str(row[1]): row[3] for _, row in file.rows(1)
                     if len(row) >= 4 and row[0] == "table" and isinstance(row[3], int)}
        return cls(file, roots)


def copy_table(old: sqlite3.Connection, new: sqlite3.Connection, table: str,
               pages: Pages | None = None) -> TableReport:
    """Copy what can be read of `old`'s `table` into `new`'s table of the same name (the
    columns both have): through SQLite, and where SQLite met damage also page by page."""
    report = TableReport()
    try:
        old_columns = columns(old, table)
        rowid = has_rowid(old, table)
    except sqlite3.DatabaseError:
        report.unreadable = True
    else:
        _through_sqlite(old, new, table, old_columns, rowid, report)
    if (report.unreadable or report.damaged_spots) and pages is not None \
            and table in pages.roots:
        _page_by_page(pages, new, table, report)  # what it finds damaged is what was lost
    return report


def _through_sqlite(old: sqlite3.Connection, new: sqlite3.Connection, table: str,
                    old_columns: list[tuple[str, bool, int]], rowid: bool,
                    report: TableReport) -> None:
    wanted = {name for name, _, _ in columns(new, table)}
    names = [name for name, _, _ in old_columns if name in wanted]
    if not names:
        return
    key = ([] if rowid else
           [name for name, _, position in sorted(old_columns, key=lambda c: c[2]) if position])
    insert = (f"INSERT OR IGNORE INTO {quoted(table)} ({', '.join(map(quoted, names))}) "
              f"VALUES ({', '.join('?' * len(names))})")
    reader = (_rowid_rows(old, table, names, report) if rowid or not key
              else _keyed_rows(old, table, names, key, report))
    for batch in reader:
        inserted = new.executemany(insert, batch).rowcount  # triggers' changes not counted
        report.recovered += inserted
        report.dropped += len(batch) - inserted


def _page_by_page(pages: Pages, new: sqlite3.Connection, table: str,
                  report: TableReport) -> None:
    """The rows SQLite could not reach, read from the pages: each record's values in the
    order the table stores them (a table without rowid: its key first), by this Serpent's
    schema (older libraries only lack columns at the end). Rows already copied are kept."""
    described = columns(new, table)
    keyed = sorted((c for c in described if c[2]), key=lambda c: c[2])
    bad_before = len(pages.file.bad_pages)
    rows = list(pages.file.rows(pages.roots[table]))
    without_rowid = bool(rows) and rows[0][0] is None
    order = ([c[0] for c in keyed] + [c[0] for c in described if not c[2]]
             if without_rowid else [c[0] for c in described])
    alias = (keyed[0][0] if not without_rowid and len(keyed) == 1
             and _declared_integer(new, table, keyed[0][0]) else None)
    by_width: dict[int, list[tuple[Any, ...]]] = {}
    for rowid, values in rows:
        values = list(values[:len(order)])
        if alias is not None and values and values[order.index(alias)] is None:
            values[order.index(alias)] = rowid
        by_width.setdefault(len(values), []).append(tuple(values))
    for width, batch in by_width.items():
        insert = (f"INSERT OR IGNORE INTO {quoted(table)} "
                  f"({', '.join(map(quoted, order[:width]))}) VALUES "
                  f"({', '.join('?' * width)})")
        try:
            report.recovered += new.executemany(insert, batch).rowcount
        except sqlite3.Error:  # values of the wrong kind for this table: left out
            report.dropped += len(batch)
    report.damaged_spots = len(pages.file.bad_pages) - bad_before
    report.unreadable = pages.roots[table] in pages.file.bad_pages


def _declared_integer(conn: sqlite3.Connection, table: str, column: str) -> bool:
    """Is `column` an INTEGER PRIMARY KEY (stored as the rowid, NULL in the record)?"""
    return any(str(row[1]) == column and str(row[2]).upper() == "INTEGER"
               for row in conn.execute(f"PRAGMA table_info({quoted(table)})"))


def _rowid_rows(old: sqlite3.Connection, table: str, names: list[str],
                report: TableReport) -> Iterator[list[tuple[Any, ...]]]:
    """Rows in rowid order, a page at a time; past a damaged page to the next readable row."""
    select = (f"SELECT rowid, {', '.join(map(quoted, names))} FROM {quoted(table)} "
              "WHERE rowid > ? ORDER BY rowid LIMIT ?")
    last = -MAX_ROWID - 1
    while True:
        more = True
        try:
            rows = old.execute(select, (last, PAGE)).fetchall()
        except sqlite3.DatabaseError:
            rows, more = _past_damage(old, select, last, report)
        if rows:
            last = rows[-1][0]
            yield [row[1:] for row in rows]
        if not rows and more or not more or last >= MAX_ROWID:
            return


def _past_damage(old: sqlite3.Connection, select: str, last: int,
                 report: TableReport) -> tuple[list[tuple[Any, ...]], bool]:
    """After a page that failed: its rows up to the damaged spot, then the first readable
    row beyond it; False when nothing beyond can be read."""
    rows: list[tuple[Any, ...]] = []
    while True:
        try:
            row = old.execute(select, (last, 1)).fetchone()
        except sqlite3.DatabaseError:
            break
        if row is None:
            return rows, False
        rows.append(row)
        last = row[0]
    report.damaged_spots += 1
    after = _first_readable_after(old, select, last)
    if after is None:
        return rows, False
    return [*rows, after], True


def _first_readable_after(old: sqlite3.Connection, select: str,
                          last: int) -> tuple[Any, ...] | None:
    """The first row after `last` that can be read: jump ahead (1, 2, 4, ... rowids) until a
    read succeeds, then narrow back so no readable row in between is skipped."""
    def read_after(rowid: int) -> tuple[bool, tuple[Any, ...] | None]:
        try:
            return True, old.execute(select, (rowid, 1)).fetchone()
        except sqlite3.DatabaseError:
            return False, None

    step, low = 1, last
    while True:
        high = min(last + step, MAX_ROWID)
        fine, row = read_after(high)
        if fine:
            break
        if high >= MAX_ROWID:
            return None
        low, step = high, step * 2
    while high - low > 1:  # reading after `low` fails, after `high` works
        middle = (low + high) // 2
        fine, candidate = read_after(middle)
        if fine:
            high, row = middle, candidate
        else:
            low = middle
    return row


def _keyed_rows(old: sqlite3.Connection, table: str, names: list[str], key: list[str],
                report: TableReport) -> Iterator[list[tuple[Any, ...]]]:
    """A table without rowid: by its key from the start, and if a damaged page stops that,
    from the end backwards until that stops too (only the middle is lost)."""
    positions = [names.index(k) for k in key if k in names]
    select = f"SELECT {', '.join(map(quoted, names))} FROM {quoted(table)} ORDER BY "
    forward = select + ", ".join(map(quoted, key))
    backward = select + ", ".join(f"{quoted(k)} DESC" for k in key)
    seen: set[tuple[Any, ...]] = set()
    for order in (forward, backward):
        batch: list[tuple[Any, ...]] = []
        try:
            for row in old.execute(order):
                identity = tuple(row[p] for p in positions) if positions else tuple(row)
                if identity in seen:
                    break  # met the rows read from the other end
                seen.add(identity)
                batch.append(tuple(row))
                if len(batch) >= PAGE:
                    yield batch
                    batch = []
            else:
                if order is forward:  # read to the end: nothing was lost
                    if batch:
                        yield batch
                    return
        except sqlite3.DatabaseError:
            if order is forward:
                report.damaged_spots += 1
        if batch:
            yield batch


def drop_dangling(conn: sqlite3.Connection) -> int:
    """Rows that point at rows that were lost: a column that may be empty is emptied (a folder
    whose parent was lost goes to the top level), other rows are dropped. Repeated until
    nothing points nowhere. Returns how many rows were dropped."""
    dropped = 0
    while True:
        changed = 0
        tables = [str(r[0]) for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            not_null = {name for name, required, _ in columns(conn, table) if required}
            for fk in conn.execute(f"PRAGMA foreign_key_list({quoted(table)})").fetchall():
                parent, child_column, parent_column = str(fk[2]), str(fk[3]), fk[4]
                target = quoted(str(parent_column)) if parent_column else "rowid"
                dangling = (f"{quoted(child_column)} IS NOT NULL AND {quoted(child_column)} "
                            f"NOT IN (SELECT {target} FROM {quoted(parent)})")
                if child_column not in not_null:
                    conn.execute(f"UPDATE OR IGNORE {quoted(table)} SET "
                                 f"{quoted(child_column)} = NULL WHERE {dangling}")
                removed = conn.execute(f"DELETE FROM {quoted(table)} WHERE {dangling}").rowcount
                dropped += removed
                changed += removed
        if not changed:
            return dropped


def state_row(pages: Pages) -> dict[str, Any] | None:
    """The library's own row (library_state) read page by page, when SQLite cannot."""
    root = pages.roots.get("library_state")
    for _, values in pages.file.rows(root) if root else ():
        if len(values) >= 5:
            return {"name": values[2], "created_at": values[3], "change_sequence": values[4]}
    return None
