"""`library.import-exported` retried with its idempotencyKey: which library the first call made.

Main process; thread-safe, and safe across processes (a lock file beside it, `disk.locks`).
`library.import-exported` creates a library rather than writing into one, so its keys cannot
live in a library that exists before the call. Two places keep them:

- this map, a small owner-only JSON file in the user data folder (`import-keys.json`): per
  caller scope and key, the fingerprint of the normalized arguments and the folder the call
  made, written as soon as that library is open and before the answer goes out. A retry with
  the same call opens (or finds open) that library instead of unpacking a "(copy N)"; the
  same key with other arguments is INVALID_ARGUMENT naming the key.
- the new library itself: the worker writes the key into the library's own idempotency table
  before the folder gets its final name (`unpacking.find_replay`). That covers a crash
  between the unpacking and this map: the folder and its key appear together or not at all,
  and a retry finds the key there.

Entries older than `KEEP_DAYS` are dropped; the map holds at most `MAX_ENTRIES`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from library.disk import statejson
from library.disk.atomicfile import atomic_write_text
from library.disk.locks import LockBusy, locked
from library.errors import ErrorCode, LibraryError
from library.idempotency import IMPORT_COMMAND as COMMAND
from library.idempotency import IMPORT_REPLAYED, arguments_digest, key_reused, scope_of
from library.worker_handle import STARTUP_TIMEOUT

if TYPE_CHECKING:
    from library.protocol import CallMeta

log = logging.getLogger(__name__)

KEEP_DAYS = 14
MAX_ENTRIES = 1000
LOCK_TIMEOUT_S = 10.0
MAX_FILE_BYTES = 4 * 1024 * 1024  # far more than MAX_ENTRIES need


def folder_key(path: str | Path) -> str:
    """The same key for every spelling of one folder (a loop of links never raises here)."""
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def replay_of(meta: CallMeta | None, archive: Path, parent: Path) -> Replay | None:
    """The identity of an import called with an idempotency key (None without one)."""
    if meta is None or not meta.idempotency_key:
        return None
    return Replay(scope_of(meta.source, meta.credential), meta.idempotency_key,
                  arguments_digest({"archivePath": folder_key(archive),
                                    "selectedParentPath": folder_key(parent)}))


@dataclass(frozen=True)
class Replay:
    """One call's identity: who (scope), which key, which normalized arguments (digest)."""

    scope: str
    key: str
    digest: str

    def as_opening(self) -> dict[str, str]:
        return {"scope": self.scope, "key": self.key, "digest": self.digest}

    @property
    def entry_key(self) -> str:
        return f"{self.scope}\n{self.key}"


class ImportReplays:
    """The persisted map (in memory only when `path` is None)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: dict[str, dict[str, Any]] = {}
        self._mutex = threading.Lock()

    def lookup(self, replay: Replay) -> Path | None:
        """The library folder the first call with this key made, if it is still there."""
        with self._mutex:
            entry = self._read().get(replay.entry_key)
        if entry is None:
            return None
        if entry.get("digest") != replay.digest:
            raise key_reused(replay.key, COMMAND, COMMAND)
        folder = Path(str(entry.get("path", "")))
        return folder if (folder / "library.sqlite").is_file() else None

    def remember(self, replay: Replay, folder: str | Path) -> None:
        """Record what the call made. A file that cannot be written is logged, never raised:
        the library's own copy of the key still answers a retry."""
        entry = {"digest": replay.digest, "path": str(folder), "at": time.time()}
        with self._mutex:
            if self.path is None:
                self._memory[replay.entry_key] = entry
                return
            try:
                self._update(replay.entry_key, entry)
            except (OSError, LockBusy) as error:
                log.warning("could not record an import's idempotency key: %s", error)
                self._memory[replay.entry_key] = entry

    # -- the file ----------------------------------------------------------------------------

    def _read(self) -> dict[str, dict[str, Any]]:
        entries = dict(self._memory)
        if self.path is None:
            return entries
        try:
            with open(self.path, "rb") as handle:
                data = statejson.loads(handle.read(MAX_FILE_BYTES + 1))
            stored = data.get("entries", {}) if isinstance(data, dict) else {}
        except (OSError, ValueError):
            stored = {}
        if isinstance(stored, dict):  # only well-formed entries: the file may be damaged
            entries.update({k: v for k, v in stored.items() if isinstance(v, dict)
                            and isinstance(v.get("at"), int | float)
                            and isinstance(v.get("digest"), str)
                            and isinstance(v.get("path"), str)})
        return entries

    def _update(self, entry_key: str, entry: dict[str, Any]) -> None:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = self.path.with_name(self.path.name + ".lock")
        with locked(lock, LOCK_TIMEOUT_S):
            entries = self._read()
            entries[entry_key] = entry
            oldest = time.time() - KEEP_DAYS * 86400
            kept = sorted(((k, v) for k, v in entries.items()
                           if float(v.get("at", 0)) >= oldest),
                          key=lambda item: float(item[1].get("at", 0)))[-MAX_ENTRIES:]
            # owner-only: the map names folders and the callers' keys
            atomic_write_text(self.path, json.dumps({"version": 1, "entries": dict(kept)},
                                                    indent=1), mode=0o600)


def unpack_once(replays: ImportReplays, open_library: Callable[[Path], Future[Any]],
                unpack: Callable[[dict[str, Any], Future[Any]], None], archive: str,
                parent: str, replay: Replay | None, future: Future[Any]) -> None:
    """`LibraryHost.import_exported`'s thread: open the library the first call with this key
    made, or have a worker unpack the archive (`unpack`), and remember which it made."""
    try:
        made = replays.lookup(replay) if replay is not None else None
        if made is not None:  # the first call with this key made it: open that one
            future.set_result(open_library(made).result(STARTUP_TIMEOUT))
            return
        unpacked: Future[Any] = Future()
        unpack({"action": "import", "archive": archive, "parent": parent,
                "replay": replay.as_opening() if replay else None}, unpacked)
        try:
            ref = unpacked.result()
        except LibraryError as error:
            if replay is None or error.details.get("reason") != IMPORT_REPLAYED:
                raise
            ref = open_library(Path(error.details["path"])).result(STARTUP_TIMEOUT)
        if replay is not None:
            replays.remember(replay, ref["path"])
        future.set_result(ref)
    except BaseException as error:
        future.set_exception(error if isinstance(error, LibraryError) else LibraryError(
            ErrorCode.INTERNAL, "The library archive could not be unpacked."))
