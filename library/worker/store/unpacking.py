"""Unpacking a `library.export` archive into a new library, trusting nothing in it.

Runs in the worker process, at the start of a worker started with the `import` action (it
then opens what it unpacked). Absolute names, `..`, drive letters, backslashes, names no disk
accepts, links and special files are refused (PATH_FORBIDDEN); encrypted entries, unknown
compression methods, duplicate entries and a name that is both a file and a folder are refused
(UNSUPPORTED_FORMAT with a `reason`) before anything is written, so such archives fail at
once. Everything goes into a hidden folder beside the target and only a complete, checked
library is renamed into place; it gets a fresh library id, so it opens beside the original.
An archive too big for the disk is DISK_FULL before the first byte is written. The new library
is owner-only, its files no more readable than they were in the archive nor than the archive
file itself, and a megabyte of zeros is left as a hole (a sparse file comes back sparse).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sqlite3
import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from library import pathrules, private_paths
from library.disk.durable import fsync_directory
from library.errors import (
    ALREADY_EXISTS,
    PATH_FORBIDDEN,
    PATH_NOT_FOUND,
    UNSUPPORTED_FORMAT,
    LibraryError,
)
from library.idempotency import IMPORT_COMMAND, IMPORT_REPLAYED, check_stored
from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX
from library.worker.store import diskspace, requests
from library.worker.store.archive import MANIFEST
from library.worker.store.filestore import (
    PRIVATE_FOLDER,
    SHARED_READ,
    NotARegularFile,
    SourceUnreadable,
    open_regular,
    stored_mode,
)
from library.worker.store.identity import new_library_id, utc_now
from library.worker.store.layout import enclosing_library
from library.worker.store.schema import SCHEMA_MAJOR

READABLE_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2,
                              zipfile.ZIP_LZMA})
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)
COPY_CHUNK = 1024 * 1024
ZERO_CHUNK = bytes(COPY_CHUNK)
WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")


def unpack_library(archive_text: str, parent_text: str,
                   replay: dict[str, str] | None = None) -> Path:
    """Unpack an exported library into a new folder inside `parent_text`; returns it.

    `replay` ({"scope", "key", "digest"}): the caller's idempotency key. A library in
    `parent_text` that an earlier call with this key made is not made again (see
    `find_replay`); the new library keeps the key in its own idempotency table, written
    before the folder gets its final name, so a crash never leaves a made library unknown.
    """
    archive_path = Path(pathrules.parse_user_path(archive_text, field="archivePath"))
    parent = Path(pathrules.parse_user_path(parent_text, field="selectedParentPath"))
    if not archive_path.exists():
        raise LibraryError(PATH_NOT_FOUND, "There is no archive at that path.",
                           field="archivePath")
    private_paths.check_source(archive_path, field="archivePath")
    if not archive_path.is_file():
        raise _unsupported("This is not a file (a folder, pipe or device), so it is not a "
                           "library archive.", "not-a-file")
    if not parent.is_dir():
        raise LibraryError(PATH_NOT_FOUND, "The folder for the library does not exist.",
                           field="selectedParentPath")
    parent = Path(os.path.realpath(parent))  # no `..` left: SQLite reads paths itself
    if pathrules.is_system_path(parent):
        raise LibraryError(PATH_FORBIDDEN, "A library cannot be unpacked into a system folder "
                           "(/proc, /sys, /dev).", field="selectedParentPath")
    if enclosing_library(parent) is not None:
        raise LibraryError(PATH_FORBIDDEN, "A library cannot be unpacked inside another "
                           "library.", field="selectedParentPath")
    if replay is not None:
        found = find_replay(parent, replay)
        if found is not None:
            raise LibraryError(ALREADY_EXISTS, "This import was already done with this "
                               "idempotencyKey.", reason=IMPORT_REPLAYED, path=str(found))
    try:
        with _open_archive(archive_path) as raw, zipfile.ZipFile(raw) as archive:
            readable = os.fstat(raw.fileno()).st_mode & SHARED_READ  # the archive's own
            top, members = _checked_members(archive)
            needed = sum(info.file_size for info in members)
            diskspace.ensure_room(parent, needed, where="the disk of selectedParentPath",
                                  field="selectedParentPath")
            final = _free_name(parent, top[:-len(LIBRARY_SUFFIX)])
            building = parent / f".{final.name}.importing-{os.getpid()}"
            shutil.rmtree(building, ignore_errors=True)
            try:
                building.mkdir(PRIVATE_FOLDER)
                for info in members:
                    _extract(archive, info, building, top, readable)
                _adopt(building / DATABASE_NAME, replay)
                os.replace(building, final)
                fsync_directory(parent)
            except BaseException:
                shutil.rmtree(building, ignore_errors=True)
                raise
    except DAMAGED:
        raise _unsupported("This is not a Serpent library archive (or it is damaged).",
                           "damaged") from None
    except OSError as error:
        if diskspace.is_disk_full(error):
            raise diskspace.disk_full_at(parent, where="the disk of selectedParentPath",
                                         field="selectedParentPath") from error
        raise
    return final


def find_replay(parent: Path, replay: dict[str, str]) -> Path | None:
    """The library in `parent` that an import with this idempotency key already made.

    The same key with other arguments is INVALID_ARGUMENT. Libraries are read with their
    own read-only connection; one that cannot be read is skipped."""
    try:
        candidates = sorted(p for p in parent.iterdir()
                            if p.name.endswith(LIBRARY_SUFFIX) and not p.name.startswith("."))
    except OSError:
        return None
    for folder in candidates[:MAX_REPLAY_SCAN]:
        database = folder / DATABASE_NAME
        if not database.is_file():
            continue
        try:
            conn = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=5)
            try:
                stored = requests.command_of_key(conn, replay["scope"], replay["key"])
            finally:
                conn.close()
        except sqlite3.Error:
            continue
        if stored is None:
            continue
        check_stored(stored, IMPORT_COMMAND, replay["digest"], replay["key"])
        return folder
    return None


MAX_REPLAY_SCAN = 200


def _open_archive(path: Path) -> io.BufferedReader:
    """The archive, opened without ever blocking (a FIFO swapped in is refused)."""
    try:
        return open_regular(path)
    except (NotARegularFile, SourceUnreadable):
        raise _unsupported("This file cannot be read as a library archive.",
                           "unreadable") from None


def _checked_members(archive: zipfile.ZipFile) -> tuple[str, list[zipfile.ZipInfo]]:
    """The library folder's name in the archive and its file members; every name checked,
    and everything that would stop the unpacking half-way refused before it starts."""
    tops: set[str] = set()
    files: list[zipfile.ZipInfo] = []
    seen: set[str] = set()
    folders: set[str] = set()
    for info in archive.infolist():
        name = info.filename
        parts = _safe_parts(name)
        kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
        if kind == stat.S_IFLNK:
            raise _forbidden(f"The archive contains a link ({name}); links are not unpacked.")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise _forbidden(f"The archive contains a special file ({name}).")
        if info.flag_bits & 0x1:
            raise _unsupported(f"The archive entry {name!r} is encrypted; Serpent archives "
                               "never are.", "encrypted")
        if info.compress_type not in READABLE_METHODS:
            raise _unsupported(f"The archive entry {name!r} uses a compression method Serpent "
                               f"cannot read (method {info.compress_type}).", "compression")
        key = "/".join(pathrules.collision_key(p) for p in parts)
        if key in seen:
            raise _unsupported(f"The archive holds {name!r} twice.", "duplicate-entry")
        seen.add(key)
        if parts == [MANIFEST]:
            continue
        tops.add(parts[0])
        if info.is_dir():
            folders.add(key)
            continue
        if len(parts) < 2:
            raise _not_a_library()
        files.append(info)
        folders.update("/".join(pathrules.collision_key(p) for p in parts[:n])
                       for n in range(1, len(parts)))
    clash = next((f.filename for f in files
                  if "/".join(pathrules.collision_key(p) for p in _safe_parts(f.filename))
                  in folders), None)
    if clash is not None:
        raise _unsupported(f"The archive holds {clash!r} both as a file and as a folder.",
                           "file-folder-clash")
    if len(tops) != 1:
        raise _not_a_library()
    top = tops.pop()
    if not top.endswith(LIBRARY_SUFFIX) or pathrules.name_problem(top) is not None:
        raise _not_a_library()
    if not any(info.filename == f"{top}/{DATABASE_NAME}" for info in files):
        raise _not_a_library()
    return top, files


def _safe_parts(name: str) -> list[str]:
    if "\\" in name or "\x00" in name or name.startswith("/") or WINDOWS_DRIVE.match(name):
        raise _forbidden(f"The archive contains an unsafe path ({name!r}).")
    parts = [p for p in PurePosixPath(name).parts]
    if not parts or any(p in ("..", ".", "") for p in parts) or name.startswith("./"):
        raise _forbidden(f"The archive contains an unsafe path ({name!r}).")
    if any(pathrules.name_problem(p) is not None for p in parts):
        raise _forbidden(f"The archive contains a name no disk accepts everywhere ({name!r}).")
    return parts


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, building: Path, top: str,
             readable: int) -> None:
    """One member, no more readable than it was (its own mode bits, where the archive has
    them) nor than the archive file; runs of zeros become holes, as they were sparse."""
    relative = info.filename[len(top) + 1:]
    destination = building / relative
    if not pathrules.is_within(destination, building):
        raise _forbidden(f"The archive contains an unsafe path ({info.filename!r}).")
    _make_folders(destination.parent, building)
    member_mode = (info.external_attr >> 16) & 0o777 if info.create_system == 3 else 0
    mode = stored_mode((member_mode or 0o644) & (readable | ~SHARED_READ))
    fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 mode)
    with archive.open(info) as source, open(fd, "wb") as out:
        while True:
            try:
                chunk = source.read(COPY_CHUNK)  # the CRC is checked at the end
            except OSError:
                raise _unsupported("The archive could not be read to its end.",
                                   "unreadable") from None
            if not chunk:
                break
            if len(chunk) == COPY_CHUNK and chunk == ZERO_CHUNK:
                out.seek(COPY_CHUNK, os.SEEK_CUR)  # a hole: nothing written
            else:
                out.write(chunk)
        out.truncate(out.tell())  # ends in a hole: the file keeps its full length


def _make_folders(folder: Path, building: Path) -> None:
    """`folder` and the folders up to `building`, each owner-only."""
    missing = []
    while folder != building and not folder.is_dir():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(PRIVATE_FOLDER, exist_ok=True)


def _adopt(database: Path, replay: dict[str, str] | None = None) -> None:
    """Give the unpacked library a new identity and have its first opening check every file;
    keep the caller's idempotency key (see `find_replay`)."""
    try:
        conn = sqlite3.connect(database, isolation_level=None)
    except sqlite3.Error:
        raise _not_a_library() from None
    try:
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise LibraryError(UNSUPPORTED_FORMAT, "The library database in the archive is "
                               "damaged.", field="archivePath")
        newest = conn.execute("SELECT max(major) FROM schema_migrations").fetchone()[0]
        if newest is not None and newest > SCHEMA_MAJOR:
            raise LibraryError(UNSUPPORTED_FORMAT, "This archive was made by a newer version "
                               "of Serpent; update Serpent to unpack it.", field="archivePath",
                               reason="newer-schema")
        conn.execute("BEGIN IMMEDIATE")
        changed = conn.execute("UPDATE library_state SET library_id = ?, clean_shutdown = 0",
                               (new_library_id(),)).rowcount
        if changed != 1:
            raise _not_a_library()
        if replay is None:  # retries belong to the original
            requests.start_over(conn)
        else:
            requests.start_over(conn, replay["scope"], replay["key"],
                                f"{IMPORT_COMMAND}#{replay['digest']}", utc_now())
        conn.execute("COMMIT")
    except sqlite3.Error:
        raise _not_a_library() from None
    finally:
        conn.close()


def _free_name(parent: Path, name: str) -> Path:
    """`<name>.serpent`, or `<name> (copy).serpent`, `<name> (copy 2).serpent`... if taken."""
    candidates = [name, f"{name} (copy)", *(f"{name} (copy {n})" for n in range(2, 100))]
    for candidate in candidates:
        path = parent / f"{candidate}{LIBRARY_SUFFIX}"
        if not path.exists() and not path.is_symlink():
            return path
    raise LibraryError(ALREADY_EXISTS, "Too many copies of this library are in that folder.",
                       field="selectedParentPath")


def _forbidden(message: str) -> LibraryError:
    return LibraryError(PATH_FORBIDDEN, message, field="archivePath")


def _unsupported(message: str, reason: str) -> LibraryError:
    return LibraryError(UNSUPPORTED_FORMAT, message, field="archivePath", reason=reason)


def _not_a_library() -> LibraryError:
    return LibraryError(UNSUPPORTED_FORMAT, "This archive does not hold a Serpent library.",
                        field="archivePath", reason="not-a-library")
