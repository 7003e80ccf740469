"""The content-addressed file store: `files/<ab>/<sha256>.<ext>`, written through `.staging/`.

Runs in the worker process, writer thread. A source file is copied into `.staging/` while
it is hashed (one read pass), then fsynced and moved into place with `os.replace`, so the
store never holds a half-written file under a final name. Durability is batched:
`make_durable()` runs once before the transaction that records a batch of files commits.
On Linux that is one `syncfs()` of the library's filesystem (file data and the renames in a
single journal commit) instead of an fsync per file plus one per directory; elsewhere each
staged copy is fsynced as it is written and the touched directories at the batch's end.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import os
import secrets
import stat
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from library import private_paths
from library.durable import fsync_directory
from library.worker.store.layout import Layout

CHUNK = 1024 * 1024


class CopyCancelled(Exception):
    """The copy stopped because the request was cancelled; the staged file is removed."""


class SourceUnreadable(Exception):
    """Reading the *source* failed (not the library): a per-item problem, not a library one."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class Staged:
    path: Path
    sha256: str
    size: int


class FileStore:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._dirty_directories: set[Path] = set()
        self._dirty_lock = threading.Lock()  # make_durable may run on a helper thread
        self._syncfs = _syncfs_function()

    def stage_copy(self, source: Path, cancelled: Callable[[], bool]) -> Staged:
        """Copy `source` into `.staging/`, hashing as it goes; the copy is fsynced."""
        staged = self.layout.staging / f"{secrets.token_hex(8)}.part"
        digest = hashlib.sha256()
        size = 0
        reader = open_regular(source)
        try:
            with reader, open(staged, "xb") as writer:
                buffer = bytearray(CHUNK)
                view = memoryview(buffer)
                while True:
                    try:
                        count = reader.readinto(buffer)
                    except OSError as error:
                        raise SourceUnreadable(error) from error
                    if not count:
                        break
                    digest.update(view[:count])
                    writer.write(view[:count])
                    size += count
                    if size > CHUNK * 16 and cancelled():
                        raise CopyCancelled
                writer.flush()
                if self._syncfs is None:
                    os.fsync(writer.fileno())
        except BaseException:
            staged.unlink(missing_ok=True)
            raise
        return Staged(staged, digest.hexdigest(), size)

    def commit_staged(self, staged: Staged, ext: str) -> Path:
        """Move a staged copy to its final content-addressed name."""
        target = self.layout.file_for(staged.sha256, ext)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged.path, target)
        with self._dirty_lock:
            self._dirty_directories.add(target.parent)
        return target

    def discard(self, staged: Staged) -> None:
        staged.path.unlink(missing_ok=True)

    def make_durable(self) -> None:
        """Make every copy and rename so far durable, before the rows that point at them
        commit."""
        with self._dirty_lock:
            dirty, self._dirty_directories = self._dirty_directories, set()
        if not dirty:
            return
        if self._syncfs is not None:
            self._syncfs(self.layout.files)
        else:
            for directory in sorted(dirty):
                fsync_directory(directory)

    def remove(self, sha256: str, ext: str) -> None:
        """Delete a stored file (after the commit that deleted its row)."""
        self.layout.file_for(sha256, ext).unlink(missing_ok=True)


class NotARegularFile(Exception):
    """A FIFO, socket or device: never opened for reading (a FIFO would block forever)."""


class ForbiddenSource(NotARegularFile):
    """One of Serpent's own files (settings, credentials, logs...) or a system file (/proc):
    never read for a caller, whatever link led to it (see `library.private_paths`). The
    message says which."""


def open_regular(source: Path) -> io.BufferedReader:
    """Open a regular file for reading without ever blocking on a FIFO; Serpent's own files
    are refused (`ForbiddenSource`), checked on the opened file itself."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(source, flags)
    except OSError as error:
        raise SourceUnreadable(error) from error
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotARegularFile(str(source))
        refused = private_paths.current().refusal(_opened_path(fd, source), status)
        if refused is not None:
            raise ForbiddenSource(refused.message)
        if private_paths.holds_secrets(fd, status.st_size):
            raise ForbiddenSource(private_paths.MESSAGE)
    except BaseException:
        os.close(fd)
        raise
    reader: io.BufferedReader = os.fdopen(fd, "rb")
    return reader


def _opened_path(fd: int, source: Path) -> str:
    """Where the opened file really is (Linux knows it from the descriptor itself)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return str(source)


def _syncfs_function() -> Callable[[Path], None] | None:
    """`syncfs(2)` where the OS has it (Linux), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syncfs = libc.syncfs
    except (OSError, AttributeError):
        return None
    syncfs.argtypes = [ctypes.c_int]
    syncfs.restype = ctypes.c_int

    def sync_filesystem(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            if syncfs(fd) != 0:
                number = ctypes.get_errno()
                raise OSError(number, os.strerror(number), str(path))
        finally:
            os.close(fd)
    return sync_filesystem


