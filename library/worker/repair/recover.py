"""`library.repair`: a new library beside a damaged one, made of what can still be read.

Runs in the worker process, at the start of a worker started with the `repair` action (it
then opens the new library). The damaged library is never written: its database (with its
WAL) is copied into the new library's hidden building folder and read from the copy
(`salvage`), its stored files are hard-linked (or copied, on another disk) into the new store.
Tables are carried over by column name; what is derived or tied to the old library is made
anew (counts, the text index, the undo history, request ids, tasks). Stored files whose
record was lost become assets again ("Recovered …", in a folder "Recovered files"), so no
picture is left out. The new library is `<Name> (recovered).serpent` (or `(recovered 2)`...),
gets a fresh id, and its first opening checks it whole (integrity and every file).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

from library import pathrules
from library.disk.durable import fsync_directory
from library.errors import ALREADY_EXISTS, PATH_FORBIDDEN, PATH_NOT_FOUND, LibraryError
from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX
from library.worker.files import media
from library.worker.repair import salvage
from library.worker.rows import assetrows
from library.worker.store import diskspace, schema
from library.worker.store.database import connect, translate
from library.worker.store.filestore import PRIVATE_FOLDER, create_buckets
from library.worker.store.identity import new_id, new_library_id, utc_now
from library.worker.store.layout import Layout, enclosing_library

NOT_CARRIED = frozenset({  # made anew, or meaningless in another library
    "schema_migrations", "asset_counts", "change_log", "idempotency", "requests", "history",
    "history_items", "tasks"})
FIRST = ("tags", "folders", "assets")  # what other tables point at
STORED_NAME = re.compile(r"^[0-9a-f]{64}(\.[a-z0-9]{1,16})?$")
ACTOR = json.dumps({"source": "system", "credential": None, "label": "Serpent (repair)"})
RECOVERED_FOLDER = "Recovered files"


def repair_library(path_text: str) -> tuple[Path, dict[str, Any]]:
    """Make the new library from the damaged one at `path_text`; returns its folder and the
    report of what was recovered."""
    damaged = Layout(_damaged_root(path_text))
    parent = damaged.root.parent
    base = damaged.root.name[:-len(LIBRARY_SUFFIX)]
    final = _free_name(parent, f"{base} (recovered)")
    database_bytes = sum(_size(damaged.database.with_name(DATABASE_NAME + tail))
                         for tail in ("", "-wal"))
    diskspace.ensure_room(parent, 2 * database_bytes, where="the disk of the library")
    building = parent / f".{final.name}.repairing-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    try:
        layout = _new_layout(building)
        writer = connect(layout.database)
        try:
            assetrows.register_functions(writer)
            schema.check_and_migrate(writer, layout.database, fresh=True)
            report = _carry_rows(damaged, layout, writer, final.name[:-len(LIBRARY_SUFFIX)])
            report.update(_carry_files(damaged, layout, writer))
            _finish(writer)
        finally:
            writer.close()
        if final.exists():
            raise LibraryError(ALREADY_EXISTS, f"{final.name} appeared meanwhile; try again.",
                               field="path")
        os.replace(building, final)
        fsync_directory(parent)
    except sqlite3.Error as error:
        shutil.rmtree(building, ignore_errors=True)
        raise translate(error) from error
    except BaseException as error:
        shutil.rmtree(building, ignore_errors=True)
        if isinstance(error, OSError) and diskspace.is_disk_full(error):
            raise diskspace.disk_full_at(parent, where="the disk of the library") from error
        raise
    report["damagedPath"] = str(damaged.root)
    return final, report


def _damaged_root(path_text: str) -> Path:
    root = Path(os.path.realpath(pathrules.parse_user_path(path_text, field="path")))
    if not root.is_dir():
        raise LibraryError(PATH_NOT_FOUND, "There is no library folder at that path.",
                           field="path", reason="missing")
    try:  # the database itself, never what a link points at
        regular = stat.S_ISREG(os.lstat(root / DATABASE_NAME).st_mode)
    except OSError:
        regular = False
    if not root.name.endswith(LIBRARY_SUFFIX) or not regular:
        raise LibraryError(PATH_NOT_FOUND, "This folder is not a Serpent library (it has no "
                           "library.sqlite to recover from).", field="path",
                           reason="not-a-library")
    if pathrules.is_system_path(root) or enclosing_library(root.parent) is not None:
        raise LibraryError(PATH_FORBIDDEN, "A library there cannot be repaired.", field="path")
    return root


def _free_name(parent: Path, name: str) -> Path:
    for candidate in [name, *(f"{name[:-1]} {n})" for n in range(2, 100))]:
        path = parent / f"{candidate}{LIBRARY_SUFFIX}"
        if not path.exists() and not path.is_symlink():
            return path
    raise LibraryError(ALREADY_EXISTS, "Too many recovered copies of this library are there.",
                       field="path")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _new_layout(building: Path) -> Layout:
    building.mkdir(PRIVATE_FOLDER)
    layout = Layout(building)
    for directory in layout.directories():
        directory.mkdir(PRIVATE_FOLDER)
    create_buckets(layout.files)
    return layout


def _carry_rows(damaged: Layout, layout: Layout, writer: sqlite3.Connection,
                name: str) -> dict[str, Any]:
    """Every table's readable rows, from a copy of the damaged database (never itself)."""
    copy = layout.staging / "damaged.sqlite"
    for tail in ("", "-wal"):
        source = damaged.database.with_name(DATABASE_NAME + tail)
        if source.is_file():
            shutil.copyfile(source, copy.with_name(copy.name + tail))
    tables: dict[str, salvage.TableReport] = {}
    state: dict[str, Any] | None = None
    try:
        old = sqlite3.connect(copy, isolation_level=None)
        with contextlib.suppress(sqlite3.DatabaseError):  # the WAL into the copy's pages
            old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = salvage.Pages.of(copy, old)
        try:
            old.row_factory = sqlite3.Row
            present = _tables_of(old) or list(pages.roots)
            state = (_state_of(old) if "library_state" in present else None) \
                or salvage.state_row(pages)
            wanted = [t for t in _tables_of(writer) if t not in NOT_CARRIED
                      and t != "library_state" and not t.startswith("assets_fts")]
            order = [t for t in FIRST if t in wanted] + sorted(set(wanted) - set(FIRST))
            writer.execute("PRAGMA foreign_keys = OFF")
            writer.execute("BEGIN IMMEDIATE")
            for table in order:
                if table in present or not present:
                    tables[table] = salvage.copy_table(old, writer, table, pages)
            dropped = salvage.drop_dangling(writer)
            _new_state(writer, state, name)
            writer.execute("COMMIT")
            writer.execute("PRAGMA foreign_keys = ON")
        finally:
            old.close()
            pages.file.close()
    finally:
        for tail in ("", "-wal", "-shm", "-journal"):
            copy.with_name(copy.name + tail).unlink(missing_ok=True)
    lost = [t for t, r in tables.items() if r.unreadable or r.damaged_spots]
    return {"tables": {t: r.as_json() for t, r in tables.items()}, "rowsDropped": dropped,
            "complete": state is not None and not lost and not any(
                r.dropped for r in tables.values()),
            "tablesWithLosses": lost, "stateRecovered": state is not None}


def _tables_of(conn: sqlite3.Connection) -> list[str]:
    """The tables SQLite lists (none when its list itself cannot be read)."""
    try:
        return [str(r[0]) for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    except sqlite3.DatabaseError:
        return []


def _state_of(old: sqlite3.Connection) -> dict[str, Any] | None:
    try:
        row = old.execute("SELECT name, created_at, change_sequence FROM library_state"
                          ).fetchone()
    except sqlite3.DatabaseError:
        return None
    return dict(row) if row is not None else None


def _new_state(writer: sqlite3.Connection, state: dict[str, Any] | None, name: str) -> None:
    """The new library's own row: a fresh id, the folder's name, checked whole when opened."""
    created = str(state["created_at"]) if state is not None else utc_now()
    sequence = state["change_sequence"] if state is not None else 0
    writer.execute("INSERT INTO library_state (singleton, library_id, name, created_at, "
                   "change_sequence, schema_major, clean_shutdown) VALUES (1, ?, ?, ?, ?, ?, 0)",
                   (new_library_id(), name, created,
                    sequence if isinstance(sequence, int) else 0, schema.SCHEMA_MAJOR))


def _carry_files(damaged: Layout, layout: Layout, writer: sqlite3.Connection
                 ) -> dict[str, Any]:
    """The damaged store's files into the new one (hard links where the disk allows, else
    copies); files no recovered record points at become assets again."""
    linked = copied = 0
    names: list[str] = []
    if damaged.files.is_dir():
        for bucket in sorted(os.scandir(damaged.files), key=lambda e: e.name):
            if not bucket.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(bucket.path):
                if not (STORED_NAME.match(entry.name) and entry.name[:2] == bucket.name
                        and entry.is_file(follow_symlinks=False)):
                    continue
                target = layout.files / bucket.name / entry.name
                try:
                    os.link(entry.path, target)
                    linked += 1
                except OSError as error:
                    if error.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK,
                                           errno.ENOTSUP):
                        raise
                    shutil.copy2(entry.path, target)
                    copied += 1
                names.append(entry.name)
    adopted = _adopt(writer, layout, names)
    return {"filesLinked": linked, "filesCopied": copied, "filesAdopted": adopted}


def _adopt(writer: sqlite3.Connection, layout: Layout, names: list[str]) -> int:
    """Assets for the stored files no record points at, in the folder "Recovered files"."""
    known = {str(r[0]) for r in writer.execute("SELECT sha256 FROM assets")}
    orphans = [n for n in names if n[:64] not in known]
    if not orphans:
        return 0
    now = utc_now()
    rows = []
    for name in orphans:
        sha256, _, ext = name.partition(".")
        path = layout.files / name[:2] / name
        facts = (media.probe_image(path, ext) if media.kind_of(ext) == "image"
                 else media.NO_FACTS)
        title = f"Recovered {sha256[:8]}"
        rows.append(assetrows.new_asset_row(new_id("ast"), title, f"{title}.{ext}" if ext
                                            else title, ext, path.stat().st_size, sha256,
                                            facts, now, ACTOR))
    writer.execute("BEGIN IMMEDIATE")
    try:
        folder = writer.execute("SELECT id FROM folders WHERE parent_id IS NULL AND name = ?",
                                (RECOVERED_FOLDER,)).fetchone()
        folder_id = folder[0] if folder is not None else new_id("fld")
        if folder is None:
            writer.execute("INSERT INTO folders (id, name, parent_id, created_at) "
                           "VALUES (?, ?, NULL, ?)", (folder_id, RECOVERED_FOLDER, now))
        assetrows.insert_assets(writer, rows)
        writer.executemany("INSERT INTO asset_folders (asset_id, folder_id) VALUES (?, ?)",
                           [(row[0], folder_id) for row in rows])
        writer.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            writer.execute("ROLLBACK")
        raise
    return len(rows)


def _finish(writer: sqlite3.Connection) -> None:
    """Counts kept by triggers counted again; every asset analysed again in the background;
    the database checkpointed, so the folder moves into place complete."""
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE asset_counts SET n = (SELECT count(*) FROM assets "
                   "WHERE assets.trashed = asset_counts.trashed)")
    writer.execute("UPDATE tags SET live_count = (SELECT count(*) FROM asset_tags at JOIN "
                   "assets a ON a.id = at.asset_id WHERE at.tag_id = tags.id "
                   "AND a.trashed = 0)")
    count = writer.execute("SELECT count(*) FROM assets WHERE trashed = 0").fetchone()[0]
    if count:
        writer.execute(
            "INSERT INTO tasks (id, kind, status, params, total, message, actor, created_at) "
            "VALUES (?, 'analysis', 'queued', ?, ?, ?, ?, ?)",
            (new_id("tsk"), json.dumps({"force": False, "all": True}), count,
             "Queued when this library was repaired.", ACTOR, utc_now()))
    writer.execute("COMMIT")
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
