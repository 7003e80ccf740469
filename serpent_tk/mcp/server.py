"""One MCP server instance: the lowlevel SDK `Server`, its session manager and the ASGI app.

Built fresh for every start (the SDK's session manager runs once per instance); runs on the
listener loop. The app answers `/mcp` (a `Route`, not a `Mount`, so `POST /mcp` is never
redirected) and `POST /serpent/identify` (the bridge's challenge, see `identify.py`); every
other path, `/.well-known/*` included, is a plain 404, so no client starts an OAuth discovery.
`new_server` is also what the bridge's stand-in answers with while Serpent is not running, so
a client meets the same server either way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.context import ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.routing import Route

from serpent_tk import __version__
from serpent_tk.credentials import Credential, CredentialStore
from serpent_tk.mcp.apps import search_app
from serpent_tk.mcp.endpoint import IDENTIFY_PATH
from serpent_tk.mcp.http.event_store import RETRY_MS
from serpent_tk.mcp.http.guard import RequestGuard, allowed_hosts
from serpent_tk.mcp.http.identify import IdentifyEndpoint
from serpent_tk.mcp.http.sessions import (
    MAX_SESSIONS,
    SESSION_IDLE_TIMEOUT_S,
    ClientRoom,
    CountedSessionManager,
)
from serpent_tk.mcp.notifier import Notifier
from serpent_tk.mcp.tasks.methods import TaskMethods
from serpent_tk.mcp.tasks.wire import EXTENSION_ID as TASKS_EXTENSION
from serpent_tk.mcp.tasks.wire import LEGACY_CAPABILITY
from serpent_tk.mcp.tools.budget import Budget
from serpent_tk.mcp.tools.catalogue import Catalogue
from serpent_tk.mcp.tools.continuations import Continuations
from serpent_tk.mcp.tools.handlers import GatewayLike, Handlers

MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024
Ctx = ServerRequestContext[Any, Any]

INSTRUCTIONS = """\
Serpent is the person's desktop asset library: reference images, textures, photos, fonts, \
video and other files kept in libraries with folders, tags, collections, smart collections, \
ratings, notes, a trash and undo. Use these tools whenever the person asks about their \
Serpent library or wants assets found, looked at, imported, tagged, rated, sorted into folders \
or collections, renamed, trashed or restored there. They are not for general file work outside \
Serpent.

Call serpent_library_list_open first. Every library-level tool needs a libraryId and you must \
pass it explicitly on every call: there is no current or default library, and nothing is \
remembered between calls. If no library is open, use serpent_library_list_recent and \
serpent_library_open.

Look before you judge: serpent_asset_thumbnail with assetIds (up to 36) returns one contact \
sheet whose numbered cells its items map to assetIds. Batch your changes: serpent_asset_tag \
takes tagsByAsset {assetId: [tags]}, serpent_asset_update takes assetIds (the same rating, notes \
or source URL for up to 500). Every change shows up in the person's Serpent window at once and \
can be undone with serpent_history_undo. Dangerous tools (permanent delete, emptying the trash, \
deleting a library from disk) first answer status confirmation_required with a riskReport and a \
challenge: show the report to the person and repeat the exact call with confirmChallenge only \
after they agree. Lists are paged: pass nextCursor back as cursor. truncated: true means an \
answer was cut to fit the response size limit: call the same tool with cursor set to its \
nextCursor for the rest (nothing runs again). Write tools take idempotencyKey: a retry with the \
same key returns the first answer instead of changing twice. Errors carry a stable code (e.g. \
LIBRARY_REQUIRED, VERSION_CONFLICT); retry only when retryable is true.

Toolsets: this connection sees either essentials (the everyday tools: find, look, import, tag, \
rate, move into folders, trash and restore, undo, folders, tags, collections, duplicates) or \
everything (also renaming and deleting folders, tags and collections, linked folders, library \
management, history, analysis, background tasks). If a tool you need is missing, ask the \
person to switch this client's credential to everything in Serpent's Settings → MCP (or \
`serpent-tk credential toolset NAME everything`). The prompts (tag untagged pictures, file the \
latest import, review duplicates, curate a collection) walk through whole jobs."""


class SerpentServer(Server[Any]):
    """The lowlevel server, advertising `tools.listChanged` and `prompts.listChanged` to
    handshake-era clients too, and the 2025-11-25 `tasks` capability (`mcp.tasks`)."""

    def get_capabilities(
            self, notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None, *,
            protocol_version: str | None = None) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(notification_options,
                                                experimental_capabilities, extensions,
                                                protocol_version=protocol_version)
        if protocol_version not in MODERN_PROTOCOL_VERSIONS:
            capabilities.tasks = LEGACY_CAPABILITY
        return capabilities

    def create_initialization_options(
            self, notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True,
                                                        prompts_changed=True),
            experimental_capabilities, extensions)


class ServerHandlers(Protocol):
    """What answers a Serpent server's requests: `Handlers` inside Serpent, the bridge's
    stand-in (`bridge/standin.py`) while Serpent is not running."""

    async def list_tools(self, ctx: Ctx, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult: ...

    async def call_tool(self, ctx: Ctx, params: types.CallToolRequestParams
                        ) -> types.CallToolResult: ...

    async def list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult: ...

    async def read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult: ...

    async def list_resource_templates(self, ctx: Ctx, params: types.PaginatedRequestParams
                                      | None) -> types.ListResourceTemplatesResult: ...

    async def list_prompts(self, ctx: Ctx, params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult: ...

    async def get_prompt(self, ctx: Ctx, params: types.GetPromptRequestParams
                         ) -> types.GetPromptResult: ...

    async def complete(self, ctx: Ctx, params: types.CompleteRequestParams
                       ) -> types.CompleteResult: ...

    def tool_input_schema(self, tool_name: str) -> dict[str, Any] | None: ...


SetLevel = Callable[[Ctx, types.SetLevelRequestParams], Awaitable[types.EmptyResult]]


def new_server(handlers: ServerHandlers, listen: ListenHandler,
               set_level: SetLevel) -> SerpentServer:
    """The lowlevel server with Serpent's name, instructions and capabilities, answering with
    `handlers`: the same `initialize` whoever answers (Serpent, or the bridge's stand-in)."""
    server = SerpentServer(
        "serpent", version=__version__, title="Serpent",
        description="Serpent desktop asset library", instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources, on_read_resource=handlers.read_resource,
        on_list_resource_templates=handlers.list_resource_templates,
        on_list_prompts=handlers.list_prompts, on_get_prompt=handlers.get_prompt,
        on_completion=handlers.complete,
        on_subscriptions_listen=listen, get_tool_input_schema=handlers.tool_input_schema)
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    server.extensions[search_app.EXTENSION_ID] = {}
    server.extensions[TASKS_EXTENSION] = {}  # 2026-07-28 tasks (`mcp.tasks`)
    return server


def security_settings(port: int) -> TransportSecuritySettings:
    """The SDK's own Host/Origin check, behind ours (same rules; defence in depth)."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts(port),
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
                         "https://127.0.0.1:*", "https://localhost:*", "https://[::1]:*"])


def build_app(*, gateway: GatewayLike, credentials: CredentialStore, catalogue: Catalogue,
              notifier: Notifier, budget: Callable[[], Budget], continuations: Continuations,
              port: int, secret: str,
              on_request: Callable[[Credential], None] | None = None) -> Starlette:
    """`secret`: this run's endpoint secret, which `POST /serpent/identify` proves we know."""
    handlers = Handlers(gateway, catalogue, notifier, budget, continuations)
    listen = ListenHandler(notifier.bus)
    server = new_server(handlers, listen, notifier.set_level)
    server.middleware.append(notifier.middleware)
    tasks = TaskMethods(gateway, catalogue, lambda: {
        types.SERVER_INFO_META_KEY: server.server_info_stamp})
    tasks.install(server)  # long work as MCP tasks (`mcp.tasks`)
    manager = CountedSessionManager(
        server, security_settings=security_settings(port),
        max_request_body_size=MAX_REQUEST_BODY_BYTES, retry_interval=RETRY_MS,
        session_idle_timeout=SESSION_IDLE_TIMEOUT_S, max_sessions=MAX_SESSIONS)
    room = ClientRoom(manager, lambda: {c.id for c in credentials.list()})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            notifier.attach()
            tasks.registry.attach()
            unsubscribe = gateway.subscribe(tasks.registry.publish)
            watcher = asyncio.ensure_future(room.watch_revocations())
            try:
                yield
            finally:
                unsubscribe()
                await tasks.stop()
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
                listen.close()
                await notifier.detach()

    guard = RequestGuard(manager.handle_request, port=port, credentials=credentials,
                         room=room, max_body_bytes=MAX_REQUEST_BODY_BYTES,
                         on_request=on_request)
    identify = IdentifyEndpoint(secret, port)
    return Starlette(routes=[Route("/mcp", guard), Route(IDENTIFY_PATH, identify,
                                                         methods=["POST"])],
                     lifespan=lifespan)
