"""Making a rename or a new file survive a power cut: fsync of the directory that holds it.

Thread-safe; imported by both processes (the worker's file store and library folders, the
main process's atomic writes of settings and credentials).
"""

from __future__ import annotations

import os
from pathlib import Path


def fsync_directory(directory: Path) -> None:
    """Flush `directory`'s entries to disk (a no-op where directories cannot be fsynced)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
