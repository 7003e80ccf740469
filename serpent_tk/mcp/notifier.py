"""Library changes and tool-list changes, delivered to connected MCP clients.

Gateway events arrive on any thread (`publish`, thread-safe, never blocks); they are queued on
the listener loop and delivered in order by one task:

- handshake era (2025-11-25 and older, `Mcp-Session-Id`): every `LibraryChanged` becomes a
  `notifications/message` (level info, logger `serpent.library`) on each live session's GET
  stream, unless the session lowered its interest with `logging/setLevel` or its credential
  was revoked; `ToolsChanged` becomes `notifications/tools/list_changed`.
- modern era (2026-07-28, no sessions): `ToolsChanged` goes to `subscriptions/listen` streams;
  each library change also publishes `ResourceUpdated` for the library's change resource
  (`serpent://libraries/<id>/changes`), and a tool call that opted in to logs gets the changes
  that happened while it ran as request-scoped `notifications/message`.

What one credential sees (its mode and toolset) is watched too, in the credential file that the
window and the `credential` CLI write: when it changes, only that credential's sessions and
listen streams hear `notifications/tools/list_changed` (and `prompts/list_changed`, since
prompts follow the toolset). A library opening or closing never changes a tool list.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_args

import mcp_types as types
from mcp.server.apps import client_supports_apps
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.subscriptions import PromptsListChanged, ResourceUpdated, ToolsListChanged

from serpent_tk.automation.events import LibraryChanged, ToolsChanged
from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.http.guard import current_credential
from serpent_tk.mcp.listen_bus import CredentialBus

log = logging.getLogger(__name__)

LOGGER_NAME = "serpent.library"
LEVELS: tuple[str, ...] = get_args(types.LoggingLevel)  # severity ascending
EVENT_LEVEL: types.LoggingLevel = "info"
SESSION_HEADER = "mcp-session-id"
CREDENTIAL_POLL_S = 0.5  # how soon a toolset or mode changed by the CLI is told


def change_resource_uri(library_id: str) -> str:
    return f"serpent://libraries/{library_id}/changes"


def change_data(event: LibraryChanged) -> dict[str, Any]:
    """The `data` of a library-change notification (docs/contracts.md §4): the change event
    itself, cut to what clients are promised, camelCase."""
    return {"event": event.type, **event.model_dump(
        mode="json", by_alias=True, include={"library_id", "change_sequence", "kinds"})}


def change_notification(event: LibraryChanged) -> types.LoggingMessageNotification:
    return types.LoggingMessageNotification(params=types.LoggingMessageNotificationParams(
        level=EVENT_LEVEL, logger=LOGGER_NAME, data=change_data(event)))


def level_allows(threshold: str, level: str = EVENT_LEVEL) -> bool:
    return LEVELS.index(level) >= LEVELS.index(threshold)


@dataclass(frozen=True)
class SessionInfo:
    """A connected handshake-era client, as Settings → MCP may show it."""

    credential: str
    client_name: str
    client_version: str
    protocol_version: str
    apps: bool  # the client renders MCP Apps (advertised io.modelcontextprotocol/ui)


@dataclass
class _Session:
    session: Any  # mcp.server.session.ServerSession (per-request proxy; its channel is shared)
    credential_id: str
    credential_name: str
    info: SessionInfo
    threshold: str = "debug"


@dataclass(eq=False)
class _RequestWatch:
    queue: asyncio.Queue[LibraryChanged] = field(default_factory=asyncio.Queue)


class Notifier:
    """Owns the live-session table and the event queue. Everything but `publish` runs on the
    listener loop."""

    def __init__(self, credentials: CredentialStore,
                 on_sessions_changed: Callable[[int], None] | None = None) -> None:
        self.credentials = credentials
        self.bus = CredentialBus()
        self._sessions: dict[str, _Session] = {}
        self._watches: set[_RequestWatch] = set()
        self._latest: dict[str, LibraryChanged] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[object] | None = None
        self._task: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._views: dict[str, tuple[str, str]] = {}  # credential id -> (mode, toolset) told
        self._on_sessions_changed = on_sessions_changed

    # -- lifecycle (listener loop) ----------------------------------------------------------

    def attach(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        self._task = asyncio.ensure_future(self._deliver_forever())
        self._watcher = asyncio.ensure_future(self._watch_credentials())

    async def detach(self) -> None:
        loop, self._loop = self._loop, None
        for task in (self._task, self._watcher):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._watcher = None
        self._sessions.clear()
        if loop is not None:
            self._sessions_changed()

    # -- from any thread --------------------------------------------------------------------

    def publish(self, event: object) -> None:
        """Gateway listener: queue `event` for delivery. Thread-safe, never blocks."""
        if not isinstance(event, LibraryChanged | ToolsChanged):
            return
        loop, queue = self._loop, self._queue
        if loop is None or queue is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(queue.put_nowait, event)

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    def session_credentials(self) -> set[str]:
        return {entry.credential_name for entry in list(self._sessions.values())}

    def sessions(self) -> list[SessionInfo]:
        return [entry.info for entry in list(self._sessions.values())]

    def latest_change(self, library_id: str) -> LibraryChanged | None:
        return self._latest.get(library_id)

    # -- SDK hooks (listener loop) ----------------------------------------------------------

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
                         ) -> HandlerResult:
        """ServerMiddleware: remember the ServerSession of each handshake-era session."""
        request = ctx.request
        session_id = request.headers.get(SESSION_HEADER) if request is not None else None
        credential = current_credential()
        if credential is not None:  # what its clients were shown, if nothing was noted yet
            self._views.setdefault(credential.id, (credential.mode, credential.toolset))
        if session_id and session_id not in self._sessions and credential is not None:
            self._remember(session_id, ctx, credential.id, credential.name)
        return await call_next(ctx)

    def _remember(self, session_id: str, ctx: ServerRequestContext[Any, Any],
                  credential_id: str, credential_name: str) -> None:
        params = ctx.session.client_params
        client_info = params.client_info if params is not None else None
        info = SessionInfo(credential=credential_name,
                           client_name=client_info.name if client_info else "",
                           client_version=client_info.version if client_info else "",
                           protocol_version=ctx.session.protocol_version,
                           apps=client_supports_apps(ctx))
        self._sessions[session_id] = _Session(ctx.session, credential_id, credential_name, info)
        # PRIVATE SDK API (2.3.0 has no public one): the connection's exit stack runs when the
        # session ends (DELETE, idle timeout, server stop), which is when we forget it.
        connection = getattr(ctx.session, "_connection", None)
        exit_stack = getattr(connection, "exit_stack", None)
        if exit_stack is not None:
            exit_stack.callback(self._forget, session_id)
        self._sessions_changed()

    def _forget(self, session_id: str) -> None:
        if self._sessions.pop(session_id, None) is not None:
            self._sessions_changed()

    def _sessions_changed(self) -> None:
        if self._on_sessions_changed is not None:
            try:
                self._on_sessions_changed(len(self._sessions))
            except Exception:
                log.exception("session-count listener failed")

    async def set_level(self, ctx: ServerRequestContext[Any, Any],
                        params: types.SetLevelRequestParams) -> types.EmptyResult:
        """`logging/setLevel` (handshake era): library changes are sent at level info."""
        request = ctx.request
        session_id = request.headers.get(SESSION_HEADER) if request is not None else None
        entry = self._sessions.get(session_id or "")
        if entry is not None:
            entry.threshold = params.level
        return types.EmptyResult()

    # -- modern-era request-scoped delivery --------------------------------------------------

    def watch(self) -> _RequestWatch:
        watch = _RequestWatch()
        self._watches.add(watch)
        return watch

    def unwatch(self, watch: _RequestWatch) -> None:
        self._watches.discard(watch)

    # -- delivery (listener loop) -----------------------------------------------------------

    async def _deliver_forever(self) -> None:
        assert self._queue is not None
        while True:
            event = await self._queue.get()
            try:
                if isinstance(event, LibraryChanged):
                    await self._library_changed(event)
                elif isinstance(event, ToolsChanged):
                    await self._tools_changed()
            except Exception:
                log.exception("delivering %s to MCP clients failed", type(event).__name__)

    async def _library_changed(self, event: LibraryChanged) -> None:
        previous = self._latest.get(event.library_id)
        if previous is None or previous.change_sequence <= event.change_sequence:
            self._latest[event.library_id] = event
        for watch in list(self._watches):
            watch.queue.put_nowait(event)
        note = change_notification(event)
        live = {c.id for c in self.credentials.list()}  # revoked credentials hear nothing
        for entry in list(self._sessions.values()):
            if entry.credential_id in live and level_allows(entry.threshold):
                await entry.session.send_notification(note)
        await self.bus.publish(ResourceUpdated(uri=change_resource_uri(event.library_id)))

    async def _tools_changed(self, credential_ids: set[str] | None = None) -> None:
        """Tell the sessions and listen streams of `credential_ids` (None: everyone, a plugin
        came or went) that their tool list changed; a credential's own change (toolset,
        mode) also changes which prompts it is offered."""
        for entry in list(self._sessions.values()):
            if credential_ids is None or entry.credential_id in credential_ids:
                try:
                    await entry.session.send_tool_list_changed()
                    if credential_ids is not None:
                        await entry.session.send_prompt_list_changed()
                except Exception as error:  # a session going away meanwhile
                    log.debug("could not tell a session its tools changed: %s", error)
        await self.bus.publish(ToolsListChanged(), credential_ids)
        if credential_ids is not None:
            await self.bus.publish(PromptsListChanged(), credential_ids)

    def _current_views(self) -> dict[str, tuple[str, str]]:
        """What each credential sees, as far as a tool list goes: id → (mode, toolset)."""
        return {c.id: (c.mode, c.toolset) for c in self.credentials.list()}

    async def _watch_credentials(self) -> None:
        """Notice a credential's mode or toolset changing (in this process or the CLI's)
        since its clients were last shown one (their first request, or the last notice)."""
        self._views.update(await asyncio.to_thread(self._current_views))
        while True:
            await asyncio.sleep(CREDENTIAL_POLL_S)
            try:
                now = await asyncio.to_thread(self._current_views)
            except Exception:
                log.exception("reading the credentials for tool-list changes failed")
                continue
            changed = {cid for cid, view in now.items()
                       if cid in self._views and self._views[cid] != view}
            self._views = {cid: self._views.get(cid, view) if cid not in changed else view
                           for cid, view in now.items()}
            if changed:
                try:
                    await self._tools_changed(changed)
                except Exception:
                    log.exception("telling clients their tool list changed failed")
