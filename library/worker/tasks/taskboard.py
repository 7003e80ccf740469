"""What the worker knows about its running tasks between database writes.

Thread-safe; runs in the worker process. One `TaskBoard` per open library holds the live
progress of running tasks (so `task.get` is current without a write per item), the cancel
requests (`task.cancel` is answered on a reader thread, so it never waits behind an import)
and the event that wakes the background runner when work is queued or cancelled.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

MAX_OUTCOMES = 1000


@dataclass
class Live:
    done: int
    total: int | None
    message: str = ""


class TaskBoard:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[str, Live] = {}
        self._cancels: set[str] = set()
        self._stopped: dict[str, threading.Event] = {}
        self._outcomes: dict[str, str] = {}  # how tasks that stopped in this worker ended
        self.wake = threading.Event()

    # -- running tasks -----------------------------------------------------------------
    def started(self, task_id: str, done: int, total: int | None, message: str = "") -> None:
        with self._lock:
            self._live[task_id] = Live(done, total, message)
            self._stopped[task_id] = threading.Event()

    def progress(self, task_id: str, done: int, total: int | None, message: str = "") -> None:
        with self._lock:
            self._live[task_id] = Live(done, total, message)

    def finished(self, task_id: str, outcome: str) -> None:
        """The task stopped working; `outcome` is the status its row now has."""
        with self._lock:
            self._live.pop(task_id, None)
            self._cancels.discard(task_id)
            stopped = self._stopped.pop(task_id, None)
            self._outcomes[task_id] = outcome
            while len(self._outcomes) > MAX_OUTCOMES:
                del self._outcomes[next(iter(self._outcomes))]
        if stopped is not None:
            stopped.set()

    def live(self, task_id: str) -> Live | None:
        with self._lock:
            return self._live.get(task_id)

    def running(self, task_id: str) -> bool:
        with self._lock:
            return task_id in self._live

    def outcome(self, task_id: str) -> str | None:
        """How a task ended, if it ended in this worker (its row may be newer than a
        reader's snapshot)."""
        with self._lock:
            return self._outcomes.get(task_id)

    # -- cancelling ---------------------------------------------------------------------
    def cancel(self, task_id: str) -> threading.Event | None:
        """Ask a task to stop; returns an event set once a running one has stopped."""
        with self._lock:
            self._cancels.add(task_id)
            stopped = self._stopped.get(task_id)
        self.wake.set()
        return stopped

    def cancel_requested(self, task_id: str) -> bool:
        with self._lock:
            return task_id in self._cancels

    def pending_cancels(self) -> set[str]:
        with self._lock:
            return set(self._cancels)

    def forget_cancel(self, task_id: str) -> None:
        with self._lock:
            self._cancels.discard(task_id)


_boards: dict[Path, TaskBoard] = {}
_boards_lock = threading.Lock()


def board_for(root: Path) -> TaskBoard:
    """The one board of the library at `root` in this worker."""
    with _boards_lock:
        board = _boards.get(root)
        if board is None:
            board = _boards[root] = TaskBoard()
        return board
