"""The content-addressed file store: `files/<ab>/<sha256>.<ext>`, written through `.staging/`.

Runs in the worker process, writer thread. A source file is copied into `.staging/` while
it is hashed (one read pass), then moved into place with `os.replace`, so the store never
holds a half-written file under a final name. Durability is batched and touches only what
the batch wrote: `make_durable()` runs once before the transaction that records a batch
commits (on a helper thread, while the next batch is copied), and fdatasyncs each file the
batch stored, then fsyncs each directory that got a new name. On Linux the write-back of
every file of the batch is started first (`sync_file_range`; a large file's already as it
is written), so the first fdatasync's journal commit carries the whole batch and the later
ones find little left to do. Other
programs' dirty data on the same disk is never waited for (no `syncfs`). A new library gets
its 256 bucket folders `files/00` .. `files/ff` at creation (`create_buckets`), so an import
makes none; a library from before (or unpacked from an archive) gets each one as its first
file arrives. Privacy: a stored file is never more readable than its source (owner read and
write, plus the source's own group/other read bits; a duplicate from a more private source
narrows the stored file), and every folder is made owner-only. A sparse source stays sparse:
its holes are found with SEEK_DATA/SEEK_HOLE and left as holes in the copy (a 2 GiB file of
nothing takes no 2 GiB), while its hash covers every byte.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import io
import itertools
import os
import secrets
import stat
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from library import private_paths
from library.disk.durable import fsync_directory
from library.worker.store.layout import Layout, stored_name

CHUNK = 1024 * 1024
SMALL_FILE = 256 * 1024  # read whole, in one call
_BINARY = getattr(os, "O_BINARY", 0)
PRIVATE_FILE = 0o600  # a stored file: its owner reads and writes it
SHARED_READ = 0o044  # the bits a stored file takes over from its source (read, group/others)
PRIVATE_FOLDER = 0o700  # every folder of a library: its owner's only
_ZEROS = bytes(CHUNK)
_SEEK_DATA = getattr(os, "SEEK_DATA", None)
_SEEK_HOLE = getattr(os, "SEEK_HOLE", None)


class CopyCancelled(Exception):
    """The copy stopped because the request was cancelled; the staged file is removed."""


class SourceUnreadable(Exception):
    """Reading the *source* failed (not the library): a per-item problem, not a library one."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class Staged:
    path: str  # in `.staging/` (str: this runs once per file of an import)
    sha256: str
    size: int
    data: bytes | None = None  # the whole content of a small file (probed from memory)
    mode: int = PRIVATE_FILE  # its permission bits: never more readable than its source

    def without_data(self) -> Staged:
        """The same copy, its content no longer held in memory."""
        return self if self.data is None else Staged(self.path, self.sha256, self.size,
                                                     mode=self.mode)


def stored_mode(source_mode: int) -> int:
    """The permission bits of a stored copy of a file with `source_mode`: read and write for
    its owner, and read for group and others only where the source allows it."""
    return PRIVATE_FILE | (source_mode & SHARED_READ)


class FileStore:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._staging = os.fspath(layout.staging)
        self._files = os.fspath(layout.files)
        self._name_prefix = os.path.join(self._staging, secrets.token_hex(6))
        self._numbers = itertools.count()  # next() of a count is atomic: copies run ahead
        self._dirty_directories: set[str] = set()
        self._dirty_files: list[str] = []
        self._dirty_lock = threading.Lock()  # make_durable may run on a helper thread
        self._known_buckets = _existing_buckets(self._files)

    def _staging_name(self) -> str:
        return f"{self._name_prefix}-{next(self._numbers)}.part"

    def stage_copy(self, source: Path, cancelled: Callable[[], bool],
                   room: Callable[[int], None] | None = None) -> Staged:
        """Copy `source` into `.staging/`, hashing as it goes; its write-back is started.

        `room(size)` runs once the source is open and its size known, before anything is
        written (it raises DISK_FULL). A small file is read whole in one call and kept in
        `Staged.data`, so the caller can probe it without opening it again."""
        fd, status = _open_checked(source, content_checked_below=SMALL_FILE)
        size_hint = max(0, status.st_size)
        mode = stored_mode(status.st_mode)
        try:
            sparse = _is_sparse(status)
            if room is not None:  # a sparse file takes only what it has allocated
                room(min(size_hint, status.st_blocks * 512) if sparse else size_hint)
            if size_hint <= SMALL_FILE:
                return self._stage_small(fd, size_hint, mode)
            if sparse:
                staged = self._stage_sparse(fd, size_hint, mode, cancelled)
                if staged is not None:
                    return staged
                os.lseek(fd, 0, os.SEEK_SET)  # the system cannot tell holes: copy it whole
            with os.fdopen(fd, "rb", buffering=0, closefd=False) as reader:
                return self._stage_large(reader, size_hint, mode, cancelled)
        finally:
            os.close(fd)

    def _stage_small(self, fd: int, size_hint: int, mode: int) -> Staged:
        """A small file: one read (one byte more tells EOF), one write."""
        try:  # a regular file's short read is its end
            data = os.read(fd, size_hint + 1)
            while len(data) > size_hint:  # it grew while we looked: read the rest too
                more = os.read(fd, CHUNK)
                if not more:
                    break
                data += more
        except OSError as error:
            raise SourceUnreadable(error) from error
        if private_paths.secret_content(data):
            raise ForbiddenSource(private_paths.MESSAGE)
        staged = self._staging_name()
        out = _create(staged, mode)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view):]
            finally:
                os.close(out)
        except BaseException:
            _unlink(staged)
            raise
        return Staged(staged, hashlib.sha256(data).hexdigest(), len(data), data, mode)

    def _stage_large(self, reader: Any, size_hint: int, mode: int,
                     cancelled: Callable[[], bool]) -> Staged:
        staged = self._staging_name()
        digest = hashlib.sha256()
        size = 0
        try:
            with open(_create(staged, mode), "wb", buffering=0) as writer:
                buffer = bytearray(min(CHUNK, size_hint + 1))
                view = memoryview(buffer)
                while True:
                    try:
                        count = reader.readinto(buffer)
                    except OSError as error:
                        raise SourceUnreadable(error) from error
                    if not count:
                        break
                    digest.update(view[:count])
                    _write_all(writer, view[:count])
                    size += count
                    if size > CHUNK * 16 and cancelled():
                        raise CopyCancelled
                start_write_back(writer.fileno())
        except BaseException:
            _unlink(staged)
            raise
        return Staged(staged, digest.hexdigest(), size, mode=mode)

    def _stage_sparse(self, fd: int, size: int, mode: int,
                      cancelled: Callable[[], bool]) -> Staged | None:
        """Copy a sparse file hole for hole (SEEK_DATA / SEEK_HOLE): only its data is written,
        its holes stay holes in the copy; the hash covers every byte. None where the system
        cannot tell holes from data (the caller copies it whole)."""
        staged = self._staging_name()
        digest = hashlib.sha256()
        try:
            out = _create(staged, mode)
            try:
                position = 0
                while position < size:
                    data = _next(fd, position, _SEEK_DATA, size)
                    if data is None:
                        _unlink(staged)
                        return None
                    _hash_zeros(digest, min(data, size) - position)
                    if data >= size:
                        break
                    hole = min(_next(fd, data, _SEEK_HOLE, size) or size, size)
                    _copy_range(fd, out, data, hole, digest)
                    position = hole
                    if cancelled():
                        raise CopyCancelled
                os.ftruncate(out, size)  # a hole at the end is a hole too
                start_write_back(out)
            finally:
                os.close(out)
        except BaseException:
            _unlink(staged)
            raise
        return Staged(staged, digest.hexdigest(), size, mode=mode)

    def commit_staged(self, staged: Staged, ext: str) -> str:
        """Move a staged copy to its final content-addressed name (`Layout.file_for`)."""
        name = staged.sha256[:2]
        bucket = os.path.join(self._files, name)
        target = os.path.join(bucket, stored_name(staged.sha256, ext))
        if name not in self._known_buckets:  # a library made before buckets came with it
            if not os.path.isdir(bucket):
                os.makedirs(bucket, PRIVATE_FOLDER, exist_ok=True)
                with self._dirty_lock:
                    self._dirty_directories.add(self._files)  # the new bucket's own name
            self._known_buckets.add(name)
        os.replace(staged.path, target)
        with self._dirty_lock:
            self._dirty_directories.add(bucket)
            self._dirty_files.append(target)
        return target

    def discard(self, staged: Staged) -> None:
        _unlink(staged.path)

    def discard_duplicate(self, staged: Staged) -> None:
        """Drop a copy whose content the store holds already; the stored file becomes no
        more readable than this source either (a private copy keeps the content private)."""
        _unlink(staged.path)
        bucket = os.path.join(self._files, staged.sha256[:2])
        try:
            with os.scandir(bucket) as entries:
                same = [e.path for e in entries if e.name.startswith(staged.sha256)]
        except OSError:
            return
        for path in same:
            with contextlib.suppress(OSError):
                current = stat.S_IMODE(os.stat(path).st_mode)
                if current & ~staged.mode & SHARED_READ:
                    os.chmod(path, current & (staged.mode | ~SHARED_READ))

    def make_durable(self) -> None:
        """Make every copy and rename so far durable, before the rows that point at them
        commit."""
        with self._dirty_lock:
            dirty, self._dirty_directories = self._dirty_directories, set()
            files, self._dirty_files = self._dirty_files, []
        opened: list[int] = []
        try:
            for path in files:  # write-back of all of them first, then wait for each
                try:
                    fd = os.open(path, os.O_RDONLY)
                except FileNotFoundError:
                    continue  # removed meanwhile (a duplicate undone): nothing to keep
                opened.append(fd)
                start_write_back(fd)
            for fd in opened:
                _datasync(fd)
        finally:
            for fd in opened:
                os.close(fd)
        for directory in sorted(dirty, key=lambda d: d.count(os.sep), reverse=True):
            fsync_directory(Path(directory))

    def remove(self, sha256: str, ext: str) -> None:
        """Delete a stored file (after the commit that deleted its row)."""
        self.layout.file_for(sha256, ext).unlink(missing_ok=True)


BUCKETS = tuple(f"{n:02x}" for n in range(256))


def create_buckets(files: Path) -> None:
    """Make every bucket folder of a new library's `files/` (durably: one fsync of `files/`)."""
    for name in BUCKETS:
        os.mkdir(files / name, PRIVATE_FOLDER)
    fsync_directory(files)


def _existing_buckets(files: str) -> set[str]:
    """The bucket folders `files/` has (one listing instead of a look per bucket)."""
    try:
        with os.scandir(files) as entries:
            return {e.name for e in entries if len(e.name) == 2 and e.is_dir()}
    except OSError:
        return set()  # no `files/` yet: each bucket is made as it is needed


class NotARegularFile(Exception):
    """A FIFO, socket or device: never opened for reading (a FIFO would block forever)."""


class ForbiddenSource(NotARegularFile):
    """One of Serpent's own files (settings, credentials, logs...) or a system file (/proc):
    never read for a caller, whatever link led to it (see `library.private_paths`). The
    message says which."""


def open_regular(source: Path, *, content_checked_below: int = 0) -> io.BufferedReader:
    """Open a regular file for reading without ever blocking on a FIFO; Serpent's own files
    are refused (`ForbiddenSource`), checked on the opened file itself. A caller that reads
    a file of up to `content_checked_below` bytes whole checks its content itself
    (`private_paths.secret_content`)."""
    fd, _ = _open_checked(source, content_checked_below=content_checked_below)
    reader: io.BufferedReader = os.fdopen(fd, "rb")
    return reader


def _open_checked(source: Path, *, content_checked_below: int
                  ) -> tuple[int, os.stat_result]:
    """`open_regular` as a descriptor and the file's status (the caller closes it)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(source, flags)
    except OSError as error:
        raise SourceUnreadable(error) from error
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotARegularFile(str(source))
        real = _opened_path(fd)
        private = private_paths.current()
        refused = (private.refusal(source, status) if real is None
                   else private.refusal_of_real(real, status))
        if refused is not None:
            raise ForbiddenSource(refused.message)
        if (status.st_size > content_checked_below
                and private_paths.holds_secrets(fd, status.st_size)):
            raise ForbiddenSource(private_paths.MESSAGE)
    except BaseException:
        os.close(fd)
        raise
    return fd, status


def _create(path: str, mode: int) -> int:
    """A new staging file with `mode` (the umask may take more away, never add)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, mode)


def _is_sparse(status: os.stat_result) -> bool:
    """Fewer bytes allocated than it holds: it has holes (where the system tells blocks)."""
    blocks = getattr(status, "st_blocks", None)
    return (blocks is not None and _SEEK_DATA is not None
            and blocks * 512 < status.st_size - CHUNK)


def _next(fd: int, position: int, whence: int | None, size: int) -> int | None:
    """The next data (or hole) at or after `position`; `size` when there is none; None when
    the system cannot tell."""
    if whence is None:
        return None
    try:
        return os.lseek(fd, position, whence)
    except OSError as error:
        if error.errno == errno.ENXIO:  # no data after `position`: the rest is a hole
            return size
        if error.errno in (errno.EINVAL, errno.EOPNOTSUPP):
            return None
        raise SourceUnreadable(error) from error


def _hash_zeros(digest: Any, count: int) -> None:
    """A hole reads as zeros: hash them without reading them."""
    while count > 0:
        step = min(count, CHUNK)
        digest.update(_ZEROS if step == CHUNK else _ZEROS[:step])
        count -= step


def _copy_range(source: int, out: int, start: int, end: int, digest: Any) -> None:
    """Copy bytes `start`..`end` of `source` to the same place in `out`, hashing them."""
    position = start
    while position < end:
        try:
            chunk = os.pread(source, min(CHUNK, end - position), position)
        except OSError as error:
            raise SourceUnreadable(error) from error
        if not chunk:  # shorter than it said: what is left reads as a hole
            _hash_zeros(digest, end - position)
            return
        digest.update(chunk)
        view = memoryview(chunk)
        written = position
        while view:
            count = os.pwrite(out, view, written)
            view, written = view[count:], written + count
        position += len(chunk)


def _opened_path(fd: int) -> str | None:
    """Where the opened file really is, links resolved (Linux knows it from the descriptor
    itself); None where the system cannot tell (the path is then resolved)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return real if real.startswith("/") and not real.endswith(" (deleted)") else None


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _write_all(writer: Any, data: memoryview) -> None:
    """An unbuffered write may be short; write until all of `data` is out."""
    while data:
        written = writer.write(data)
        data = data[written:]


_datasync: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)


def _sync_file_range_function() -> Callable[[int], None]:
    """Start the write-back of a file's dirty pages now, without waiting (Linux only)."""
    if not sys.platform.startswith("linux"):
        return lambda fd: None
    try:
        function = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return lambda fd: None
    function.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    function.restype = ctypes.c_int
    write = 2  # SYNC_FILE_RANGE_WRITE

    def start(fd: int) -> None:
        function(fd, 0, 0, write)  # a hint: a failure only means fdatasync does all the work
    return start


start_write_back = _sync_file_range_function()
