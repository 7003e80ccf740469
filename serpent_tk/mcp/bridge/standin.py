"""What `serpent-tk mcp-bridge` answers while Serpent is not running: a stand-in server.

Runs on the bridge's asyncio loop: the very server Serpent answers with (`server.new_server`:
its name, instructions and capabilities) on a pair of memory streams, with handlers that need
no Serpent. The tools and prompts come from this installation's own registry, for the mode and
toolset of the bridge's credential (read from the credential store this user's Serpent uses),
so they are what Serpent lists for it; a tool call answers the tool error SERPENT_NOT_RUNNING,
which tells the person to start Serpent. Resource templates and the search grid's page need no
library; reading an asset or getting a prompt is a JSON-RPC error saying the same. relay.py
hands over to Serpent as soon as it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from library.errors import SERPENT_NOT_RUNNING, LibraryError
from serpent_tk.automation import envelope as envelopes
from serpent_tk.automation import errors
from serpent_tk.credentials import Credential
from serpent_tk.mcp.tools.budget import dumps
from serpent_tk.mcp.tools.catalogue import Catalogue
from serpent_tk.mcp.tools.prompts import Prompts
from serpent_tk.mcp.tools.resources import Resources, app_resource, read_app

log = logging.getLogger(__name__)

Ctx = ServerRequestContext[Any, Any]
NOT_RUNNING = -32000  # JSON-RPC error code where there is no tool result to tell it in
NOT_RUNNING_MESSAGE = ("Serpent is not running, so its library tools are unavailable. Open "
                       "the Serpent app (or run `serpent-tk serve`), then try again: this "
                       "conversation picks it up by itself.")
OWN_ID = "serpent-bridge:"  # ids of the bridge's own requests; their answers stay inside
PRIME_ID = OWN_ID + "stand-in-initialize"


def not_running_result(arguments: dict[str, Any] | None, message: str = NOT_RUNNING_MESSAGE,
                       *, retryable: bool = True) -> types.CallToolResult:
    """The tool error a call gets while Serpent is not running (valid against every tool's
    output schema: an error envelope). `retryable` False: the call may have been done."""
    library_id = (arguments or {}).get("libraryId")
    envelope = envelopes.error(LibraryError(SERPENT_NOT_RUNNING, message),
                               library_id if isinstance(library_id, str) else None)
    if not retryable:
        envelope["error"].pop("retryable", None)
    return types.CallToolResult(is_error=True, structured_content=envelopes.as_json(envelope),
                                content=[types.TextContent(type="text", text=dumps(envelope))])


class StandInHandlers:
    """Answers without Serpent, as the credential `credential()` returns (None: unknown).

    `also_known()`: tool names the client saw from a running Serpent (a plugin's, say); a
    call of one is told to start Serpent too, not that the tool does not exist."""

    def __init__(self, credential: Callable[[], Credential | None],
                 also_known: Callable[[], Collection[str]]) -> None:
        self._credential = credential
        self._also_known = also_known
        self._catalogue: Catalogue | None = None

    def catalogue(self) -> Catalogue:
        """Built on first use: the registry costs a few tenths of a second to build."""
        if self._catalogue is None:
            from serpent_tk.automation.commands import build_registry
            from serpent_tk.mcp.apps.search_app import tool_meta

            self._catalogue = Catalogue(build_registry(), tool_meta())
        return self._catalogue

    def tool_names(self) -> set[str]:
        credential = self._credential()
        if credential is None:
            return set()
        return {spec.tool_name
                for spec in self.catalogue().specs(credential.mode, credential.toolset)}

    def _callable(self, tool_name: str) -> bool:
        credential = self._credential()
        return credential is not None and self.catalogue().visible(
            tool_name, credential.mode, credential.toolset) is not None

    def tool_input_schema(self, tool_name: str) -> dict[str, Any] | None:
        return self.catalogue().input_schema(tool_name) if self._callable(tool_name) else None

    async def list_tools(self, ctx: Ctx, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        credential = self._credential()
        return types.ListToolsResult(tools=self.catalogue().tools(
            credential.mode, credential.toolset) if credential else [])

    async def call_tool(self, ctx: Ctx, params: types.CallToolRequestParams
                        ) -> types.CallToolResult:
        if not self._callable(params.name) and params.name not in self._also_known():
            raise MCPError(types.INVALID_PARAMS, errors.unknown_command(params.name).message)
        return not_running_result(params.arguments)

    async def list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[app_resource()])

    async def read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        if str(params.uri) == app_resource().uri:
            return read_app()
        raise MCPError(NOT_RUNNING, NOT_RUNNING_MESSAGE)

    async def list_resource_templates(self, ctx: Ctx, params: types.PaginatedRequestParams
                                      | None) -> types.ListResourceTemplatesResult:
        return Resources.templates()

    def _prompts(self) -> Prompts:
        return Prompts(self.catalogue().registry)

    async def list_prompts(self, ctx: Ctx, params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult:
        prompts = self._prompts()
        return types.ListPromptsResult(prompts=[
            prompts.as_mcp(p) for p in prompts.offered(self.tool_names())])

    async def get_prompt(self, ctx: Ctx, params: types.GetPromptRequestParams
                         ) -> types.GetPromptResult:
        self._prompts().find(params.name, self.tool_names())  # an unknown one: -32602
        raise MCPError(NOT_RUNNING, NOT_RUNNING_MESSAGE)

    async def complete(self, ctx: Ctx, params: types.CompleteRequestParams
                       ) -> types.CompleteResult:
        return types.CompleteResult(completion=types.Completion(values=[], total=0,
                                                                has_more=False))

    async def set_level(self, ctx: Ctx, params: types.SetLevelRequestParams
                        ) -> types.EmptyResult:
        return types.EmptyResult()  # nothing to log while Serpent is not running


class StandIn:
    """The stand-in server, started on first use and fed the client's JSON-RPC messages;
    what it answers goes to `write`, except the answers to the bridge's own requests."""

    def __init__(self, handlers: StandInHandlers,
                 write: Callable[[dict[str, Any]], None]) -> None:
        self.handlers = handlers
        self._write = write
        self._bus = InMemorySubscriptionBus()
        self._inbox: MemoryObjectSendStream[SessionMessage | Exception] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.primed = False  # it has seen an initialize (handshake era)

    def _start(self) -> None:
        """The server and the task that writes its answers (it imports the HTTP side's
        server module: only when first needed)."""
        from serpent_tk.mcp.server import new_server

        handlers = self.handlers
        server = new_server(handlers, ListenHandler(self._bus), handlers.set_level)
        inbox, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](32)
        write_stream, outbox = anyio.create_memory_object_stream[SessionMessage](32)
        self._inbox = inbox

        async def serve() -> None:
            await server.run(read_stream, write_stream, server.create_initialization_options())

        async def answer() -> None:
            async with outbox:
                async for item in outbox:
                    message = item.message.model_dump(by_alias=True, exclude_unset=True,
                                                      mode="json")
                    if not str(message.get("id", "")).startswith(OWN_ID):
                        self._write(message)

        self._tasks = [asyncio.ensure_future(serve()), asyncio.ensure_future(answer())]

    async def send(self, message: dict[str, Any]) -> None:
        """Hand one client message to the stand-in; its answer comes through `write`."""
        if self._inbox is None:
            self._start()
        assert self._inbox is not None
        if message.get("method") == "initialize":
            self.primed = True
        try:
            parsed = types.jsonrpc_message_adapter.validate_python(message, by_name=False)
        except ValueError as error:
            log.warning("the stand-in could not read a %s message: %s",
                        message.get("method", "response"), type(error).__name__)
            return
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._inbox.send(SessionMessage(parsed))

    async def prime(self, initialize: dict[str, Any], initialized: bool) -> None:
        """Take over a session the client opened with Serpent: the client's own initialize
        (and initialized), whose answers nobody sees."""
        await self.send({**initialize, "id": PRIME_ID})
        if initialized:
            await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def lists_changed(self, tools: bool, prompts: bool) -> None:
        """Tell the client's `subscriptions/listen` streams (2026-07-28 era) held here."""
        if tools:
            await self._bus.publish(ToolsListChanged())
        if prompts:
            await self._bus.publish(PromptsListChanged())

    async def close(self) -> None:
        if self._inbox is not None:
            self._inbox.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
