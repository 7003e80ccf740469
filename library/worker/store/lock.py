"""The `.lock` file: one worker per library, ever (also across separate Serpent apps).

Runs in the worker process. The lock is held for the worker's whole life and released by
the OS if the worker dies, so a crashed worker never leaves a library locked.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from library.disk.locks import LockBusy, lock_now, unlock
from library.errors import BUSY, LibraryError


class LibraryLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held for life
        try:
            lock_now(handle)
        except LockBusy:
            handle.close()
            raise LibraryError(BUSY, "This library is already open in another Serpent window "
                               "or app. Close it there first.", reason="locked") from None
        except BaseException:  # a file system that cannot lock: the open fails as it is
            handle.close()
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            try:
                unlock(self._handle)
            finally:
                self._handle.close()
                self._handle = None
