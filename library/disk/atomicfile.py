"""Small files written whole (settings, credentials, client configs, the import-replay map, a
library's clean-close marker, the window's compiled catalogues): read safely, replace
atomically. The one way Serpent writes such a file.

Thread-safe; imported by both processes. Readers see the old file or the new one, never a
torn one: the bytes go to a temporary file in the same directory (owner-only unless `mode`
says otherwise), are fsynced, then `os.replace`d over the target, and the directory is
fsynced (the new name survives a power cut). A path that is not a regular file (a folder, a
named pipe, a device, a socket) is never read and never replaced: `read_state_file` opens
without blocking (a FIFO would wait forever for a writer) and refuses it with
`NotARegularFile`, an OSError saying what it is.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from library.disk.durable import fsync_directory

MAX_STATE_FILE_BYTES = 16 * 1024 * 1024


class NotARegularFile(OSError):
    """The path exists but is a folder, pipe, device or socket; `kind` says which."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a file", str(path))
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words for people."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_regular_or_missing(path: Path) -> None:
    """Raise NotARegularFile when `path` exists and is not a regular file (links followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise NotARegularFile(path, kind_of(mode))


def read_state_file(path: Path, limit: int = MAX_STATE_FILE_BYTES) -> bytes:
    """The bytes of a small state file; FileNotFoundError when missing, NotARegularFile when it
    is something else, another OSError when it cannot be read. Never blocks."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(path, kind_of(mode))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, 1024 * 1024)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, "the file is too big", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write `text` (UTF-8, line ends as given) to `path`: see `atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to `path` so readers see the old or the new file, never a torn one, and
    a crash leaves one of the two (no temporary file stays behind an error). `mode`: the
    new file's permissions (default: owner-only, 0600). NotARegularFile when something that
    is not a file sits at `path` (it is left alone)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    check_regular_or_missing(path)
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.chmod(temp_name, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    fsync_directory(path.parent)
