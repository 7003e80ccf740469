"""Atomic replacement of small text files (settings, credentials, client configs).

Thread-safe. Readers see the old file or the new one, never a torn one: the text goes to a
temporary file in the same directory, is fsynced, then `os.replace`d over the target.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from library.durable import fsync_directory


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write `text` to `path` so readers see the old or the new file, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.chmod(temp_name, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    fsync_directory(path.parent)
