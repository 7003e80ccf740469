"""The polling helper every test waits with (tests/waiting.py): it returns what the condition
found, runs the caller's tick while it waits, and fails naming what it waited for."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from tests.waiting import Deadline, async_wait_until, wait_until


def test_wait_until_returns_the_first_truthy_value_and_ticks_before_each_poll() -> None:
    polls = itertools.count(1)
    ticks: list[int] = []
    found = wait_until(lambda: (lambda n: [n] if n >= 3 else None)(next(polls)),
                       "the third poll", tick=lambda: ticks.append(1), interval=0)
    assert found == [3] and len(ticks) == 3


def test_wait_until_fails_naming_what_it_waited_for() -> None:
    asked: list[int] = []
    with pytest.raises(AssertionError, match=r"timed out waiting for the moon \(0\.05 s\)"):
        wait_until(lambda: asked.append(1), "the moon", 0.05, interval=0.01)
    assert len(asked) >= 2, "the condition is asked again at the deadline"
    with pytest.raises(AssertionError, match="waiting for 3 of 5 done"):
        wait_until(lambda: False, lambda: "3 of 5 done", 0)


def test_async_wait_until_awaits_the_condition() -> None:
    polls = itertools.count(1)

    async def third() -> int:
        n = next(polls)
        return n if n >= 3 else 0

    assert asyncio.run(async_wait_until(third, "the third poll", interval=0)) == 3
    with pytest.raises(AssertionError, match="timed out waiting for nothing"):
        asyncio.run(async_wait_until(lambda: asyncio.sleep(0, result=None), "nothing", 0))


def test_a_deadline_counts_down_to_zero() -> None:
    assert Deadline(0).passed() and Deadline(0).remaining() == 0.0
    assert not Deadline(60).passed() and 0 < Deadline(60).remaining() <= 60
