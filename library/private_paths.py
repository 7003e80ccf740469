"""Serpent's own folders (settings and credentials, logs, data, caches): never a source to read.

Both processes, thread-safe. The main process names the folders (from `serpent_tk.paths`)
when it starts a worker (`LibraryHost(private_paths=...)` puts them in the opening message,
`configure` takes them in the worker); the worker refuses to import, link, or unpack an archive
from anything that is, or lies inside, one of them (PATH_FORBIDDEN). What counts is where a
path really leads, not how it is spelled: folders are compared by identity (device and inode
of every folder above the real path), so symlinks, `..`, bind mounts and the letter case of a
case-insensitive disk all lead to the same answer, and a file that is a hard link of one of
Serpent's own files (the credential store!) is known by its identity too. An identity counts
only while Serpent's path still has it: the number of a file Serpent replaced is free, and the
system gives it to the next new file, which is the person's. The credential
store and the endpoint file are replaced atomically (a new inode each time), so a hard link
made earlier, or any copy, still holds their secrets: `holds_secrets` knows them by content.
System files (/proc, /sys, /dev: the worker's own memory and environment) are refused too.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from library.disk import statejson
from library.errors import PATH_FORBIDDEN, LibraryError
from library.pathrules import is_system_path

OPENING_KEY = "privatePaths"  # in the worker's opening message
MESSAGE = ("Serpent's own settings, credentials, logs and data cannot be imported (this path "
           "is, or leads into, one of Serpent's own folders).")
SYSTEM_MESSAGE = ("System files (/proc, /sys, /dev) are not a person's files and cannot be "
                  "imported.")
SNAPSHOT_SECONDS = 1.0  # Serpent's files are replaced atomically: their identities move on
MAX_FILES_PER_FOLDER = 2000
MAX_SNIFFED_BYTES = 1024 * 1024  # Serpent's secret files are small; media never look like them

Identity = tuple[int, int]


def _identity(status: os.stat_result) -> Identity:
    return (status.st_dev, status.st_ino)


class PrivateFolders:
    """One look at the private folders: their identities and those of the files in them."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = tuple(roots)
        # identity -> the path it was seen at: an identity matches only while that path still
        # has it, since the system gives a freed inode number to the next new file (a picture
        # saved just after Serpent replaced its settings file was refused as Serpent's own)
        self.folders: dict[Identity, str] = {}
        self.files: dict[Identity, str] = {}
        for root in self.roots:
            try:
                self.folders[_identity(os.stat(root))] = str(root)
            except OSError:
                continue  # not made yet: nothing in it to protect
            self.files.update(_file_identities(root))
        self._verdicts: dict[str, bool] = {}  # folder (real path) -> inside a private one
        self._lock = threading.Lock()

    def refusal(self, path: str | os.PathLike[str],
                status: os.stat_result | None = None) -> LibraryError | None:
        """PATH_FORBIDDEN when `path` (or the already opened file `status` describes) is one of
        Serpent's own folders or files, or lies inside one; else None."""
        if status is not None and self._private(_identity(status)):
            return LibraryError(PATH_FORBIDDEN, MESSAGE)
        try:
            real = os.path.realpath(path)
            here = os.stat(real)
        except (OSError, ValueError):
            return None  # missing or unreadable: the caller's own checks say so
        if is_system_path(real):
            return LibraryError(PATH_FORBIDDEN, SYSTEM_MESSAGE)
        if _still(self.files, _identity(here)) or self._inside(real, here):
            return LibraryError(PATH_FORBIDDEN, MESSAGE)
        return None

    def refusal_of_real(self, real: str, status: os.stat_result) -> LibraryError | None:
        """`refusal` of an opened file whose real path (links resolved: what the system says
        of the descriptor) and status are known: no path is looked up again."""
        if self._private(_identity(status)):
            return LibraryError(PATH_FORBIDDEN, MESSAGE)
        if is_system_path(real):
            return LibraryError(PATH_FORBIDDEN, SYSTEM_MESSAGE)
        if self._inside(real, status):
            return LibraryError(PATH_FORBIDDEN, MESSAGE)
        return None

    def is_private_folder(self, path: str | os.PathLike[str]) -> bool:
        """True for one of the private folders themselves (a folder walk skips it)."""
        try:
            return _still(self.folders, _identity(os.stat(path)))
        except (OSError, ValueError):
            return False

    def _private(self, identity: Identity) -> bool:
        return _still(self.files, identity) or _still(self.folders, identity)

    def _inside(self, real: str, status: os.stat_result) -> bool:
        if _still(self.folders, _identity(status)):
            return True
        folder = os.path.dirname(real)
        walked: list[str] = []
        verdict = False
        while True:
            with self._lock:
                known = self._verdicts.get(folder)
            if known is not None:
                verdict = known
                break
            walked.append(folder)
            try:
                if _still(self.folders, _identity(os.stat(folder))):
                    verdict = True
                    break
            except OSError:
                pass
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        with self._lock:
            for seen in walked:
                self._verdicts[seen] = verdict
        return verdict


_JSON_STARTS = (b"{", b" ", b"\n", b"\r", b"\t", b"\xef")


def holds_secrets(fd: int, size: int) -> bool:
    """Is the open file a copy of Serpent's credential store or endpoint file (by content)?"""
    if size == 0 or size > MAX_SNIFFED_BYTES:
        return False
    try:
        head = os.read(fd, 1)
        if head not in _JSON_STARTS:
            return False
        content = head + os.read(fd, size)
    except OSError:
        return False
    finally:
        os.lseek(fd, 0, os.SEEK_SET)
    return secret_content(content)


def secret_content(content: bytes) -> bool:
    """`holds_secrets` of a file's whole content, already read."""
    if not content or len(content) > MAX_SNIFFED_BYTES or content[:1] not in _JSON_STARTS:
        return False
    try:
        data = statejson.loads(content)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    entries = data.get("credentials")
    if isinstance(entries, list) and any(isinstance(e, dict) and "token" in e for e in entries):
        return True
    return isinstance(data.get("secret"), str) and "port" in data


def _still(seen: dict[Identity, str], identity: Identity) -> bool:
    """Is `identity` one of `seen`, still at the path it was seen at (not a freed inode number
    the system has since given to another file)?"""
    path = seen.get(identity)
    if path is None:
        return False
    try:
        return _identity(os.stat(path)) == identity
    except OSError:
        return False  # gone: its number may be another file's now


def _file_identities(root: Path) -> Iterable[tuple[Identity, str]]:
    """The regular files directly inside `root` and one level below (bounded), with their
    paths."""
    pending = [(root, 0)]
    count = 0
    while pending and count < MAX_FILES_PER_FOLDER:
        folder, depth = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_file(follow_symlinks=False):
                    count += 1
                    yield _identity(entry.stat(follow_symlinks=False)), entry.path
                elif depth == 0 and entry.is_dir(follow_symlinks=False):
                    pending.append((Path(entry.path), 1))
            except OSError:
                continue


_roots: tuple[Path, ...] = ()
_current: tuple[float, PrivateFolders] | None = None
_state_lock = threading.Lock()


def configure(roots: Iterable[str | os.PathLike[str]]) -> None:
    """Worker start-up: the folders the main process named."""
    global _roots, _current
    with _state_lock:
        _roots = tuple(Path(os.path.abspath(r)) for r in roots)
        _current = None


def current() -> PrivateFolders:
    """A fresh enough look at the configured folders (at most `SNAPSHOT_SECONDS` old)."""
    global _current
    now = time.monotonic()
    with _state_lock:
        if _current is not None and now - _current[0] < SNAPSHOT_SECONDS:
            return _current[1]
        roots = _roots
    folders = PrivateFolders(roots)
    with _state_lock:
        _current = (now, folders)
    return folders


def check_source(path: str | os.PathLike[str], *, field: str | None = None) -> None:
    """Raise PATH_FORBIDDEN when `path` is Serpent's own (see module docstring)."""
    refused = current().refusal(path)
    if refused is not None:
        if field:
            refused.details["field"] = field
        raise refused
