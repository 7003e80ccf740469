"""Advisory locks on lock files, across processes and apps: `locked(path, timeout)` waits
for the lock around a block; `lock_now` / `unlock` take and give back a lock on a handle
kept open (a worker's library lock, the single-instance lock). The OS lets go of a lock
when its process dies, so a crash never leaves one behind.

On POSIX this is `fcntl.flock`, the same lock portalocker takes there, so it keeps out a
Serpent that still uses portalocker. Elsewhere (Windows) it is portalocker, imported when
first used: importing portalocker reads the installed packages' metadata to learn its own
version (`importlib.metadata` and `email`), which cost 35 ms of every window start and
every worker start on Linux.

Thread-safe; imported by both processes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

RETRY_INTERVAL_S = 0.05


class LockBusy(Exception):
    """Another process holds the lock (at once, or still when the wait ran out)."""


def lock_now(handle: IO[Any]) -> None:
    """Take an exclusive lock on the open file `handle`, or raise `LockBusy` at once."""
    if fcntl is None:
        _portalocker_lock(handle)
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LockBusy(f"{getattr(handle, 'name', 'the file')} is locked by another "
                       "process") from None


def unlock(handle: IO[Any]) -> None:
    """Give back the lock on `handle` (closing it does too)."""
    if fcntl is None:
        import portalocker

        portalocker.unlock(handle)
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextmanager
def locked(path: Path, timeout: float) -> Iterator[None]:
    """Hold the exclusive lock on the lock file `path` (made if missing) for the block,
    waiting up to `timeout` seconds for another process to let go; then `LockBusy`."""
    with open(path, "a", encoding="utf-8") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                lock_now(handle)
                break
            except LockBusy:
                if time.monotonic() >= deadline:
                    raise LockBusy(f"{path} is still locked by another process after "
                                   f"{timeout:g} s") from None
                time.sleep(RETRY_INTERVAL_S)
        try:
            yield
        finally:
            unlock(handle)


def _portalocker_lock(handle: IO[Any]) -> None:
    import portalocker

    try:
        portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE
                         | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.LockException:
        raise LockBusy(f"{getattr(handle, 'name', 'the file')} is locked by another "
                       "process") from None
