"""Moving a local library onto a studio server (`library.move-to-studio`): its rows into an
empty PostgreSQL database, `studio.json` beside them, the local file set aside.

Runs in the worker process, on the writer thread of the local library (a task: nothing
changes while it copies). The library stays in its own folder (files, previews and orphans
are already the store a studio library uses): what changes is where its rows live. The
switch is the database's commit, made after `studio.json` is in place; a failure or a cancel
before it removes `studio.json` and leaves the database empty and the library local. The
worker then stops and the folder opens again as a studio library, which sets the local
database aside in `.before-studio/` (kept, never deleted; `set_aside_local_database`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from library.errors import INVALID_ARGUMENT, UNSUPPORTED_FORMAT, LibraryError
from library.library_folder import DATABASE_NAME
from library.worker.store.database import translate_os
from library.worker.store.filestore import PRIVATE_FOLDER
from library.worker.store.identity import utc_now
from library.worker.studio import casefold, pgschema, studiofile
from library.worker.studio.make_and_open import machine_name, refuse_used
from library.worker.studio.pgconn import PgConnection, StudioDatabaseError, problem_of
from library.worker.studio.transfer import copy_rows

SET_ASIDE = ".before-studio"  # where the local database goes, inside the library's folder
Progress = Callable[[str, int], None]  # (table, rows copied so far); raises to cancel


def refuse_unmovable(conn: Any, kind: str) -> None:
    """What the move cannot take yet, asked before anything is written."""
    if kind == "studio":
        raise LibraryError(INVALID_ARGUMENT, "This library is a studio library already.",
                           reason="already-studio")
    linked = conn.execute("SELECT count(*) FROM linked_folders").fetchone()[0]
    if linked:
        raise LibraryError(UNSUPPORTED_FORMAT, f"This library has {linked} linked "
                           f"folder{'s' if linked != 1 else ''} (folders on this computer's "
                           "disk), which a studio library cannot hold yet: unlink them first.",
                           reason="linked-folders", linkedFolders=linked)


def move_rows(source: Any, root: Path, uri: str, machine: str | None, task_id: str,
              progress: Progress, person: str | None = None) -> dict[str, int]:
    """Copy every row of `source` (the local library's writer, inside no transaction) into
    the empty database `uri`, write `studio.json`, and commit: the library is a studio
    library from that commit on. Returns rows per table. The history's changes are marked
    as made on this machine (and by `person`, the one moving it, where no person is known):
    they are this person's to undo, as undo is per person on a studio library."""
    uri = studiofile.check_uri(uri)
    name = machine_name(machine)
    try:
        target = PgConnection.open(uri, reader=False, key=studiofile.database_key(uri),
                                   application=f"Serpent {name}", machine=name)
    except StudioDatabaseError as error:
        raise error.problem from error
    studio_file = root / "studio.json"
    try:
        refuse_used(target.raw)
        library_id = source.execute("SELECT library_id FROM library_state").fetchone()[0]
        target.execute("BEGIN")
        pgschema.install(target.raw, casefold.function_sql(target.raw))
        copied = copy_rows(source, target, progress)
        _made_here(target, name, person)
        # The local library still records the move's end (its task's last writes) after
        # this copy, and its callers are told that sequence: the studio library begins past
        # it, so no change sequence is handed out twice (a client would take the studio's
        # first change for one it had seen).
        target.execute("UPDATE library_state SET change_sequence = change_sequence + ?",
                       (SEQUENCE_GAP,))
        # its own task row, copied while running: done once the commit below is
        target.execute("UPDATE tasks SET status = 'done', done = coalesce(total, done), "
                       "message = 'Moved to the studio server', finished_at = ? "
                       "WHERE id = ?", (utc_now(), task_id))
        target.execute("UPDATE library_state SET clean_shutdown = 1")
        studiofile.write(studio_file, uri, library_id)
        target.execute("COMMIT")  # the switch
        return copied
    except BaseException as error:
        studio_file.unlink(missing_ok=True)
        with contextlib.suppress(Exception):  # a lost connection: the server rolled back
            target.execute("ROLLBACK")
        if isinstance(error, StudioDatabaseError):
            raise error.problem from error
        if isinstance(error, psycopg.Error):
            raise problem_of(error) from error
        if isinstance(error, OSError):
            raise translate_os(error, "The library folder") from error
        raise
    finally:
        target.close()


SEQUENCE_GAP = 100  # more than the local library writes after the copy (a few task updates)


def _made_here(target: Any, machine: str, person: str | None) -> None:
    for row in target.execute("SELECT id, actor FROM history").fetchall():
        actor = json.loads(row[1])
        marked = {**actor, "machine": actor.get("machine") or machine}
        if person and not actor.get("person"):
            marked["person"] = person
        if marked != actor:
            target.execute("UPDATE history SET actor = ? WHERE id = ?",
                           (json.dumps(marked), row[0]))


def unfinished_move(root: Path) -> bool:
    """A folder holding both `studio.json` and the local database whose studio database has
    no library: a move stopped (its worker killed) between writing `studio.json` and its
    commit. `studio.json` is taken away: the library is the local one, as it was. Left as it
    is when that cannot be known (the server cannot be reached)."""
    studio_file = root / "studio.json"
    if not (root / DATABASE_NAME).is_file() or not studio_file.is_file():
        return False
    try:
        uri = studiofile.read(studio_file)["database"]
        with psycopg.connect(uri, connect_timeout=10) as raw:
            row = raw.execute("SELECT to_regclass('library_state')").fetchone()
    except (psycopg.Error, LibraryError):
        return False
    if row is None or row[0] is not None:
        return False
    studio_file.unlink(missing_ok=True)
    return True


def set_aside_local_database(root: Path) -> Path | None:
    """A studio library's folder that still has the local database it was moved from:
    the file (and its journal files) into `.before-studio/`; returns where, or None."""
    database = root / DATABASE_NAME
    if not database.exists():
        return None
    aside = root / SET_ASIDE
    try:
        aside.mkdir(PRIVATE_FOLDER, exist_ok=True)
        for suffix in ("-wal", "-shm", "-journal", ""):
            part = root / f"{DATABASE_NAME}{suffix}"
            if part.exists():
                os.replace(part, aside / part.name)
    except OSError as error:  # tried again at the next open; the studio library works
        logging.getLogger("library.worker").warning("the local database the library was "
                                                    "moved from stays in place: %s", error)
        return None
    return aside / DATABASE_NAME
