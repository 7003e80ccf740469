"""Library archives: write a `.zip` of a library folder, and unpack one into a new library.

Runs in the worker process: `library.export` writes (on the writer thread, so nothing
changes under it), and a worker started with the `import` action unpacks before it opens
the result, so the main process never opens a library's SQLite file. Layout of an archive:
`<Name>.serpent/...` (the library folder, its database a consistent snapshot made with
SQLite's backup API) and `serpent-export.json` (format, name, when). `.lock`, `.staging`,
the WAL side files and half-made thumbnails are never included.

Unpacking trusts nothing in the archive: absolute names, `..`, drive letters, backslashes,
links and special files are refused (PATH_FORBIDDEN) before anything is written; the files
go into a hidden folder beside the target and only a complete, checked library is renamed
into place; the copy gets a fresh library id, so it opens beside the original.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sqlite3
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from library import pathrules
from library.durable import fsync_directory
from library.errors import (
    ALREADY_EXISTS,
    CANCELLED,
    INTERNAL,
    PATH_FORBIDDEN,
    PATH_NOT_FOUND,
    UNSUPPORTED_FORMAT,
    LibraryError,
)
from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX
from library.worker.store.identity import new_library_id, utc_now
from library.worker.store.layout import enclosing_library
from library.worker.store.schema import SCHEMA_MAJOR

MANIFEST = "serpent-export.json"
PARTIAL_SUFFIX = ".part"
FORMAT = 1
SKIPPED_TOP = {".lock", ".staging", f"{DATABASE_NAME}-wal", f"{DATABASE_NAME}-shm",
               f"{DATABASE_NAME}-journal", DATABASE_NAME}  # the database goes in as a snapshot
SKIPPED_DIRS = {("thumbs", ".tmp")}
STORED_TOP = {"files", "thumbs", ".orphans"}  # already compressed media: stored, not deflated
_DRIVE = re.compile(r"^[A-Za-z]:")


# -- writing ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    name: str  # inside the library folder, with forward slashes
    path: Path
    size: int


def library_entries(root: Path) -> list[Entry]:
    """Every regular file of the library folder that belongs in an archive (links are
    never followed or included)."""
    entries: list[Entry] = []
    for directory, subdirs, files in os.walk(root, followlinks=False):
        relative = Path(directory).relative_to(root)
        parts = relative.parts
        subdirs[:] = sorted(d for d in subdirs
                            if not (not parts and d in SKIPPED_TOP)
                            and (*parts, d)[-2:] not in SKIPPED_DIRS
                            and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(files):
            if not parts and (name in SKIPPED_TOP or name.endswith(".bak")):
                continue
            path = Path(directory) / name
            status = os.lstat(path)
            if stat.S_ISREG(status.st_mode):
                entries.append(Entry("/".join((*parts, name)), path, status.st_size))
    return entries


def export_target(text: str, library_root: Path, library_name: str) -> Path:
    """Where the archive goes: `text` as given (`.zip` added when missing), or
    `<Name>.zip` inside it when it is a folder. Never inside a library."""
    target = Path(pathrules.parse_user_path(text, field="targetPath"))
    if target.is_dir():
        target = target / f"{pathrules.safe_disk_name(library_name)}.zip"
    elif target.suffix.lower() != ".zip":
        target = target.with_name(target.name + ".zip")
    if not target.parent.is_dir():
        raise LibraryError(PATH_NOT_FOUND, "The folder for the archive does not exist.",
                           field="targetPath")
    real_parent = Path(os.path.realpath(target.parent))
    if (pathrules.resolves_into(target.parent, library_root)
            or enclosing_library(real_parent) is not None):
        raise LibraryError(PATH_FORBIDDEN, "The archive cannot be written inside a library "
                           "folder; choose a place outside it.", field="targetPath")
    if target.exists() or target.is_symlink():
        raise LibraryError(ALREADY_EXISTS, f"{target.name} already exists there; choose "
                           "another name.", field="targetPath")
    return target


def partial_path(target: Path) -> Path:
    """The hidden name an archive is written under until it is complete."""
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")


def remove_partial(path: Path) -> None:
    """Remove an archive left half-written by a crash (only a file named like ours)."""
    if path.name.startswith(".") and path.name.endswith(PARTIAL_SUFFIX) and \
            path.is_file() and not path.is_symlink():
        path.unlink(missing_ok=True)


def write_archive(target: Path, temporary: Path, top: str, snapshot: Path,
                  entries: list[Entry], manifest: dict[str, object], *,
                  cancelled: Callable[[], bool], progress: Callable[[int, str], None]) -> int:
    """Write the archive under `temporary` (see `partial_path`), make it durable, then
    rename it to `target`. Returns its size. Raises LibraryError(CANCELLED) when cancelled
    (nothing is left behind)."""
    try:
        with zipfile.ZipFile(temporary, "x", allowZip64=True) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, indent=1),
                             compress_type=zipfile.ZIP_DEFLATED)
            archive.write(snapshot, f"{top}/{DATABASE_NAME}",
                          compress_type=zipfile.ZIP_DEFLATED)
            for index, entry in enumerate(entries):
                if cancelled():
                    raise LibraryError(CANCELLED, "The export was cancelled; no archive was "
                                       "written.")
                stored = entry.name.split("/", 1)[0] in STORED_TOP
                try:
                    archive.write(entry.path, f"{top}/{entry.name}",
                                  compress_type=zipfile.ZIP_STORED if stored
                                  else zipfile.ZIP_DEFLATED)
                except FileNotFoundError:
                    continue  # a thumbnail replaced meanwhile: derived, rebuilt on demand
                progress(index + 1, entry.name)
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        if target.exists():
            raise LibraryError(ALREADY_EXISTS, f"{target.name} appeared while exporting; "
                               "choose another name.", field="targetPath")
        os.replace(temporary, target)
        fsync_directory(target.parent)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target.stat().st_size


# -- unpacking --------------------------------------------------------------------------------
def unpack_library(archive_text: str, parent_text: str) -> Path:
    """Unpack an exported library into a new folder inside `parent_text`; returns it."""
    archive_path = Path(pathrules.parse_user_path(archive_text, field="archivePath"))
    parent = Path(pathrules.parse_user_path(parent_text, field="selectedParentPath"))
    if not archive_path.is_file():
        raise LibraryError(PATH_NOT_FOUND, "There is no archive at that path.",
                           field="archivePath")
    if not parent.is_dir():
        raise LibraryError(PATH_NOT_FOUND, "The folder for the library does not exist.",
                           field="selectedParentPath")
    if enclosing_library(Path(os.path.realpath(parent))) is not None:
        raise LibraryError(PATH_FORBIDDEN, "A library cannot be unpacked inside another "
                           "library.", field="selectedParentPath")
    try:
        with zipfile.ZipFile(archive_path) as archive:
            top, members = _checked_members(archive)
            needed = sum(info.file_size for info in members)
            if needed > shutil.disk_usage(parent).free:
                raise LibraryError(INTERNAL, "There is not enough free disk space to unpack "
                                   "this library.", reason="disk-full")
            final = _free_name(parent, top[:-len(LIBRARY_SUFFIX)])
            building = parent / f".{final.name}.importing-{os.getpid()}"
            shutil.rmtree(building, ignore_errors=True)
            building.mkdir()
            try:
                for info in members:
                    _extract(archive, info, building, top)
                _adopt(building / DATABASE_NAME)
                os.replace(building, final)
                fsync_directory(parent)
            except BaseException:
                shutil.rmtree(building, ignore_errors=True)
                raise
    except zipfile.BadZipFile:
        raise LibraryError(UNSUPPORTED_FORMAT, "This is not a Serpent library archive (or it "
                           "is damaged).", field="archivePath") from None
    return final


def _checked_members(archive: zipfile.ZipFile) -> tuple[str, list[zipfile.ZipInfo]]:
    """The library folder's name in the archive and its file members; every name checked."""
    tops: set[str] = set()
    files: list[zipfile.ZipInfo] = []
    for info in archive.infolist():
        name = info.filename
        parts = _safe_parts(name)
        kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
        if kind == stat.S_IFLNK:
            raise _forbidden(f"The archive contains a link ({name}); links are not unpacked.")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise _forbidden(f"The archive contains a special file ({name}).")
        if parts == [MANIFEST]:
            continue
        tops.add(parts[0])
        if not info.is_dir():
            if len(parts) < 2:
                raise _not_a_library()
            files.append(info)
    if len(tops) != 1:
        raise _not_a_library()
    top = tops.pop()
    if not top.endswith(LIBRARY_SUFFIX) or pathrules.name_problem(top) is not None:
        raise _not_a_library()
    if not any(info.filename == f"{top}/{DATABASE_NAME}" for info in files):
        raise _not_a_library()
    return top, files


def _safe_parts(name: str) -> list[str]:
    if "\\" in name or "\x00" in name or name.startswith("/") or _DRIVE.match(name):
        raise _forbidden(f"The archive contains an unsafe path ({name!r}).")
    parts = [p for p in PurePosixPath(name).parts]
    if not parts or any(p in ("..", ".", "") for p in parts) or name.startswith("./"):
        raise _forbidden(f"The archive contains an unsafe path ({name!r}).")
    return parts


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, building: Path, top: str) -> None:
    relative = info.filename[len(top) + 1:]
    destination = building / relative
    if not pathrules.is_within(destination, building):
        raise _forbidden(f"The archive contains an unsafe path ({info.filename!r}).")
    destination.parent.mkdir(parents=True, exist_ok=True)
    with archive.open(info) as source, open(destination, "xb") as out:
        shutil.copyfileobj(source, out, 1024 * 1024)  # the CRC is checked at the end


def _adopt(database: Path) -> None:
    """Give the unpacked library a new identity and have its first opening check every file."""
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
        conn.execute("DELETE FROM idempotency")  # retries belong to the original
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


def manifest_for(library_id: str, name: str, schema_version: int) -> dict[str, object]:
    return {"format": FORMAT, "app": "Serpent", "libraryId": library_id, "name": name,
            "schemaVersion": schema_version, "exportedAt": utc_now()}


def _forbidden(message: str) -> LibraryError:
    return LibraryError(PATH_FORBIDDEN, message, field="archivePath")


def _not_a_library() -> LibraryError:
    return LibraryError(UNSUPPORTED_FORMAT, "This archive does not hold a Serpent library.",
                        field="archivePath", reason="not-a-library")
