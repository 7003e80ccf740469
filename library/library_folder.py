"""What makes a folder a Serpent library: a name ending in `.serpent`, with the library's
database file in it, or, for a studio library (docs/studio.md), the small file naming its
PostgreSQL database.

Imported by both processes (names only: the worker lays the folder out with them, the main
process names new libraries and checks what it is about to delete).
"""

from __future__ import annotations

from pathlib import Path

LIBRARY_SUFFIX = ".serpent"
DATABASE_NAME = "library.sqlite"
STUDIO_NAME = "studio.json"  # a studio library's folder: which database holds its rows


def holds_library(path: Path) -> bool:
    """Whether `path` (a folder named `<name>.serpent`) has a library's database or studio
    file in it."""
    return path.name.endswith(LIBRARY_SUFFIX) and (
        (path / DATABASE_NAME).exists() or (path / STUDIO_NAME).exists())
