"""Which files of a linked disk folder belong to the library: the rules, and the scan.

Runs in the worker process (pure functions plus reading the disk folder; any thread).
Patterns are shell globs matched case-insensitively against the file's path relative to the
linked folder (with `/`), against that path with a leading `/`, and against its name, so
`*.png`, `refs/*` and `*/old/*` all do what they look like. Hidden files and folders, links,
the OS's clutter files and Serpent libraries inside the folder are never taken.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from library.library_folder import holds_library
from library.schemas import LinkedFolderRules
from library.worker.files import media

SKIP_NAMES = {"thumbs.db", "desktop.ini", "icon\r", ".ds_store"}


@dataclass(frozen=True)
class DiskFile:
    relative: str  # with forward slashes
    path: Path
    size: int
    mtime_ns: int


def _matches(relative: str, patterns: list[str]) -> bool:
    lowered = relative.lower()
    name = lowered.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(candidate, pattern.lower())
               for pattern in patterns for candidate in (lowered, "/" + lowered, name))


def wanted(relative: str, rules: LinkedFolderRules) -> bool:
    if rules.include and not _matches(relative, rules.include):
        return False
    if rules.exclude and _matches(relative, rules.exclude):
        return False
    if rules.kinds:
        return media.kind_of(media.normalized_ext(Path(relative))) in rules.kinds
    return True


def scan(root: Path, rules: LinkedFolderRules) -> dict[str, DiskFile]:
    """The files of `root` the rules take, by relative path. Raises OSError when `root`
    cannot be listed."""
    return scan_tree(root, rules)[0]


def scan_tree(root: Path, rules: LinkedFolderRules) -> tuple[dict[str, DiskFile], set[str]]:
    """The files the rules take, and the subfolders that hold some of them (relative,
    `/`-separated; the linked folder itself is ""). Raises OSError when `root` cannot be
    listed."""
    found: dict[str, DiskFile] = {}
    folders: set[str] = {""}
    os.listdir(root)  # an unreadable or vanished folder fails here, not silently
    for directory, subdirs, files in os.walk(root, followlinks=False):
        here = Path(directory)
        subdirs[:] = sorted(d for d in subdirs if rules.recursive and not d.startswith(".")
                            and not _is_library(here / d))
        base = here.relative_to(root).as_posix()
        for name in sorted(files):
            if name.startswith(".") or name.lower() in SKIP_NAMES:
                continue
            relative = name if base == "." else f"{base}/{name}"
            if not wanted(relative, rules):
                continue
            try:
                status = os.lstat(here / name)
            except OSError:
                continue  # gone meanwhile
            if stat.S_ISREG(status.st_mode) and status.st_size > 0:
                found[relative] = DiskFile(relative, here / name, status.st_size,
                                           status.st_mtime_ns)
                parent = relative.rpartition("/")[0]
                while parent and parent not in folders:
                    folders.add(parent)
                    parent = parent.rpartition("/")[0]
    return found, folders


def _is_library(path: Path) -> bool:
    return holds_library(path)
