"""Deleting a whole library folder from disk (`library.delete-from-disk`), in two halves.

Imported by both processes. In the worker, the confirmed command only *requests* the
deletion (`request`); when the worker closes (database closed, lock released) it moves the
folder aside in one rename to a hidden tombstone beside it (`retire`), so no half-deleted
library is ever left under its real name. The main process then removes the tombstone
(`remove_retired`), after the worker has gone. A crash between the rename and the removal
leaves the tombstone: the main process finishes it later (`leftover_tombstones` beside a
library it knew, then `remove_tombstone`). Only a real Serpent library folder is ever
removed, never through a link: the folder itself must not be a link or junction, its
`library.sqlite` must be a plain file, and links inside it are removed as links (their
targets are never touched).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import threading
from pathlib import Path

from library import pathrules
from library.errors import PATH_FORBIDDEN, PERMISSION_DENIED, LibraryError
from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX

_LIBRARY_ID = re.compile(r"lib_[0-9a-z]{1,64}")

_requested: dict[Path, str] = {}
_lock = threading.Lock()


def tombstone_for(root: Path, library_id: str) -> Path:
    return root.parent / f".{root.name}.deleting-{library_id}"


def check_deletable(root: Path) -> None:
    """Refuse anything but a real library folder (not a link, not a junction)."""
    try:
        status = os.lstat(root)
    except OSError:
        raise LibraryError(PERMISSION_DENIED, "The library folder cannot be reached.") \
            from None
    if pathrules.link_kind(status) is not None:
        raise LibraryError(PATH_FORBIDDEN, "This library was opened through a link; open the "
                           "real folder to delete it.")
    if not root.name.endswith(LIBRARY_SUFFIX) or not (root / DATABASE_NAME).is_file():
        raise LibraryError(PATH_FORBIDDEN, "This folder is not a Serpent library; it is not "
                           "deleted.")


# -- worker -------------------------------------------------------------------------------
def request(root: Path, library_id: str) -> None:
    """Delete `root` when this worker closes."""
    with _lock:
        _requested[root] = library_id


def requested(root: Path) -> str | None:
    with _lock:
        return _requested.get(root)


def retire(root: Path, library_id: str) -> None:
    """Move the closed library folder aside (one rename); the main process removes it."""
    check_deletable(root)
    os.replace(root, tombstone_for(root, library_id))


# -- main process ---------------------------------------------------------------------------
def remove_retired(root: Path, library_id: str) -> None:
    """Remove the tombstone of a deleted library. Raises PERMISSION_DENIED when the library
    is still there (the worker could not move it) or could not be removed completely."""
    tombstone = tombstone_for(root, library_id)
    if not tombstone.exists():
        if root.exists():
            raise LibraryError(PERMISSION_DENIED, "The library was closed, but its folder "
                               "could not be deleted (is it read-only or in use?).")
        return
    remove_tombstone(tombstone)


def leftover_tombstones(root: Path) -> list[tuple[Path, str]]:
    """Tombstones a crash left beside the library that was at `root`: exactly
    `.<root name>.deleting-<library id>`, real folders (not links) holding a library.sqlite
    file. Returns (tombstone, library id) pairs; nothing is followed or changed."""
    prefix = f".{root.name}.deleting-"
    found: list[tuple[Path, str]] = []
    try:
        with os.scandir(root.parent) as listing:
            entries = list(listing)
    except OSError:
        return found
    for entry in entries:
        library_id = entry.name[len(prefix):]
        if not entry.name.startswith(prefix) or not _LIBRARY_ID.fullmatch(library_id):
            continue
        try:
            check_deletable_tombstone(Path(entry.path))
        except (OSError, LibraryError):
            continue
        found.append((Path(entry.path), library_id))
    return found


def remove_tombstone(tombstone: Path) -> None:
    """Remove a deleted library's tombstone (checked again first). Raises PATH_FORBIDDEN for
    anything but a library folder, PERMISSION_DENIED when files could not be removed."""
    check_deletable_tombstone(tombstone)
    problems: list[str] = []
    if sys.version_info >= (3, 12):
        shutil.rmtree(tombstone, onexc=lambda _f, path, _e: problems.append(path))
    else:  # pragma: no cover - Python 3.11
        shutil.rmtree(tombstone, onerror=lambda _f, path, _e: problems.append(path))
    if problems or tombstone.exists():
        raise LibraryError(PERMISSION_DENIED, "The library was closed and moved aside, but "
                           f"{len(problems) or 'some'} of its files could not be deleted; "
                           f"they are in the hidden folder {tombstone.name}.")


def check_deletable_tombstone(tombstone: Path) -> None:
    status = os.lstat(tombstone)
    try:
        database = os.lstat(tombstone / DATABASE_NAME)
    except OSError:
        database = None
    if (pathrules.link_kind(status) is not None or not stat.S_ISDIR(status.st_mode)
            or database is None or not stat.S_ISREG(database.st_mode)):
        raise LibraryError(PATH_FORBIDDEN, "The folder set aside for deletion is not a "
                           "Serpent library; it is left alone.")
