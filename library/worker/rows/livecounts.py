"""Counts of filters (smart collections, searches) kept exact across changes without counting
the whole library again.

Runs in the worker process; thread-safe (reader threads count, the writer follows). A count
is taken once with SQL at some change sequence; from then on every write transaction that
changes only assets it knows (`WriteTx.track` / `created`: the same declarations undo
relies on) moves it along: before each tracked asset changes, the writer counts how many of
those assets match; before the commit, how many of all of them match now; the difference is
the change of the total. Any other write (a tag renamed, a folder moved, a collection's
members, the trash, a change of more than `MAX_FOLLOWED` assets, anything outside a
`WriteTx` that bumps the sequence) leaves the count behind its sequence, and the next read
counts with SQL again. So a count served is always the exact count of its snapshot.

A filter that names the current time ("added in the last 7 days": `Condition.timeless`
false) changes without any write and is counted with SQL every time, never followed.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

MAX_FILTERS = 32  # followed at once, least recently read dropped first
MAX_FOLLOWED = 2000  # assets one write may change and still be followed
FOLLOWED_KINDS = frozenset({"asset"})
CHUNK = 500

Key = tuple[str, str, tuple[Any, ...]]  # database, condition over `assets a`, parameters


@dataclass
class _Entry:
    count: int
    sequence: int


class LiveCounts:
    def __init__(self) -> None:
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        self._writing: set[int] = set()  # connections inside a write transaction
        self._lock = threading.Lock()

    # -- reading (any thread, its own snapshot) ---------------------------------------------
    def count(self, conn: sqlite3.Connection, where: str, params: Sequence[Any], *,
              follow: bool = True, first: Callable[[], int] | None = None) -> int:
        """The number of assets matching `where` (over `assets a`) in `conn`'s snapshot;
        `follow`: keep it up to date from now on (false for a filter naming the time).
        `first`: counts the same rows another way when there is no count to follow (a free
        text's through its index, where `where` tests each word with LIKE, which is cheap
        for the few assets a write changes and slow over all of them)."""
        def counted() -> int:
            return int(first() if first is not None else conn.execute(
                f"SELECT count(*) FROM assets a WHERE {where}", params).fetchone()[0])

        if not follow or id(conn) in self._writing:  # a writer's count sees its own changes
            return counted()
        sequence = conn.execute("SELECT change_sequence FROM library_state").fetchone()[0]
        key: Key = (_database(conn), where, tuple(params))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.sequence == sequence:
                self._entries.move_to_end(key)
                return entry.count
        total = counted()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.sequence >= sequence:
                return total  # a newer snapshot counted meanwhile
            self._entries[key] = _Entry(total, sequence)
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_FILTERS:
                self._entries.popitem(last=False)
        return total

    # -- following (the writer) -------------------------------------------------------------
    def following(self, conn: sqlite3.Connection) -> Following:
        return Following(self, conn)

    def _at(self, database: str, sequence: int) -> dict[Key, _Entry]:
        with self._lock:
            return {k: e for k, e in self._entries.items()
                    if k[0] == database and e.sequence == sequence}

    def _advance(self, moved: dict[Key, tuple[_Entry, int]], before: int, after: int) -> None:
        with self._lock:
            for key, (entry, count) in moved.items():
                if self._entries.get(key) is entry and entry.sequence == before:
                    entry.count, entry.sequence = count, after


class Following:
    """One write transaction's view of the followed counts (writer thread only)."""

    def __init__(self, counts: LiveCounts, conn: sqlite3.Connection) -> None:
        self._counts = counts
        self._conn = conn
        self._entries: dict[Key, _Entry] | None = None
        self._before: dict[Key, int] = {}
        self._sequence = 0
        self._ids: dict[str, None] = {}  # tracked or created assets
        self._broken = False
        self._moved: dict[Key, tuple[_Entry, int]] = {}

    def begin(self) -> None:
        """The transaction started: counts made on its connection are not kept."""
        with self._counts._lock:
            self._counts._writing.add(id(self._conn))

    def end(self) -> None:
        with self._counts._lock:
            self._counts._writing.discard(id(self._conn))

    def _start(self) -> dict[Key, _Entry]:
        if self._entries is None:
            self._sequence = self._conn.execute(
                "SELECT change_sequence FROM library_state").fetchone()[0]
            self._entries = self._counts._at(_database(self._conn), self._sequence)
            self._before = dict.fromkeys(self._entries, 0)
        return self._entries

    def tracked(self, ids: Sequence[str]) -> None:
        """These existing assets are about to change: count how many match now."""
        entries = self._start()
        self._add(ids)
        if self._broken or not entries:
            return
        for key in entries:
            self._before[key] += _matching(self._conn, key, ids)

    def created(self, ids: Iterable[str]) -> None:
        """These assets are new (none of them existed before the transaction)."""
        self._start()
        self._add(ids)

    def _add(self, ids: Iterable[str]) -> None:
        self._ids.update(dict.fromkeys(ids))
        if len(self._ids) > MAX_FOLLOWED:
            self._broken = True

    def finish(self, kinds: set[str], touched_assets: set[str]) -> None:
        """Before the commit: the counts after this transaction, if it can be followed."""
        if (self._entries is None or self._broken or not self._entries
                or kinds - FOLLOWED_KINDS or not touched_assets.issubset(self._ids)):
            return
        ids = list(self._ids)
        for key, entry in self._entries.items():
            now = _matching(self._conn, key, ids)
            self._moved[key] = (entry, entry.count - self._before[key] + now)

    def committed(self, sequence: int) -> None:
        """The transaction committed as `sequence`: its counts move along."""
        if self._moved and sequence == self._sequence + 1:
            self._counts._advance(self._moved, self._sequence, sequence)


def _matching(conn: sqlite3.Connection, key: Key, ids: Sequence[str]) -> int:
    _database_name, where, params = key
    total = 0
    for start in range(0, len(ids), CHUNK):
        part = list(ids[start:start + CHUNK])
        total += conn.execute(f"SELECT count(*) FROM assets a WHERE a.id IN "
                              f"({','.join('?' * len(part))}) AND {where}",
                              (*part, *params)).fetchone()[0]
    return total


def _database(conn: sqlite3.Connection) -> str:
    key = getattr(conn, "key", None)  # a studio library's database (`studio.pgconn`)
    if key is not None:
        return str(key)
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2])


COUNTS = LiveCounts()  # one per worker process; keys name the database file
