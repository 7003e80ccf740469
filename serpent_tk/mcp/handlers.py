"""The MCP request handlers: tools/list, tools/call, resources/list and resources/read.

Runs on the listener loop. Every call goes through `gateway.submit(...)` with the caller built
from the request's credential, awaited with `asyncio.wrap_future`; the gateway's envelope
(CONTRACTS.md §2) becomes `structuredContent` plus the same JSON as text, `isError` for an
error. An unknown tool and a plugin tool called without Full Access get the very same answer.
Nothing here remembers a library between calls: `libraryId` travels in every call.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serpent_tk.automation import envelope as envelopes
from serpent_tk.automation import errors
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.credentials import Credential
from serpent_tk.mcp import search_app
from serpent_tk.mcp.budget import (
    FRAMING_BYTES,
    Budget,
    dumps,
    encoded_size,
    fit_locally,
    items_that_fit,
)
from serpent_tk.mcp.catalogue import Catalogue
from serpent_tk.mcp.guard import current_credential
from serpent_tk.mcp.images import fit_image
from serpent_tk.mcp.notifier import (
    LEVELS,
    Notifier,
    change_notification,
    change_resource_uri,
    level_allows,
)

log = logging.getLogger(__name__)

RESOURCE_NOT_FOUND = -32002
CHANGE_URI_PREFIX = "serpent://libraries/"
CHANGE_URI_SUFFIX = "/changes"


class GatewayLike(Protocol):
    def submit(self, name: str, args: dict[str, Any], caller: Caller
               ) -> Future[dict[str, Any]]: ...


def call_result(envelope: dict[str, Any],
                extra: list[types.ImageContent] | None = None) -> types.CallToolResult:
    """An envelope as an MCP tool result: structured, the same JSON as text, isError on error."""
    return types.CallToolResult(
        is_error=envelope.get("status") == "error",
        structured_content=envelope,
        content=[*(extra or []), types.TextContent(type="text", text=dumps(envelope))])


def unknown_tool(name: str) -> dict[str, Any]:
    """The one answer for a tool that does not exist and for a hidden plugin tool."""
    return envelopes.error(errors.unknown_command(name))


def mcp_caller(credential: Credential) -> Caller:
    return Caller.mcp(credential.name, credential.mode)


def logs_opted_in(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Modern era: did this request ask for `notifications/message` at level info or lower?"""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    requested = (ctx.meta or {}).get(types.LOG_LEVEL_META_KEY)
    return requested in LEVELS and level_allows(requested)


class Handlers:
    """The handlers of one server instance."""

    def __init__(self, gateway: GatewayLike, catalogue: Catalogue, notifier: Notifier,
                 budget: Callable[[], Budget]) -> None:
        self.gateway = gateway
        self.catalogue = catalogue
        self.notifier = notifier
        self.budget = budget

    async def _submit(self, name: str, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        return await asyncio.wrap_future(self.gateway.submit(name, args, caller))

    # -- tools ------------------------------------------------------------------------------

    async def list_tools(self, ctx: ServerRequestContext[Any, Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        credential = current_credential()
        tools = self.catalogue.tools(credential.mode) if credential else []
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: ServerRequestContext[Any, Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        credential = current_credential()
        spec = self.catalogue.visible(params.name, credential.mode) if credential else None
        if credential is None or spec is None:
            return call_result(unknown_tool(params.name))
        args = dict(params.arguments or {})
        caller = mcp_caller(credential)
        watch = self.notifier.watch() if logs_opted_in(ctx) else None
        forwarder = asyncio.ensure_future(self._forward(ctx, watch)) if watch else None
        try:
            envelope = await self._submit(spec.name, args, caller)
            if spec.returns_image and envelope.get("status") == "ok":
                return await self._thumbnail(envelope)
            envelope = await self._fit(spec, args, caller, envelope)
            return call_result(envelope)
        except Exception as error:  # a bug of ours: the caller gets INTERNAL + incident id
            failure = errors.internal(error, f"MCP call of {spec.tool_name}")
            return call_result(envelopes.error(failure, args.get("libraryId") if isinstance(
                args.get("libraryId"), str) else None))
        finally:
            if watch is not None and forwarder is not None:
                await self._finish_forwarding(ctx, watch, forwarder)

    async def _fit(self, spec: CommandSpec, args: dict[str, Any], caller: Caller,
                   envelope: dict[str, Any]) -> dict[str, Any]:
        budget = self.budget()
        if budget.fits(envelope):
            return envelope
        keep = items_that_fit(envelope, budget.envelope_bytes)
        result = envelope.get("result")
        can_ask_again = (spec.risk == "read" and spec.paged and "limit" in
                         spec.input_model.model_fields and isinstance(result, dict)
                         and isinstance(result.get("items"), list))
        if keep and can_ask_again:
            # Ask the library for a page that fits, so nextCursor continues exactly there.
            again = await self._submit(spec.name, {**args, "limit": keep}, caller)
            if again.get("status") == "ok" and isinstance(again.get("result"), dict):
                again["result"]["truncated"] = True
                if budget.fits(again):
                    return again
        return fit_locally(envelope, budget)

    async def _thumbnail(self, envelope: dict[str, Any]) -> types.CallToolResult:
        shown = copy.deepcopy(envelope)
        result = shown["result"]
        path = Path(str(result.pop("path", "")))
        budget = self.budget()
        room = budget.total_bytes - FRAMING_BYTES - 2 * encoded_size(shown) - 512
        try:
            image = await asyncio.to_thread(fit_image, path, room)
        except (OSError, ValueError) as error:  # Pillow's UnidentifiedImageError is an OSError
            failure = errors.internal(error, "reading a thumbnail for MCP")
            return call_result(envelopes.error(failure, shown.get("libraryId")))
        result.update(mime=image.mime, width=image.width, height=image.height)
        picture = types.ImageContent(type="image", data=image.data_b64, mime_type=image.mime)
        return call_result(shown, [picture])

    async def _forward(self, ctx: ServerRequestContext[Any, Any], watch: Any) -> None:
        while True:
            event = await watch.queue.get()
            await ctx.session.send_notification(change_notification(event),
                                                related_request_id=ctx.request_id)

    async def _finish_forwarding(self, ctx: ServerRequestContext[Any, Any], watch: Any,
                                 forwarder: asyncio.Future[None]) -> None:
        for _ in range(3):  # let events already handed to the loop reach the queue
            await asyncio.sleep(0)
        self.notifier.unwatch(watch)
        forwarder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await forwarder
        while not watch.queue.empty():
            await ctx.session.send_notification(change_notification(watch.queue.get_nowait()),
                                                related_request_id=ctx.request_id)

    # -- resources --------------------------------------------------------------------------

    async def list_resources(self, ctx: ServerRequestContext[Any, Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        resources = [types.Resource(
            uri=search_app.SEARCH_APP_URI, name="asset-search-grid",
            title="Asset search grid", mime_type=search_app.APP_MIME_TYPE,
            description="MCP App: shows a serpent_asset_search result as a thumbnail grid.",
            _meta=search_app.resource_meta())]
        credential = current_credential()
        if credential is not None:
            listing = await self._submit("library.list-open", {}, mcp_caller(credential))
            for library in (listing.get("result") or {}).get("items", []):
                resources.append(types.Resource(
                    uri=change_resource_uri(library["libraryId"]),
                    name=f"library-changes-{library['libraryId']}",
                    title=f"Changes of {library['name']}", mime_type="application/json",
                    description="The library's newest changeSequence. Subscribe to it "
                                "(subscriptions/listen) to hear about every change."))
        return types.ListResourcesResult(resources=resources)

    async def read_resource(self, ctx: ServerRequestContext[Any, Any],
                            params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == search_app.SEARCH_APP_URI:
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=uri, mime_type=search_app.APP_MIME_TYPE, text=search_app.search_app_html(),
                _meta=search_app.resource_meta())])
        credential = current_credential()
        if credential is not None and uri.startswith(CHANGE_URI_PREFIX) and uri.endswith(
                CHANGE_URI_SUFFIX):
            library_id = uri[len(CHANGE_URI_PREFIX):-len(CHANGE_URI_SUFFIX)]
            answer = await self._submit("library.change-sequence", {"libraryId": library_id},
                                        mcp_caller(credential))
            if answer.get("status") == "ok":
                sequence = answer["result"]["changeSequence"]
                data: dict[str, Any] = {"libraryId": library_id, "changeSequence": sequence}
                latest = self.notifier.latest_change(library_id)
                if latest is not None and latest.change_sequence == sequence:
                    data["kinds"] = list(latest.kinds)
                return types.ReadResourceResult(contents=[types.TextResourceContents(
                    uri=uri, mime_type="application/json", text=dumps(data))])
        raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri[:200]}")
