"""UiBus: how other threads reach the Tk thread.

`post()` is thread-safe and never blocks; `drain()` runs on the Tk thread (from `after()`),
handling at most `batch` events and at most `budget_s` seconds of work per tick, so a flood of
events never freezes the window.
Events are plain typed objects; handlers are looked up by the event's class.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any

from serpent_tk.listeners import Listeners

Handler = Callable[[Any], object]


class UiBus:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._handlers: dict[type, Listeners[[Any]]] = {}

    def post(self, event: Any) -> None:
        """Thread-safe: queue `event` for the Tk thread."""
        self._queue.put(event)

    def subscribe(self, event_type: type, handler: Handler) -> Callable[[], None]:
        """Tk thread only. Returns a function that removes the handler again."""
        handlers = self._handlers.get(event_type)
        if handlers is None:
            handlers = self._handlers[event_type] = Listeners(f"{event_type.__name__} (UI)")
        return handlers.subscribe(handler)

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
            handlers = self._handlers.get(type(event))
            if handlers is not None:
                handlers.tell(event)  # a failing handler is logged; the others still run
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
