"""The library database schema: numbered migrations, recorded in `schema_migrations`.

Runs in the worker process. Each migration belongs to a schema *major* version; a database
that recorded a migration of a newer major version than this build knows is refused (it was
written by a newer Serpent). Newer minor migrations of the same major are additive, so an
older build still opens the library. Before migrating an existing database, a backup copy
is written beside it. To add a migration: append a `Migration` to `MIGRATIONS` (SQL, and/or
`run` for a step that depends on what this SQLite can do).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from library.errors import UNSUPPORTED_FORMAT, LibraryError
from library.worker.rows import assetrows, tagfold, textindex
from library.worker.store import schema_history
from library.worker.store.identity import new_id, utc_now

SCHEMA_MAJOR = 1


@dataclass(frozen=True)
class Migration:
    number: int
    major: int
    name: str
    sql: str
    run: Callable[[sqlite3.Connection], None] | None = None  # after `sql`, same transaction


_INITIAL = """
CREATE TABLE library_state (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    library_id TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    change_sequence INTEGER NOT NULL DEFAULT 0,
    schema_major INTEGER NOT NULL,
    clean_shutdown INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE assets (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    original_name TEXT NOT NULL,
    ext TEXT NOT NULL,
    kind TEXT NOT NULL,
    mime TEXT NOT NULL,
    format TEXT,
    size INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    sha256 TEXT NOT NULL UNIQUE,
    rating INTEGER NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5),
    notes TEXT NOT NULL DEFAULT '',
    source_url TEXT,
    added_at TEXT NOT NULL,
    modified_at TEXT NOT NULL,
    trashed INTEGER NOT NULL DEFAULT 0,
    trashed_at TEXT,
    missing INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    added_by TEXT NOT NULL,
    modified_by TEXT NOT NULL,
    import_key TEXT,
    search_text TEXT NOT NULL DEFAULT ''
);
CREATE INDEX assets_by_added ON assets (trashed, added_at, id);
CREATE INDEX assets_by_name ON assets (trashed, name COLLATE NOCASE, id);
CREATE INDEX assets_by_rating ON assets (trashed, rating, id);
CREATE INDEX assets_by_size ON assets (trashed, size, id);
CREATE INDEX assets_by_modified ON assets (trashed, modified_at, id);
CREATE INDEX assets_by_ext ON assets (trashed, ext);
CREATE INDEX assets_by_kind ON assets (trashed, kind);

-- How many assets are in and out of the trash, kept by triggers: the grid's unfiltered
-- total without counting 100,000 index entries per page.
CREATE TABLE asset_counts (trashed INTEGER PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO asset_counts (trashed, n) VALUES (0, 0), (1, 0);
CREATE TRIGGER assets_counted_insert AFTER INSERT ON assets BEGIN
    UPDATE asset_counts SET n = n + 1 WHERE trashed = NEW.trashed;
END;
CREATE TRIGGER assets_counted_delete AFTER DELETE ON assets BEGIN
    UPDATE asset_counts SET n = n - 1 WHERE trashed = OLD.trashed;
END;
CREATE TRIGGER assets_counted_trash AFTER UPDATE OF trashed ON assets
WHEN OLD.trashed IS NOT NEW.trashed BEGIN
    UPDATE asset_counts SET n = n - 1 WHERE trashed = OLD.trashed;
    UPDATE asset_counts SET n = n + 1 WHERE trashed = NEW.trashed;
END;

CREATE TABLE tags (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL
);

CREATE TABLE asset_tags (
    asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (asset_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX asset_tags_by_tag ON asset_tags (tag_id, asset_id);

CREATE TABLE folders (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id TEXT REFERENCES folders (id) ON DELETE RESTRICT,
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX folders_unique_name ON folders (COALESCE(parent_id, ''), name COLLATE NOCASE);

CREATE TABLE asset_folders (
    asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    folder_id TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    PRIMARY KEY (asset_id, folder_id)
) WITHOUT ROWID;
CREATE INDEX asset_folders_by_folder ON asset_folders (folder_id, asset_id);

CREATE TABLE collections (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    smart INTEGER NOT NULL DEFAULT 0,
    rules TEXT,
    position INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL
);

CREATE TABLE collection_assets (
    collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (collection_id, asset_id)
) WITHOUT ROWID;
CREATE INDEX collection_assets_by_asset ON collection_assets (asset_id);

CREATE TABLE change_log (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    command TEXT NOT NULL,
    source TEXT NOT NULL,
    credential TEXT,
    label TEXT NOT NULL,
    kinds TEXT NOT NULL,
    entity_ids TEXT NOT NULL
);

CREATE TABLE idempotency (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    command TEXT NOT NULL,
    result TEXT NOT NULL,
    change_sequence INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, key)
) WITHOUT ROWID;

CREATE TABLE history (
    id INTEGER PRIMARY KEY,
    command TEXT NOT NULL,
    summary TEXT NOT NULL,
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('done', 'undone')),
    change_sequence INTEGER NOT NULL
);

CREATE TABLE history_items (
    entry_id INTEGER NOT NULL REFERENCES history (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    before_state TEXT,
    after_state TEXT NOT NULL,
    before_version INTEGER,
    after_version INTEGER,
    PRIMARY KEY (entry_id, kind, entity_id)
) WITHOUT ROWID;
"""

# Background tasks (analysis; refresh and export while they run) and what analysis found.
# A task row survives a worker restart: queued work resumes from its checkpoint.
_TASKS_AND_ANALYSIS = """
CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled',
                                           'interrupted')),
    params TEXT NOT NULL DEFAULT '{}',
    checkpoint TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER,
    message TEXT NOT NULL DEFAULT '',
    error_code TEXT,
    result TEXT,
    actor TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
);
CREATE INDEX tasks_by_status ON tasks (status, created_at, id);
CREATE INDEX tasks_by_created ON tasks (created_at, id);

CREATE TABLE asset_analysis (
    asset_id TEXT PRIMARY KEY REFERENCES assets (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('done', 'unsupported', 'failed')),
    phash INTEGER,
    palette TEXT,
    analyser INTEGER NOT NULL,
    analysed_at TEXT NOT NULL
) WITHOUT ROWID;
"""

# Linked folders: a folder on disk whose files are imported into a library folder, and the
# files seen there (by path relative to it, with the size and time they had when copied).
_LINKED_FOLDERS = """
CREATE TABLE linked_folders (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    folder_id TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    rules TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('connected', 'missing')),
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    last_refreshed_at TEXT
);
CREATE INDEX linked_folders_by_folder ON linked_folders (folder_id);

CREATE TABLE linked_files (
    linked_folder_id TEXT NOT NULL REFERENCES linked_folders (id) ON DELETE CASCADE,
    relative_path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    asset_id TEXT REFERENCES assets (id) ON DELETE SET NULL,
    PRIMARY KEY (linked_folder_id, relative_path)
) WITHOUT ROWID;
CREATE INDEX linked_files_by_asset ON linked_files (asset_id);
"""

# How many assets outside the trash carry each tag, kept by triggers so `tag.list` (the
# sidebar, after every change) reads 2,000 counts instead of counting 100,000 assets' links.
# Every path that changes the count goes through SQL these triggers see: a link added or
# removed (tag, untag, merge, delete, undo/redo, import), an asset trashed or restored, an
# asset deleted for good (counted off *before* the row goes: the cascade that removes its
# links runs after the row is gone and can no longer tell whether it was in the trash).
_TAG_COUNTS = """
ALTER TABLE tags ADD COLUMN live_count INTEGER NOT NULL DEFAULT 0;
UPDATE tags SET live_count = (SELECT count(*) FROM asset_tags at JOIN assets a
                              ON a.id = at.asset_id WHERE at.tag_id = tags.id AND a.trashed = 0);
CREATE TRIGGER tags_counted_link AFTER INSERT ON asset_tags
WHEN (SELECT trashed FROM assets WHERE id = NEW.asset_id) = 0 BEGIN
    UPDATE tags SET live_count = live_count + 1 WHERE id = NEW.tag_id;
END;
CREATE TRIGGER tags_counted_unlink AFTER DELETE ON asset_tags
WHEN (SELECT trashed FROM assets WHERE id = OLD.asset_id) = 0 BEGIN
    UPDATE tags SET live_count = live_count - 1 WHERE id = OLD.tag_id;
END;
CREATE TRIGGER tags_counted_relink AFTER UPDATE ON asset_tags BEGIN
    UPDATE tags SET live_count = live_count - 1 WHERE id = OLD.tag_id
        AND (SELECT trashed FROM assets WHERE id = OLD.asset_id) = 0;
    UPDATE tags SET live_count = live_count + 1 WHERE id = NEW.tag_id
        AND (SELECT trashed FROM assets WHERE id = NEW.asset_id) = 0;
END;
CREATE TRIGGER tags_counted_trash AFTER UPDATE OF trashed ON assets
WHEN OLD.trashed IS NOT NEW.trashed BEGIN
    UPDATE tags SET live_count = live_count + (CASE WHEN NEW.trashed = 0 THEN 1 ELSE 0 END)
                                            - (CASE WHEN OLD.trashed = 0 THEN 1 ELSE 0 END)
    WHERE id IN (SELECT tag_id FROM asset_tags WHERE asset_id = NEW.id);
END;
CREATE TRIGGER tags_counted_asset_delete BEFORE DELETE ON assets
WHEN OLD.trashed = 0 BEGIN
    UPDATE tags SET live_count = live_count - 1
    WHERE id IN (SELECT tag_id FROM asset_tags WHERE asset_id = OLD.id);
END;
"""

# Sorts fall back to import order (rowid: assets are inserted in the order they are imported,
# and Serpent never VACUUMs) instead of the random part of the id, so assets imported together,
# which share one added_at, stay in order. Every index ends with the rowid, so these serve
# `ORDER BY <key>, a.rowid` without sorting.
_SORT_TIES_IN_IMPORT_ORDER = """
DROP INDEX assets_by_added;
DROP INDEX assets_by_name;
DROP INDEX assets_by_rating;
DROP INDEX assets_by_size;
DROP INDEX assets_by_modified;
CREATE INDEX assets_by_added ON assets (trashed, added_at);
CREATE INDEX assets_by_name ON assets (trashed, name COLLATE NOCASE);
CREATE INDEX assets_by_rating ON assets (trashed, rating);
CREATE INDEX assets_by_size ON assets (trashed, size);
CREATE INDEX assets_by_modified ON assets (trashed, modified_at);
"""

# What analysis learns beyond the palette: the picture's facts as displayed (EXIF orientation
# applied to width/height, date taken, camera, lens) and why a file shows no picture
# (`problem`); each palette colour in CIELAB, so colour search runs in SQL; the similarity
# signature (a second perceptual hash of the picture's centre, its mean CIELAB colour and how
# much detail it has). Tag names get their full Unicode case folding (`tags.folded`, filled
# and de-duplicated by `tagfold.merge_folded`): SQLite's NOCASE folds ASCII only. A linked
# folder's disk subfolders are mirrored by library folders (`linked_dirs`, by the subfolder's
# path relative to the linked folder; the linked folder itself is `linked_folders.folder_id`).
_FACTS_COLOURS_FOLDING = """
ALTER TABLE assets ADD COLUMN taken_at TEXT;
ALTER TABLE assets ADD COLUMN camera TEXT;
ALTER TABLE assets ADD COLUMN lens TEXT;
ALTER TABLE assets ADD COLUMN problem TEXT;
CREATE INDEX assets_by_taken ON assets (trashed, taken_at);

ALTER TABLE asset_analysis ADD COLUMN phash_centre INTEGER;
ALTER TABLE asset_analysis ADD COLUMN mean_l REAL;
ALTER TABLE asset_analysis ADD COLUMN mean_a REAL;
ALTER TABLE asset_analysis ADD COLUMN mean_b REAL;
ALTER TABLE asset_analysis ADD COLUMN detail REAL;

CREATE TABLE asset_colors (
    asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    color TEXT NOT NULL,
    ratio REAL NOT NULL,
    l REAL NOT NULL,
    a REAL NOT NULL,
    b REAL NOT NULL,
    hue REAL NOT NULL,
    PRIMARY KEY (asset_id, position)
) WITHOUT ROWID;
CREATE INDEX asset_colors_by_lab ON asset_colors (l, a, b);

ALTER TABLE tags ADD COLUMN folded TEXT;

CREATE TABLE linked_dirs (
    linked_folder_id TEXT NOT NULL REFERENCES linked_folders (id) ON DELETE CASCADE,
    relative_dir TEXT NOT NULL,
    folder_id TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    PRIMARY KEY (linked_folder_id, relative_dir)
) WITHOUT ROWID;
CREATE INDEX linked_dirs_by_folder ON linked_dirs (folder_id);
"""

# Files that are not plain pictures (`library.media`): how long a video or sound lasts, a
# document's pages, the codec, a font's family and style; SVG, Illustrator and EPS files are
# their own kind, `vector`. Analysis keeps the hashes that find turned, mirrored and cropped
# copies (`asset_analysis.hashes`). Text found in an asset (in a picture, by a plugin's
# analyser such as the built-in `ocr-text`) is kept per source and searched with the rest of
# its text.
_MEDIA_AND_FOUND_TEXT = """
ALTER TABLE assets ADD COLUMN duration REAL;
ALTER TABLE assets ADD COLUMN pages INTEGER;
ALTER TABLE assets ADD COLUMN codec TEXT;
ALTER TABLE assets ADD COLUMN font_family TEXT;
ALTER TABLE assets ADD COLUMN font_style TEXT;
CREATE INDEX assets_by_duration ON assets (trashed, duration);
ALTER TABLE asset_analysis ADD COLUMN hashes BLOB;

CREATE TABLE asset_texts (
    asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    text TEXT NOT NULL,
    found_at TEXT NOT NULL,
    PRIMARY KEY (asset_id, source)
) WITHOUT ROWID;

CREATE TABLE analyser_runs (
    asset_id TEXT NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
    analyser TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'skipped', 'failed')),
    at TEXT NOT NULL,
    PRIMARY KEY (asset_id, analyser)
) WITHOUT ROWID;

UPDATE assets SET kind = 'vector' WHERE ext IN ('svg', 'svgz', 'ai', 'eps');
UPDATE assets SET kind = 'video' WHERE ext = 'ogv';
UPDATE assets SET kind = 'font' WHERE ext = 'otc';
"""

MIGRATIONS: list[Migration] = [
    Migration(1, 1, "initial library schema", _INITIAL),
    Migration(2, 1, "background tasks and asset analysis", _TASKS_AND_ANALYSIS),
    Migration(3, 1, "linked folders", _LINKED_FOLDERS),
    # FTS5 trigram index over assets.search_text (`textindex`); on a SQLite without trigram
    # support nothing is created here and `textindex.ensure` builds it on a later open.
    Migration(4, 1, "asset text index", "", run=textindex.install),
    Migration(5, 1, "tag counts kept by triggers", _TAG_COUNTS),
    Migration(6, 1, "sort ties in import order", _SORT_TIES_IN_IMPORT_ORDER),
    Migration(7, 1, "image facts, palette colours, similarity, folded tag names",
              _FACTS_COLOURS_FOLDING, run=lambda conn: _after_facts(conn)),
    Migration(8, 1, "video, sound, font and document facts; vector kind; found text",
              _MEDIA_AND_FOUND_TEXT, run=lambda conn: _after_media(conn)),
    Migration(9, 1, "history barriers", schema_history.HISTORY_BARRIERS),
    Migration(10, 1, "request ledger", schema_history.REQUEST_LEDGER),
    Migration(11, 1, "change log: background work", schema_history.CHANGE_LOG_TASK_KIND),
]
LATEST = MIGRATIONS[-1].number


def _after_facts(conn: sqlite3.Connection) -> None:
    """Migration 6: fold tag names; queue analysis of every asset, so a library made before
    gets sizes as displayed, dates taken, cameras and palettes in CIELAB by itself."""
    assetrows.refresh_search_text(conn, tagfold.merge_folded(conn), media=False)
    count = conn.execute("SELECT count(*) FROM assets WHERE trashed = 0").fetchone()[0]
    if count:
        conn.execute(
            "INSERT INTO tasks (id, kind, status, params, total, message, actor, created_at) "
            "VALUES (?, 'analysis', 'queued', ?, ?, ?, ?, ?)",
            (new_id("tsk"), json.dumps({"force": False, "all": True}), count,
             "Queued when this library was updated to the new format.",
             json.dumps({"source": "system", "credential": None, "label": "Serpent"}),
             utc_now()))


def _after_media(conn: sqlite3.Connection) -> None:
    """Migration 8: the assets a reader of `library.media` takes (SVG, video, sound, font,
    PDF) were analysed as unsupported: analyse them again, so their facts, previews and
    palettes come by themselves."""
    from library.media.readers import READER_BY_EXT

    exts = sorted(READER_BY_EXT)
    ids = [row[0] for row in conn.execute(
        f"SELECT id FROM assets WHERE trashed = 0 AND ext IN ({','.join('?' * len(exts))}) "
        f"ORDER BY id", exts)]
    if not ids:
        return
    conn.executemany("DELETE FROM asset_analysis WHERE asset_id = ?", [(i,) for i in ids])
    conn.execute(
        "INSERT INTO tasks (id, kind, status, params, total, message, actor, created_at) "
        "VALUES (?, 'analysis', 'queued', ?, ?, ?, ?, ?)",
        (new_id("tsk"), json.dumps({"force": False, "assetIds": ids}), len(ids),
         "Queued when this library was updated to the new format.",
         json.dumps({"source": "system", "credential": None, "label": "Serpent"}),
         utc_now()))


def _applied(conn: sqlite3.Connection) -> dict[int, int]:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND "
                          "name='schema_migrations'").fetchone()
    if not exists:
        return {}
    return dict(conn.execute("SELECT number, major FROM schema_migrations").fetchall())


def check_and_migrate(conn: sqlite3.Connection, database: Path, *, fresh: bool) -> int:
    """Bring the schema up to date; returns the schema version (newest migration number).

    Refuses a database written by a newer major version with UNSUPPORTED_FORMAT.
    """
    applied = _applied(conn)
    newest_major = max(applied.values(), default=SCHEMA_MAJOR)
    if newest_major > SCHEMA_MAJOR:
        raise LibraryError(
            UNSUPPORTED_FORMAT,
            f"This library was made by a newer version of Serpent (library format "
            f"{newest_major}, this Serpent reads format {SCHEMA_MAJOR}). Update Serpent to "
            f"open it.", reason="newer-schema", schemaMajor=newest_major)
    pending = [m for m in MIGRATIONS if m.number not in applied]
    if pending and applied and not fresh:
        backup = database.with_name(f"{database.name}.before-v{pending[0].number}.bak")
        with sqlite3.connect(backup) as target:
            conn.backup(target)
        target.close()
    for migration in pending:  # the connection is in autocommit mode: explicit transactions
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (number INTEGER "
                         "PRIMARY KEY, major INTEGER NOT NULL, name TEXT NOT NULL, "
                         "applied_at TEXT NOT NULL)")
            for statement in _statements(migration.sql):
                conn.execute(statement)
            if migration.run is not None:
                migration.run(conn)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, ?, ?)",
                         (migration.number, migration.major, migration.name, utc_now()))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return max([*applied, *(m.number for m in pending)])


def _statements(sql: str) -> list[str]:
    """Split a migration script at statement ends (complete_statement keeps it honest)."""
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
