"""Keeping `thumbs/` under its size cap: the least recently used thumbnails go first.

Runs in the worker process, on a thread of its own beside the requests (a background job,
see `commands.thumbnails`): it lists and deletes derived files only, never touches SQLite
and holds no lock a request waits for. Thumbnails are rebuildable: an evicted one is made
again on its next request. "Recently used" is the file's mtime: `ThumbStore.cached` touches
a thumbnail it serves once its mtime is `thumbstore.TOUCH_AFTER` old, and nothing younger
than `PROTECT` is evicted, so a thumbnail just served (its path handed to a caller) or just
made stays. The cap is `SERPENT_THUMBS_MAX_BYTES` (bytes; default 2 GiB). A sweep runs when
the worker starts, after every tenth of the cap written since the last one, and every
`SWEEP_INTERVAL`; an over-cap store is cut to `LOW_WATER` of the cap.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from library.worker.files.thumbstore import TOUCH_AFTER, ThumbStore

log = logging.getLogger("library.worker.thumbs")

DEFAULT_MAX_BYTES = 2 * 1024 ** 3
PROTECT = 3600.0  # seconds: a thumbnail used or made this recently is never evicted
SWEEP_INTERVAL = 1800.0
LOW_WATER = 0.9
assert TOUCH_AFTER < PROTECT  # a thumbnail in use keeps an mtime younger than PROTECT


def max_bytes() -> int:
    """The cap from `SERPENT_THUMBS_MAX_BYTES`, or the default when unset or unreadable."""
    raw = os.environ.get("SERPENT_THUMBS_MAX_BYTES", "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_BYTES
    return value if value > 0 else DEFAULT_MAX_BYTES


class ThumbCap:
    """Sweeps one library's thumbnail store. Thread-safe (`written` is called from the
    threads that make thumbnails)."""

    def __init__(self, store: ThumbStore, limit: int) -> None:
        self.store = store
        self.limit = limit
        self._lock = threading.Lock()
        self._written = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="thumbs-cap", daemon=True)

    def start(self) -> None:
        self.store.on_written = self.written
        self._thread.start()

    def stop(self) -> None:
        self.store.on_written = None
        self._stop.set()
        self._wake.set()
        self._thread.join(5)

    def written(self, size: int) -> None:
        with self._lock:
            self._written += size
            due = self._written >= self.limit // 10
        if due:
            self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sweep()
            except Exception:  # a sweep must never take the worker down: try again later
                log.exception("the thumbnail size cap could not be applied")
            self._wake.wait(SWEEP_INTERVAL)
            self._wake.clear()

    def sweep(self) -> int:
        """Evict least recently used thumbnails while the store is over its cap; returns
        how many bytes were freed."""
        with self._lock:
            self._written = 0
        entries = _scan(self.store.root)
        total = sum(size for _mtime, size, _path in entries)
        if total <= self.limit:
            return 0
        target = self.limit * LOW_WATER
        recent = time.time() - PROTECT
        freed = 0
        for mtime, size, path in sorted(entries, key=lambda entry: entry[0]):
            if total - freed <= target or mtime > recent or self._stop.is_set():
                break
            try:
                path.unlink()
            except FileNotFoundError:
                pass  # removed meanwhile (a permanent delete)
            except OSError:
                continue
            freed += size
        if total - freed > self.limit:
            log.info("thumbnails use %d bytes, over the cap of %d: the rest was used within "
                     "the last hour", total - freed, self.limit)
        return freed


def _scan(root: Path) -> list[tuple[float, int, Path]]:
    """(mtime, size, path) of every thumbnail and failure marker (not `.tmp/`)."""
    entries: list[tuple[float, int, Path]] = []
    try:
        buckets = list(os.scandir(root))
    except OSError:
        return entries
    for bucket in buckets:
        if bucket.name.startswith(".") or not bucket.is_dir(follow_symlinks=False):
            continue
        try:
            with os.scandir(bucket.path) as listing:
                for entry in listing:
                    try:
                        stat = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.is_file(follow_symlinks=False):
                        entries.append((stat.st_mtime, stat.st_size, Path(entry.path)))
        except OSError:
            continue
    return entries

