"""UiBus: how other threads reach the Tk thread.

`post()` is thread-safe and never blocks; `drain()` runs on the Tk thread (from `after()`),
handling at most `batch` events per tick so a flood of events never freezes the window.
Events are plain typed objects; handlers are looked up by the event's class.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Handler = Callable[[Any], None]


class UiBus:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._handlers: dict[type, list[Handler]] = {}

    def post(self, event: Any) -> None:
        """Thread-safe: queue `event` for the Tk thread."""
        self._queue.put(event)

    def subscribe(self, event_type: type, handler: Handler) -> None:
        """Tk thread only."""
        self._handlers.setdefault(event_type, []).append(handler)

    def drain(self, batch: int = 200) -> int:
        """Tk thread only: dispatch up to `batch` queued events; returns how many ran."""
        handled = 0
        while handled < batch:
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                break
            handled += 1
            for handler in self._handlers.get(type(event), ()):
                try:
                    handler(event)
                except Exception:
                    log.exception("UI handler for %s failed", type(event).__name__)
        return handled

    def pending(self) -> bool:
        return not self._queue.empty()
