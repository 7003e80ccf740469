"""The window's bus (UiBus) and the one listener helper under it (serpent_tk/listeners.py, which
the gateway, the registry and the plugin exposure use too): unsubscribe removes exactly its own
subscription, a failing listener is logged while the others still hear, and subscribing from
many threads while telling loses nobody. No Tk needed: `drain` is what the Tk thread calls."""

from __future__ import annotations

import logging
import threading

import pytest

from serpent_tk.listeners import Listeners
from serpent_tk.ui.shell.bus import UiBus


def test_each_unsubscribe_removes_its_own_subscription() -> None:
    heard: list[str] = []
    listeners: Listeners[[str]] = Listeners("words")
    first = listeners.subscribe(heard.append)
    listeners.subscribe(heard.append)  # the same function twice: it hears twice
    listeners.tell("a")
    first()
    first()  # twice is harmless
    listeners.tell("b")
    assert heard == ["a", "a", "b"]


def test_a_failing_listener_is_logged_and_the_others_still_hear(
        caplog: pytest.LogCaptureFixture) -> None:
    heard: list[int] = []
    listeners: Listeners[[int]] = Listeners("numbers")

    def broken(_: int) -> None:
        raise RuntimeError("boom")

    listeners.subscribe(broken)
    listeners.subscribe(heard.append)
    with caplog.at_level(logging.ERROR, logger="serpent_tk.listeners"):
        listeners.tell(7)
    assert heard == [7]
    assert "a listener of numbers failed" in caplog.text and "boom" in caplog.text


def test_a_listener_may_unsubscribe_while_being_told() -> None:
    heard: list[str] = []
    listeners: Listeners[[]] = Listeners("nothing")
    off = listeners.subscribe(lambda: (heard.append("once"), off()))
    listeners.subscribe(lambda: heard.append("always"))
    listeners.tell()
    listeners.tell()
    assert heard == ["once", "always", "always"]


def test_subscribing_from_many_threads_loses_nobody() -> None:
    listeners: Listeners[[]] = Listeners("threads")
    counts = [0] * 8
    start = threading.Barrier(9)

    def join(index: int) -> None:
        start.wait()
        for _ in range(200):
            listeners.subscribe(lambda: None)()  # churn beside the others
        listeners.subscribe(lambda: counts.__setitem__(index, counts[index] + 1))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    start.wait()
    for _ in range(50):
        listeners.tell()
    for thread in threads:
        thread.join()
    assert len(listeners) == 8
    before = list(counts)
    listeners.tell()
    assert [after - b for after, b in zip(counts, before, strict=True)] == [1] * 8



class Ping:
    pass


class Pong:
    pass


def test_the_bus_hands_each_event_to_its_own_handlers_even_past_a_failing_one(
        caplog: pytest.LogCaptureFixture) -> None:
    bus = UiBus()
    seen: list[str] = []

    def broken(_: object) -> None:
        raise RuntimeError("handler bug")

    bus.subscribe(Ping, broken)
    off = bus.subscribe(Ping, lambda e: seen.append("ping"))
    bus.subscribe(Pong, lambda e: seen.append("pong"))
    threads = [threading.Thread(target=bus.post, args=(event,)) for event in (Ping(), Pong())]
    for thread in threads:
        thread.start()
        thread.join()
    with caplog.at_level(logging.ERROR, logger="serpent_tk.listeners"):
        assert bus.drain() == 2
    assert seen == ["ping", "pong"]
    assert "a listener of Ping (UI) failed" in caplog.text
    off()
    bus.post(Ping())
    bus.drain()
    assert seen == ["ping", "pong"]
