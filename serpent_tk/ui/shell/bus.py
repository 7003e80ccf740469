"""UiBus: how other threads reach the Tk thread.

`post()` is thread-safe and never blocks; `drain()` runs on the Tk thread (from `after()`),
handling at most `batch` events and at most `budget_s` seconds of work per tick, so a flood of
events never freezes the window.
Events are plain typed objects; handlers are looked up by the event's class.
"""

from __future__ import annotations

import logging
import queue
import time
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

    def subscribe(self, event_type: type, handler: Handler) -> Callable[[], None]:
        """Tk thread only. Returns a function that removes the handler again."""
        handlers = self._handlers.setdefault(event_type, [])
        handlers.append(handler)

        def unsubscribe() -> None:
            if handler in handlers:
                handlers.remove(handler)

        return unsubscribe

    def drain(self, batch: int = 200, budget_s: float = 0.03) -> int:
        """Tk thread only: dispatch up to `batch` queued events, stopping early once
        `budget_s` seconds have passed; returns how many ran."""
        handled = 0
        deadline = time.perf_counter() + budget_s
        while handled < batch and (handled == 0 or time.perf_counter() < deadline):
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                break
            handled += 1
            for handler in tuple(self._handlers.get(type(event), ())):
                try:
                    handler(event)
                except Exception:
                    log.exception("UI handler for %s failed", type(event).__name__)
        return handled

    def discard_pending(self) -> int:
        """Drop everything queued (the window closed: nobody is left to show it)."""
        dropped = 0
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return dropped
            dropped += 1

    def pending(self) -> bool:
        return not self._queue.empty()
