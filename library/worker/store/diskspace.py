"""Free disk space: the reserve every write keeps, and the one shape of a DISK_FULL error.

Runs in the worker process (any thread: only `statvfs` calls, nothing cached, so space that
is freed counts at once; a `SpaceBudget`, one writer's own, remembers a look for a moment).
A write is refused before it starts when the disk it writes to would keep less than the
reserve (`RESERVE_BYTES`, or `RESERVE_FRACTION` of a small disk),
so SQLite and the file store never meet a full disk half-way; a full disk met anyway
(ENOSPC, EDQUOT, SQLITE_FULL) becomes DISK_FULL too, saying what is free and what was needed.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path

from library.errors import DISK_FULL, LibraryError
from library.units import human_size

RESERVE_BYTES = 50 * 1024 * 1024
RESERVE_FRACTION = 0.02  # of the disk's size: a 20 MB disk keeps 400 KB free, not 50 MB
FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


def is_disk_full(error: BaseException) -> bool:
    """An OSError that says the disk (or the person's quota) is full."""
    return isinstance(error, OSError) and error.errno in FULL_ERRNOS


def _usage(path: Path) -> tuple[int, int]:
    """(free, total) bytes of the disk `path` is on (its nearest existing folder)."""
    here = Path(os.path.abspath(path))
    while not here.exists() and here.parent != here:
        here = here.parent
    usage = shutil.disk_usage(here)
    return usage.free, usage.total


def reserve_for(total: int) -> int:
    return min(RESERVE_BYTES, int(total * RESERVE_FRACTION))


def free_bytes(path: Path) -> int | None:
    try:
        return _usage(path)[0]
    except OSError:
        return None


def ensure_room(path: Path, needed: int = 0, *, where: str = "the library's disk",
                field: str | None = None) -> None:
    """Raise DISK_FULL unless `needed` bytes fit on `path`'s disk with the reserve left."""
    try:
        free, total = _usage(path)
    except OSError:
        return  # cannot tell: the write itself will say
    wanted = max(needed, 0) + reserve_for(total)
    if free < wanted:
        raise disk_full(free, wanted, where=where, field=field)


class SpaceBudget:
    """`ensure_room` for one writer's many small writes (an import's files): the disk is
    asked again only when the last look is older than `FRESH_SECONDS`, or when what was
    written since brings it within `MARGIN_BYTES` of the reserve, so on a disk close to full
    every write is checked as `ensure_room` does, and elsewhere a file costs no `statvfs`.
    Not thread-safe (one writer)."""

    FRESH_SECONDS = 0.5
    MARGIN_BYTES = 256 * 1024 * 1024

    def __init__(self, path: Path, *, where: str = "the library's disk") -> None:
        self.path = path
        self.where = where
        self._looked = -1.0
        self._left = 0  # bytes that may still be written before the reserve, at the last look

    def ensure(self, needed: int) -> None:
        """Raise DISK_FULL unless `needed` more bytes fit with the reserve left."""
        needed = max(needed, 0)
        if (time.monotonic() - self._looked > self.FRESH_SECONDS
                or self._left - needed < self.MARGIN_BYTES):
            try:
                free, total = _usage(self.path)
            except OSError:
                return  # cannot tell: the write itself will say
            self._looked = time.monotonic()
            self._left = free - reserve_for(total)
            if self._left < needed:
                raise disk_full(free, needed + reserve_for(total), where=self.where)
        self._left -= needed


def disk_full(free: int | None, needed: int | None, *, where: str = "the library's disk",
              field: str | None = None) -> LibraryError:
    """The DISK_FULL error: `needed` is what must be free (the reserve included)."""
    details: dict[str, object] = {}
    if free is not None:
        details["freeBytes"] = int(free)
    if needed is not None:
        details["neededBytes"] = int(needed)
    if field:
        details["field"] = field
    if free is not None and needed is not None:
        amounts = f"{human_size(free)} free, {human_size(needed)} needed"
    elif free is not None:
        amounts = f"only {human_size(free)} free"
    else:
        amounts = "no space left"
    return LibraryError(DISK_FULL, f"There is not enough free space on {where} ({amounts}, "
                        f"a reserve of up to {human_size(RESERVE_BYTES)} included). Free some "
                        "space and try again.", **details)


def disk_full_at(path: Path, needed: int | None = None, *,
                 where: str = "the library's disk", field: str | None = None) -> LibraryError:
    """DISK_FULL for a write on `path`'s disk that just failed (ENOSPC, SQLITE_FULL)."""
    try:
        free, total = _usage(path)
    except OSError:
        return disk_full(None, needed, where=where, field=field)
    reserve = reserve_for(total)
    wanted = reserve + (needed or 0) if needed is not None else max(free + 1, reserve)
    return disk_full(free, wanted, where=where, field=field)
