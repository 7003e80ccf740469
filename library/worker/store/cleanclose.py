"""The clean-close marker: lets a library closed cleanly open without re-checking its database.

Runs in the worker process. A clean close checkpoints the WAL, closes the database, stamps the
file with an mtime 1 ns before its last write (so any later write by anyone, which stamps the
current time, cannot leave it unchanged) and writes `.clean-close` naming that file (inode,
size, mtime), fsynced with its folder. Opening takes the marker away first, durably, before
anything is served: a crash at any later moment leaves no marker, so the next open checks.
The marker vouches only for the exact file it names with no WAL beside it.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from library.disk.atomicfile import atomic_write_text
from library.disk.durable import fsync_directory
from library.worker.store.layout import Layout

MARKER_NAME = ".clean-close"


def _marker(layout: Layout) -> Path:
    return layout.root / MARKER_NAME


def _fingerprint(database: Path) -> dict[str, int]:
    stat = database.stat()
    return {"inode": stat.st_ino, "size": stat.st_size, "mtimeNs": stat.st_mtime_ns}


def write(layout: Layout, library_id: str) -> None:
    """After the database is checkpointed and closed. Errors leave no marker (checked next)."""
    path = _marker(layout)
    if _wal_bytes(layout):
        return  # a connection still held the WAL: nothing to vouch for
    try:
        stat = layout.database.stat()
        os.utime(layout.database, ns=(stat.st_atime_ns, stat.st_mtime_ns - 1))
        record = {"libraryId": library_id, **_fingerprint(layout.database)}
        atomic_write_text(path, json.dumps(record))
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def take(layout: Layout) -> bool:
    """Whether the database is exactly as a clean close left it; removes the marker (durably)
    whatever the answer, before the library is served."""
    path = _marker(layout)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        record = None
    path.unlink(missing_ok=True)
    fsync_directory(layout.root)
    if not isinstance(record, dict):
        return False
    fingerprint = {key: record.get(key) for key in ("inode", "size", "mtimeNs")}
    return _wal_bytes(layout) == 0 and fingerprint == _fingerprint(layout.database)


def _wal_bytes(layout: Layout) -> int:
    try:
        return layout.database.with_name(layout.database.name + "-wal").stat().st_size
    except FileNotFoundError:
        return 0
