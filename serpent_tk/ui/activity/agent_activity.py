"""Toasts for changes an AI client makes: one updating toast per client, not one per call.

Tk thread only. Fed by the gateway's `ChangeMade` receipts, whose text the command's spec
words ("Claude via MCP tagged 3 assets with “sky”"); when the same client keeps working, the
same toast updates ("… and 4 more changes") instead of stacking up. Library lifecycle
changes (close, rename, delete, import) are left out: the gateway raises its own toast for
those.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

QUIET_S = 8.0   # after this long without changes a client's count starts again
UPDATE_S = 0.3  # a client's toast text changes at most this often
AGENT_SOURCES = {"mcp", "plugin", "cli"}


@dataclass
class _Run:
    changes: int
    last: float
    shown: float = 0.0


class AgentActivity:
    def __init__(self, show: Callable[..., None]) -> None:
        self.show = show
        self._runs: dict[str, _Run] = {}

    def change_made(self, event: Any) -> None:
        """A gateway `ChangeMade` for the library on show."""
        if event.source not in AGENT_SOURCES or event.lifecycle is not None:
            return
        now = time.monotonic()
        run = self._runs.get(event.actor_label)
        if run is None or now - run.last > QUIET_S:
            run = self._runs[event.actor_label] = _Run(0, now)
        run.changes += 1
        run.last = now
        if run.changes > 1 and now - run.shown < UPDATE_S:
            return                      # counted; the next update shows the new total
        run.shown = now
        text = f"{event.actor_label} {event.text}"
        if run.changes > 1:
            more = run.changes - 1
            text += f" — and {more} more change{'s' if more != 1 else ''}"
        self.show(text + ".", "info", key=f"agent:{event.actor_label}")
