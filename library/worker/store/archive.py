"""Library archives: write a `.zip` of a library folder (unpacking one: `unpacking.py`).

Runs in the worker process: `library.export` writes on the writer thread, so nothing changes
under it. Layout of an archive: `<Name>.serpent/...` (the library folder, its database a
consistent snapshot made with SQLite's backup API) and `serpent-export.json` (format, name,
when). `.lock`, `.staging`, the WAL side files and half-made thumbnails are never included.
The target is checked first: not inside a library, not a system folder (/proc, /sys, /dev),
a name every disk accepts; a folder that refuses the file is PERMISSION_DENIED or
PATH_INVALID, a full disk DISK_FULL, never INTERNAL. Privacy: each member carries its file's
permission bits, no more readable than the library folder, and the archive itself is readable
by others only when every member is; a sparse file is deflated, not stored.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import shutil
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from library import pathrules
from library.disk.durable import fsync_directory
from library.errors import (
    ALREADY_EXISTS,
    CANCELLED,
    PATH_FORBIDDEN,
    PATH_INVALID,
    PATH_NOT_FOUND,
    PERMISSION_DENIED,
    LibraryError,
)
from library.library_folder import DATABASE_NAME, STUDIO_NAME
from library.worker.store import diskspace
from library.worker.store.filestore import PRIVATE_FILE, SHARED_READ, stored_mode
from library.worker.store.identity import utc_now
from library.worker.store.layout import enclosing_library

MANIFEST = "serpent-export.json"
PARTIAL_SUFFIX = ".part"
FORMAT = 1
SKIPPED_TOP = {".lock", ".staging", f"{DATABASE_NAME}-wal", f"{DATABASE_NAME}-shm",
               f"{DATABASE_NAME}-journal", DATABASE_NAME,  # the database goes in as a snapshot
               STUDIO_NAME, ".machines",  # a studio library's: the archive is a local one
               ".before-studio"}  # the local database a studio library was moved in from
SKIPPED_DIRS = {("thumbs", ".tmp")}
COPY_CHUNK = 1024 * 1024
SPARSE_SLACK = 1024 * 1024  # fewer bytes allocated than this below its size: it has holes
STORED_TOP = {"files", "thumbs", ".orphans"}  # already compressed media: stored, not deflated


# -- writing ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    name: str  # inside the library folder, with forward slashes
    path: Path
    size: int
    mode: int = PRIVATE_FILE  # its permission bits on disk
    sparse: bool = False  # it has holes: deflated, so the archive holds no megabytes of zeros


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
                entries.append(Entry("/".join((*parts, name)), path, status.st_size,
                                     stat.S_IMODE(status.st_mode), _sparse(status)))
    return entries


def _sparse(status: os.stat_result) -> bool:
    blocks = getattr(status, "st_blocks", None)
    return blocks is not None and blocks * 512 < status.st_size - SPARSE_SLACK


def archive_mode(readable: int, entries: list[Entry]) -> int:
    """The archive file's permission bits: its owner's, and read for group or others only
    where the library folder and every file in it allow it (a private file keeps the
    archive private)."""
    shared = readable & SHARED_READ
    for entry in entries:
        shared &= entry.mode
    return PRIVATE_FILE | shared


def _member_info(entry: Entry, arcname: str, readable: int, compress: int) -> zipfile.ZipInfo:
    """The member's record: the file's time and its permission bits, no more readable than
    the file nor than the library folder."""
    info = zipfile.ZipInfo.from_file(entry.path, arcname)
    mode = stored_mode(entry.mode & (readable | ~SHARED_READ))
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = compress
    return info


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
    pathrules.validate_entry_name(target.name, field="targetPath")
    real_parent = Path(os.path.realpath(target.parent))
    if pathrules.is_system_path(real_parent):
        raise LibraryError(PATH_FORBIDDEN, "An archive cannot be written into a system folder "
                           "(/proc, /sys, /dev); choose a folder of yours.", field="targetPath")
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


def write_archive(target: Path, temporary: Path, top: str, snapshot: Entry,
                  entries: list[Entry], manifest: dict[str, object], *,
                  cancelled: Callable[[], bool], progress: Callable[[int, str], None],
                  readable: int = SHARED_READ) -> int:
    """Write the archive under `temporary` (see `partial_path`), make it durable, then
    rename it to `target`. Returns its size. Raises LibraryError(CANCELLED) when cancelled
    (nothing is left behind). `readable`: the library folder's group/other read bits; no
    member, and not the archive, is more readable than the folder or its own file."""
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     archive_mode(readable, [snapshot, *entries]))
        created = os.fdopen(fd, "wb")  # closed by the ZipFile below
    except OSError as error:
        raise _cannot_write(error, target) from error
    try:
        with created, zipfile.ZipFile(created, "w", allowZip64=True) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, indent=1),
                             compress_type=zipfile.ZIP_DEFLATED)
            _add(archive, snapshot, _member_info(snapshot, f"{top}/{DATABASE_NAME}", readable,
                                                 zipfile.ZIP_DEFLATED))
            for index, entry in enumerate(entries):
                if cancelled():
                    raise LibraryError(CANCELLED, "The export was cancelled; no archive was "
                                       "written.")
                stored = entry.name.split("/", 1)[0] in STORED_TOP and not entry.sparse
                try:
                    _add(archive, entry, _member_info(
                        entry, f"{top}/{entry.name}", readable,
                        zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED))
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
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if diskspace.is_disk_full(error):
            raise diskspace.disk_full_at(target.parent, where="the disk of targetPath",
                                         field="targetPath") from error
        raise
    return target.stat().st_size


def _add(archive: zipfile.ZipFile, entry: Entry, info: zipfile.ZipInfo) -> None:
    with open(entry.path, "rb") as source, archive.open(info, "w", force_zip64=True) as out:
        shutil.copyfileobj(source, out, COPY_CHUNK)


def _cannot_write(error: OSError, target: Path) -> LibraryError:
    """Why the archive file could not even be created, as the stable code it deserves."""
    if diskspace.is_disk_full(error):
        return diskspace.disk_full_at(target.parent, where="the disk of targetPath",
                                      field="targetPath")
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return LibraryError(PERMISSION_DENIED, "Serpent may not write into that folder (it is "
                            "read-only or belongs to someone else).", field="targetPath",
                            reason="not-writable")
    return LibraryError(PATH_INVALID, f"No archive can be written there "
                        f"({error.strerror or 'refused by the system'}).", field="targetPath",
                        reason="not-writable")


def manifest_for(library_id: str, name: str, schema_version: int) -> dict[str, object]:
    return {"format": FORMAT, "app": "Serpent", "libraryId": library_id, "name": name,
            "schemaVersion": schema_version, "exportedAt": utc_now()}
