"""The recent SSE events of one handshake-era session, so a client that lost a stream mid-call
picks it up again (`Last-Event-ID`) instead of losing the answer.

Runs on the listener loop (the SDK's transport calls it). With an event store the SDK opens
every POST SSE stream with a priming event (an id and empty data) carrying `retry` (the
2025-11-25 transport's SHOULDs, which the conformance runner checks), and ids every event.
Each session has a store of its own (`sessions.CountedSessionManager`), so event ids never
cross sessions and a stream is never replayed to another session. Bounded: at most
`MAX_EVENTS` events and `MAX_BYTES` of them per session, oldest dropped first; an event larger
than that is not kept at all (its stream cannot be resumed past it).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp_types import JSONRPCMessage

RETRY_MS = 1000  # what the priming event tells a client to wait before reconnecting
MAX_EVENTS = 64
MAX_BYTES = 512 * 1024


@dataclass(frozen=True)
class _Event:
    stream_id: str
    message: JSONRPCMessage | None  # None: a priming event
    size: int


class RecentEvents(EventStore):
    """One session's most recent events, by id (ids count up from 1)."""

    def __init__(self, max_events: int = MAX_EVENTS, max_bytes: int = MAX_BYTES) -> None:
        self._max_events = max_events
        self._max_bytes = max_bytes
        self._events: OrderedDict[str, _Event] = OrderedDict()
        self._bytes = 0
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        event_id = str(next(self._ids))
        size = len(message.model_dump_json(by_alias=True, exclude_unset=True)) \
            if message is not None else 0
        if size > self._max_bytes:
            return event_id  # too large to keep: numbered, but not replayable
        self._events[event_id] = _Event(stream_id, message, size)
        self._bytes += size
        while len(self._events) > self._max_events or self._bytes > self._max_bytes:
            _gone, oldest = self._events.popitem(last=False)
            self._bytes -= oldest.size
        return event_id

    async def replay_events_after(self, last_event_id: str,
                                  send_callback: EventCallback) -> str | None:
        """Send the events of `last_event_id`'s stream that came after it; that stream's id,
        or None when the event is not (or no longer) known."""
        known = self._events.get(last_event_id)
        if known is None:
            return None
        later = False
        for event_id, event in list(self._events.items()):
            if event_id == last_event_id:
                later = True
            elif later and event.stream_id == known.stream_id and event.message is not None:
                await send_callback(EventMessage(event.message, event_id))
        return known.stream_id

    @property
    def kept(self) -> int:
        """How many events are kept (no `__len__`: the SDK tests a store for truth)."""
        return len(self._events)
