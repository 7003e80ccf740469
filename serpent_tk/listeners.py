"""Listeners: subscribe, get back the function that unsubscribes, tell them all. The one way
the gateway, the command registry, the plugin exposure and the window's bus keep listeners.

Thread-safe: any thread subscribes, unsubscribes or tells. Listeners run on the telling thread,
outside the lock, in the order they came; one that raises is logged and the others still hear.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")
log = logging.getLogger(__name__)


class Listeners(Generic[P]):
    """Who hears about `what` (a few words for the log: "gateway events")."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._lock = threading.Lock()
        # keyed by a token per subscription: the same function may subscribe twice, and each
        # unsubscribe removes its own
        self._listeners: dict[object, Callable[P, object]] = {}

    def subscribe(self, listener: Callable[P, object]) -> Callable[[], None]:
        """Add `listener` (what it returns is ignored); returns the unsubscribe function
        (calling it twice is harmless)."""
        token = object()
        with self._lock:
            self._listeners[token] = listener

        def unsubscribe() -> None:
            with self._lock:
                self._listeners.pop(token, None)

        return unsubscribe

    def tell(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Call every listener subscribed now; a failing one is logged, never raised."""
        with self._lock:
            listeners = list(self._listeners.values())
        for listener in listeners:
            try:
                listener(*args, **kwargs)
            except Exception:
                log.exception("a listener of %s failed", self.what)

    def clear(self) -> None:
        with self._lock:
            self._listeners.clear()

    def __len__(self) -> int:
        return len(self._listeners)
