"""The `subscriptions/listen` bus (2026-07-28 era), knowing whose each stream is: a change of
one credential's tools (its toolset or mode) reaches only that credential's streams.

Runs on the listener loop (the SDK's `ListenHandler` subscribes from inside the listen
request, where the request's credential is known; events are published from the notifier's
delivery task). Listeners are the SDK's: synchronous and never raising.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import anyio.lowlevel
from mcp.server.subscriptions import ServerEvent

from serpent_tk.mcp.http.guard import current_credential


class CredentialBus:
    """A `SubscriptionBus` (mcp.server.subscriptions) whose events can be addressed to some
    credentials only."""

    def __init__(self) -> None:
        # keyed by a token per subscription: the same callable may be registered twice
        self._listeners: dict[object, tuple[str | None, Callable[[ServerEvent], None]]] = {}

    async def publish(self, event: ServerEvent,
                      credential_ids: Collection[str] | None = None) -> None:
        """Deliver `event` to every stream, or only to those of `credential_ids`."""
        for owner, listener in list(self._listeners.values()):
            if credential_ids is None or owner in credential_ids:
                listener(event)
        await anyio.lowlevel.checkpoint()  # let the streams drain between bursts

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Register the listener of one listen stream, as the credential of the request that
        opened it; returns the (idempotent) unsubscribe."""
        credential = current_credential()
        token = object()
        self._listeners[token] = (credential.id if credential else None, listener)

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe
