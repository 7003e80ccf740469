"""Where things live inside a `<Name>.serpent/` library folder.

Runs in the worker process. Pure path arithmetic: nothing here touches the disk. A studio
library's folder (docs/studio.md) is shared by several machines: each has its own lock
file and staging folder in it (`machine`), and the store, thumbnails and orphans are one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX, STUDIO_NAME, holds_library


@dataclass(frozen=True)
class Layout:
    root: Path
    machine: str | None = None  # a studio library: this machine's own lock and staging

    @property
    def database(self) -> Path:
        return self.root / DATABASE_NAME

    @property
    def files(self) -> Path:
        return self.root / "files"

    @property
    def thumbs(self) -> Path:
        return self.root / "thumbs"

    @property
    def studio_file(self) -> Path:
        return self.root / STUDIO_NAME

    @property
    def staging(self) -> Path:
        if self.machine is not None:
            return self.root / ".staging" / self.machine
        return self.root / ".staging"

    @property
    def orphans(self) -> Path:
        return self.root / ".orphans"

    @property
    def lock(self) -> Path:
        if self.machine is not None:
            return self.root / ".machines" / f"{self.machine}.lock"
        return self.root / ".lock"

    def file_for(self, sha256: str, ext: str) -> Path:
        """Content-addressed resource path: files/<ab>/<sha256>.<ext>."""
        return self.files / sha256[:2] / stored_name(sha256, ext)

    def directories(self) -> tuple[Path, ...]:
        return (self.files, self.thumbs, self.staging, self.orphans)


def stored_name(sha256: str, ext: str) -> str:
    return f"{sha256}.{ext}" if ext else sha256


def is_library_folder(path: Path) -> bool:
    return path.name.endswith(LIBRARY_SUFFIX) and (
        (path / DATABASE_NAME).is_file() or (path / STUDIO_NAME).is_file())


def enclosing_library(path: Path) -> Path | None:
    """The library folder `path` lies in (or is), if any."""
    for candidate in (path, *path.parents):
        if holds_library(candidate):
            return candidate
    return None
