"""The asset text index: an FTS5 trigram index over `assets.search_text`, and free-text search.

Runs in the worker process (the writer installs it, reader threads query it). `search_text`
is the casefolded name, original name, notes, source URL, camera, lens and tags of an asset,
refreshed by every command that changes one of them (`assetrows.refresh_search_text`), tag renames,
merges and undo/redo included; triggers on that one column keep the index in step inside
the same transaction. A search word of 3+ characters is a substring match through the
index (trigrams: any script, any position); shorter words, and a SQLite without trigram
support (before 3.34, or built without FTS5), use the `LIKE` scan. Both give the same
answer: every word is a case-insensitive substring of some field. On a studio library
(PostgreSQL) every word is that `LIKE`, which the trigram GIN index over `search_text`
answers (`studio/pgschema.py`).

A library carried to a SQLite that cannot use the index keeps working: `ensure` drops the
triggers (writes stay possible) and search uses `LIKE`; back on a capable SQLite, `ensure`
puts the triggers back and rebuilds the index from `search_text`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

MIN_INDEXED = 3  # trigram: shorter words cannot be looked up in the index
DRIVE_LIMIT = 2000  # up to this many index matches, the page is read through the matches

_TRIGGERS = ("assets_fts_insert", "assets_fts_delete", "assets_fts_update")
_CREATE_TABLE = ("CREATE VIRTUAL TABLE IF NOT EXISTS assets_fts USING fts5(search_text, "
                 "content='assets', content_rowid='rowid', "
                 "tokenize='trigram case_sensitive 1')")
# `search_text` is casefolded already: the index matches it exactly (case_sensitive 1), as
# LIKE does on it. An asset table without INTEGER PRIMARY KEY keeps its rowids except
# through VACUUM, which Serpent never runs.
_CREATE_TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS assets_fts_insert AFTER INSERT ON assets BEGIN "
    "INSERT INTO assets_fts (rowid, search_text) VALUES (NEW.rowid, NEW.search_text); END",
    "CREATE TRIGGER IF NOT EXISTS assets_fts_delete AFTER DELETE ON assets BEGIN "
    "INSERT INTO assets_fts (assets_fts, rowid, search_text) "
    "VALUES ('delete', OLD.rowid, OLD.search_text); END",
    "CREATE TRIGGER IF NOT EXISTS assets_fts_update AFTER UPDATE OF search_text ON assets "
    "WHEN OLD.search_text IS NOT NEW.search_text BEGIN "
    "INSERT INTO assets_fts (assets_fts, rowid, search_text) "
    "VALUES ('delete', OLD.rowid, OLD.search_text); "
    "INSERT INTO assets_fts (rowid, search_text) VALUES (NEW.rowid, NEW.search_text); END",
)

_available: bool | None = None


def trigram_available() -> bool:
    """Whether this process's SQLite has FTS5 with the trigram tokenizer (3.34+)."""
    global _available
    if _available is None:
        _available = sqlite3.sqlite_version_info >= (3, 34, 0) and _probe()
    return _available


def _probe() -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='trigram')")
        return True
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def install(conn: sqlite3.Connection) -> None:
    """Create the index and its triggers and fill it (migration 4; inside its transaction).
    Does nothing on a SQLite without trigram support: `ensure` builds it on a later open."""
    if not trigram_available():
        return
    conn.execute(_CREATE_TABLE)
    for statement in _CREATE_TRIGGERS:
        conn.execute(statement)
    conn.execute("INSERT INTO assets_fts (assets_fts) VALUES ('rebuild')")


def ensure(conn: sqlite3.Connection, *, available: bool | None = None) -> str:
    """At open, before serving: make the index match what this SQLite can do. Returns
    "ready", "rebuilt" (it was missing or had been switched off), or "off"."""
    available = trigram_available() if available is None else available
    present = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)",
        _TRIGGERS)}
    if available and len(present) == len(_TRIGGERS):
        return "ready"
    if not available and not present:
        return "off"
    conn.execute("BEGIN IMMEDIATE")
    try:
        if available:
            install(conn)
        else:  # the index cannot be kept here: writes must not touch it
            for name in _TRIGGERS:
                conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return "rebuilt" if available else "off"


def indexed(conn: sqlite3.Connection) -> bool:
    """Whether the index is kept in step in this library (its triggers are there). A studio
    library has no FTS5: its `LIKE` conditions are served by a pg_trgm index instead."""
    if getattr(conn, "dialect", "sqlite") != "sqlite":
        return False
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                        (_TRIGGERS[0],)).fetchone() is not None


@dataclass
class TextMatch:
    """The SQL conditions (on `assets a`) that match a free-text search: `where` to read a
    page, `count_where` (the same rows) to count them once, and `like_where` (the same rows
    again, a `LIKE` per word) to test a few given assets, as a count followed across changes
    does (`livecounts`): membership in the index would look up every match each time."""

    where: list[str] = field(default_factory=list)
    params: list[object] = field(default_factory=list)
    count_where: list[str] = field(default_factory=list)
    count_params: list[object] = field(default_factory=list)
    like_where: list[str] = field(default_factory=list)
    like_params: list[object] = field(default_factory=list)
    fts_query: str | None = None  # the index query for the 3+ character words
    fts_count: int = 0  # how many assets (trash included) the index query matches ...
    fts_exact: bool = True  # ... exactly; else more than DRIVE_LIMIT (not counted further)
    short_params: list[object] = field(default_factory=list)  # words shorter than
    # MIN_INDEXED: their `LIKE` patterns (matched by LIKE only)

    def add(self, page: str, count: str, param: object) -> None:
        self.where.append(page)
        self.params.append(param)
        self.count_where.append(count)
        self.count_params.append(param)

    def total(self, conn: sqlite3.Connection, trashed: int) -> int | None:
        """The number of matches in or out of the trash when the text is the only filter,
        counted from the index (no asset rows read); None when that cannot be done. With
        short words too ("neon 12"), only the rows the index matches are read to test them
        (at 500,000 assets 111 ms against 190 ms for testing every row's membership)."""
        if self.fts_query is None:
            return None
        if self.short_params:
            return int(conn.execute(
                f"SELECT count(*) FROM assets a WHERE {_IN_INDEX} AND a.trashed = ? AND "
                f"{' AND '.join([_LIKE] * len(self.short_params))}",
                (self.fts_query, trashed, *self.short_params)).fetchone()[0])
        matches = self.fts_count if self.fts_exact else conn.execute(
            "SELECT count(*) FROM assets_fts WHERE assets_fts MATCH ?",
            (self.fts_query,)).fetchone()[0]
        other = conn.execute("SELECT n FROM asset_counts WHERE trashed = ?",
                             (1 - trashed,)).fetchone()[0]
        if other == 0:
            return int(matches)
        other_matches = conn.execute(
            f"SELECT count(*) FROM assets a WHERE a.trashed = ? AND +{_IN_INDEX}",
            (1 - trashed, self.fts_query)).fetchone()[0]
        return int(matches - other_matches)


_IN_INDEX = "a.rowid IN (SELECT rowid FROM assets_fts WHERE assets_fts MATCH ?)"
_LIKE = "a.search_text LIKE ? ESCAPE '\\'"


def match(conn: sqlite3.Connection, text: str) -> TextMatch:
    """Conditions for `text`: every whitespace-separated word is a case-insensitive
    substring of the asset's searchable text. Which way a page is read depends on how many
    assets the index matches, counted only up to DRIVE_LIMIT + 1 (a common word's full
    count is taken only when a total needs it, and then once: see `asset_search`)."""
    words = list(dict.fromkeys(text.casefold().split()))
    use_index = indexed(conn)
    found = TextMatch()
    for word in words:
        found.like_where.append(_LIKE)
        found.like_params.append(_like_pattern(word))
    long_words = [w for w in words if use_index and len(w) >= MIN_INDEXED]
    if long_words:
        query = " ".join('"' + w.replace('"', '""') + '"' for w in long_words)
        found.fts_query = query
        found.fts_count = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM assets_fts WHERE assets_fts MATCH ? "
            "LIMIT ?)", (query, DRIVE_LIMIT + 1)).fetchone()[0]
        found.fts_exact = found.fts_count <= DRIVE_LIMIT
    if long_words and found.fts_exact:
        # few matches: a page reads just them and sorts them
        found.add(_IN_INDEX, _IN_INDEX, found.fts_query)
    elif long_words:
        # many: a page walks the sort order and soon has its rows (LIKE on each);
        # counting tests membership in the matches along a covering index (`+`: SQLite must
        # not read every matching asset row), when the index count alone will not do
        for word in long_words:
            found.where.append(_LIKE)
            found.params.append(_like_pattern(word))
        found.count_where.append("+" + _IN_INDEX)
        found.count_params.append(found.fts_query)
    for word in words:
        if word not in long_words:
            pattern = _like_pattern(word)
            found.add(_LIKE, _LIKE, pattern)
            found.short_params.append(pattern)
    return found


def _like_pattern(word: str) -> str:
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
