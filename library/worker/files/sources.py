"""What an import takes from disk: the given files, the files of given folders (walked in a
stable order), the library folder each one goes into, and what is skipped and why.

Runs in the worker process (reads the disk only; the writer thread of `file.import`). Every
file of a walked folder gets an answer: a `Candidate` to import, or a skipped item with its
reason (hidden files, the operating system's clutter files). A hidden folder, a link to a
folder, or a Serpent library inside the walked folder is one skipped item (its files are
not looked at). With `keep_folder_tree`, a file's `folder` is the path of names from the
given folder down to the file's own folder (`("refs", "faces")`); otherwise None (the
import's folderId). A file met twice (given twice, or through a link) is imported once: its
real path is its folder's, resolved once per walked folder, joined with its name (a file
that is itself a link is resolved on its own).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from library import pathrules, private_paths
from library.errors import PATH_FORBIDDEN, PATH_NOT_FOUND, LibraryError
from library.library_folder import holds_library
from library.schemas import FileImportIn, ImportItem
from library.worker.rows.folderrows import disk_name
from library.worker.store.layout import enclosing_library

SYSTEM_FILES = {"thumbs.db", "desktop.ini", "icon\r", ".ds_store", "ehthumbs.db"}


@dataclass
class Candidate:
    shown: str  # the path as reported back
    path: Path
    folder: tuple[str, ...] | None = None  # library folder names under the import's folder


def expand(args: FileImportIn, library_root: Path,
           items: list[ImportItem]) -> list[Candidate]:
    """Files to import, in a stable order; problems and skipped files become `items`."""
    candidates: list[Candidate] = []
    seen: set[str] = set()
    private = private_paths.current()
    for given in args.source_paths:
        try:
            path = Path(pathrules.parse_user_path(given))
        except LibraryError as problem:
            items.append(ImportItem(source_path=given, status="failed", error_code=problem.code,
                                    error=problem.message))
            continue
        if not path.exists():
            items.append(ImportItem(source_path=given, status="failed",
                                    error_code=PATH_NOT_FOUND, error="Nothing is at this path."))
            continue
        resolved = path.resolve()
        refused = private.refusal(path)
        if refused is not None:
            items.append(ImportItem(source_path=given, status="failed",
                                    error_code=PATH_FORBIDDEN, error=refused.message))
            continue
        if enclosing_library(resolved) or resolved == library_root.resolve():
            items.append(ImportItem(source_path=given, status="failed",
                                    error_code=PATH_FORBIDDEN,
                                    error="Files inside a Serpent library cannot be imported."))
            continue
        if path.is_dir():
            top = (disk_name(resolved.name or str(resolved)),) if args.keep_folder_tree \
                else None
            _walk(path, top, args.recursive, candidates, items, lambda key: _new(key, seen),
                  private)
        elif _new(str(resolved), seen):
            candidates.append(Candidate(given, path))
    return candidates


def _walk(root: Path, top: tuple[str, ...] | None, recursive: bool,
          candidates: list[Candidate], items: list[ImportItem],
          new: Callable[[str], bool], private: private_paths.PrivateFolders) -> None:
    """The files of `root` and (`recursive`) its folders, top-down in name order, as
    `os.walk` without following links; a folder that cannot be listed is passed over. A
    file's own real path (for `new`) is its folder's, resolved once per folder, and its
    name, unless the file is a link."""
    pending = [(root, os.path.realpath(root), top)]
    while pending:
        here, real_here, folder = pending.pop()
        try:
            with os.scandir(here) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        subfolders = []
        for entry in entries:
            if not _is_dir(entry):
                continue
            path = here / entry.name
            reason = _skipped_folder(path, private) if recursive else None
            if reason is not None:
                items.append(_skipped(path, *reason))
                if reason[0] == "private":  # refused, as when given directly
                    items[-1].error_code = PATH_FORBIDDEN
            elif recursive:
                subfolders.append((path, os.path.join(real_here, entry.name),
                                   None if folder is None else (*folder, disk_name(entry.name))))
        for entry in entries:
            if _is_dir(entry):
                continue
            name = entry.name
            file_path = here / name
            reason = _skipped_file(name)
            if reason is not None:
                items.append(_skipped(file_path, *reason))
            elif new(os.path.realpath(file_path) if entry.is_symlink()
                     else os.path.join(real_here, name)):
                candidates.append(Candidate(str(file_path), file_path, folder))
        pending.extend(reversed(subfolders))  # the first in name order is walked next


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """As `os.walk` sorts entries: a folder, or a link to one (links are skipped later)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _skipped_folder(path: Path, private: private_paths.PrivateFolders
                    ) -> tuple[str, str] | None:
    if path.name.startswith("."):
        return "hidden", "A hidden folder: its files are not imported."
    if path.is_symlink():
        return "link", "A link to another folder: it is not followed."
    if holds_library(path):
        return "library", "A Serpent library: import its archive or open it instead."
    if private.is_private_folder(path):
        return "private", "Serpent's own folder (settings, credentials, logs): not imported."
    return None


def _skipped_file(name: str) -> tuple[str, str] | None:
    if name.lower() in SYSTEM_FILES:
        return "system-file", "A file the operating system keeps (not a picture of yours)."
    if name.startswith("."):
        return "hidden", "A hidden file."
    return None


def _skipped(path: Path, reason: str, message: str) -> ImportItem:
    return ImportItem(source_path=str(path), status="skipped", reason=reason,  # type: ignore[arg-type]
                      error=message)


def _new(key: str, seen: set[str]) -> bool:
    """Whether the file whose real path is `key` is met for the first time."""
    if key in seen:
        return False
    seen.add(key)
    return True
