"""Waiting in tests: poll a condition until it holds or a deadline passes, never a blind sleep.

Runs in the test process (any thread). `wait_until` polls a condition and returns its first
truthy value, or fails naming what it waited for; `async_wait_until` is the same inside an
event loop; `Deadline` is the arithmetic for loops that block on something else meanwhile (a
queue, a pipe, a condition variable) and only need to know how long is left.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

TIMEOUT = 60.0  # a deadline for slow, crowded machines, not a timing: it never decides a pass
INTERVAL = 0.02


class Deadline:
    """A point `seconds` from now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        """Seconds left, never below 0."""
        return max(0.0, self.end - time.monotonic())

    def passed(self) -> bool:
        return time.monotonic() >= self.end


def wait_until(condition: Callable[[], T], what: str | Callable[[], str],
               timeout: float = TIMEOUT, *, interval: float = INTERVAL,
               tick: Callable[[], object] | None = None) -> T:
    """Poll `condition` until it returns something truthy and return that. Fails with
    "timed out waiting for <what>" once `timeout` seconds passed (the condition is always
    asked once more at the deadline; `what` may be a function, asked then, to say how far
    it got). `tick` runs before every poll (a Tk window's `update`, so the window works
    while the test waits)."""
    deadline = Deadline(timeout)
    while True:
        if tick is not None:
            tick()
        value = condition()
        if value:
            return value
        if deadline.passed():
            raise AssertionError(timed_out(what, timeout))
        time.sleep(min(interval, deadline.remaining()))


async def async_wait_until(condition: Callable[[], Awaitable[T]], what: str | Callable[[], str],
                           timeout: float = TIMEOUT, *, interval: float = INTERVAL) -> T:
    """`wait_until` for an event loop: awaits `condition()` until it is truthy."""
    deadline = Deadline(timeout)
    while True:
        value = await condition()
        if value:
            return value
        if deadline.passed():
            raise AssertionError(timed_out(what, timeout))
        await asyncio.sleep(min(interval, deadline.remaining()))


def timed_out(what: str | Callable[[], str], timeout: float) -> str:
    return f"timed out waiting for {what if isinstance(what, str) else what()} ({timeout:g} s)"
