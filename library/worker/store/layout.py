"""Where things live inside a `<Name>.serpent/` library folder.

Runs in the worker process. Pure path arithmetic: nothing here touches the disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from library.library_folder import DATABASE_NAME, LIBRARY_SUFFIX


@dataclass(frozen=True)
class Layout:
    root: Path

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
    def staging(self) -> Path:
        return self.root / ".staging"

    @property
    def orphans(self) -> Path:
        return self.root / ".orphans"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    def file_for(self, sha256: str, ext: str) -> Path:
        """Content-addressed resource path: files/<ab>/<sha256>.<ext>."""
        return self.files / sha256[:2] / stored_name(sha256, ext)

    def directories(self) -> tuple[Path, ...]:
        return (self.files, self.thumbs, self.staging, self.orphans)


def stored_name(sha256: str, ext: str) -> str:
    return f"{sha256}.{ext}" if ext else sha256


def is_library_folder(path: Path) -> bool:
    return path.name.endswith(LIBRARY_SUFFIX) and (path / DATABASE_NAME).is_file()


def enclosing_library(path: Path) -> Path | None:
    """The library folder `path` lies in (or is), if any."""
    for candidate in (path, *path.parents):
        if candidate.name.endswith(LIBRARY_SUFFIX) and (candidate / DATABASE_NAME).exists():
            return candidate
    return None
