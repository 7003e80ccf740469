"""Which linked-folder watcher serves each open library, so that a change to the linked
folders (linking, unlinking, an undo of either, a refresh) has it look again.

Runs in the worker process; thread-safe. Kept apart from `linkwatch` (which writes through
`WriteTx` itself) so the rows that change linked folders reach the watcher without importing
the transaction that imports them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol


class Watcher(Protocol):
    def reload(self) -> None:
        """Watch exactly the linked folders that want it, as they are now."""


_watchers: dict[Path, Watcher] = {}
_lock = threading.Lock()


def register(root: Path, watcher: Watcher) -> None:
    """`watcher` serves the library at `root` (until `forget(root)`)."""
    with _lock:
        _watchers[root] = watcher


def forget(root: Path) -> None:
    with _lock:
        _watchers.pop(root, None)


def reload(root: Path) -> None:
    """Have the library's watcher, if it has one, look at its linked folders again."""
    with _lock:
        watcher = _watchers.get(root)
    if watcher is not None:
        watcher.reload()
