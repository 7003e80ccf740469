"""The MCP request handlers: tools/list and tools/call; resources, prompts and completions
(answered by `resources.py` and `prompts.py`) as the request's credential.

Runs on the listener loop. Every call goes through `gateway.submit(...)` with the caller built
from the request's credential, awaited with `asyncio.wrap_future`; the gateway's envelope
(docs/contracts.md §2) becomes `structuredContent` plus the same JSON as text, `isError` for an
error. An unknown tool and a tool hidden from the caller (outside its toolset, or a plugin
tool without Full Access) get the very same JSON-RPC error -32602, a protocol error rather
than a tool result (docs/contracts.md §3). Nothing here remembers a library between calls:
`libraryId` travels in every call.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serpent_tk.automation import envelope as envelopes
from serpent_tk.automation import errors
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.envelope import Envelope, OkEnvelope
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.credentials import Credential
from serpent_tk.mcp.http.guard import current_credential
from serpent_tk.mcp.notifier import LEVELS, Notifier, change_notification, level_allows
from serpent_tk.mcp.tasks.tickets import current_ticket
from serpent_tk.mcp.tools import analysis_wait, arguments
from serpent_tk.mcp.tools.budget import (
    FRAMING_BYTES,
    Budget,
    dumps,
    encoded_size,
    fit_risk_report,
    items_that_fit,
    too_large,
)
from serpent_tk.mcp.tools.catalogue import Catalogue, continued_here
from serpent_tk.mcp.tools.contact_sheet import Cell, contact_sheet
from serpent_tk.mcp.tools.continuations import Continuations, Owner, expired, is_continuation
from serpent_tk.mcp.tools.images import fit_image
from serpent_tk.mcp.tools.prompts import Prompts, Submit
from serpent_tk.mcp.tools.resources import Resources

log = logging.getLogger(__name__)

REASK_TRIES = 3  # paged lists: how often to ask again for a page that fits


class GatewayLike(Protocol):
    def submit(self, name: str, args: dict[str, Any], caller: Caller
               ) -> Future[Envelope]: ...

    def subscribe(self, listener: Callable[[object], None]) -> Callable[[], None]: ...


def call_result(envelope: Envelope,
                extra: list[types.ImageContent] | None = None) -> types.CallToolResult:
    """An envelope as an MCP tool result: structured, the same JSON as text, isError on error."""
    return types.CallToolResult(
        is_error=envelope["status"] == "error",
        structured_content=envelopes.as_json(envelope),
        content=[*(extra or []), types.TextContent(type="text", text=dumps(envelope))])


def bound(envelope: Envelope, args: dict[str, Any]) -> Envelope:
    """`envelope` with its `nextCursor` tagged with the call's arguments (arguments.py)."""
    if envelope["status"] != "ok" or not isinstance(envelope["result"].get("nextCursor"), str):
        return envelope
    result = envelope["result"]
    return {**envelope, "result": {**result,
                                   "nextCursor": arguments.bind(result["nextCursor"], args)}}


def unknown_tool(name: str) -> MCPError:
    """The one answer for a tool that does not exist and for a hidden one: JSON-RPC -32602."""
    return MCPError(types.INVALID_PARAMS, errors.unknown_command(name).message)


def mcp_caller(credential: Credential) -> Caller:
    """The credential as a caller; inside an MCP task or a call that asked for progress, with
    the ticket that names its work on the worker's progress events (`mcp.tasks`)."""
    return replace(Caller.mcp(credential.name, credential.mode), ticket=current_ticket.get())


def logs_opted_in(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Modern era: did this request ask for `notifications/message` at level info or lower?"""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    requested = (ctx.meta or {}).get(types.LOG_LEVEL_META_KEY)
    return requested in LEVELS and level_allows(requested)


class Handlers:
    """The handlers of one server instance."""

    def __init__(self, gateway: GatewayLike, catalogue: Catalogue, notifier: Notifier,
                 budget: Callable[[], Budget], continuations: Continuations) -> None:
        self.gateway = gateway
        self.catalogue = catalogue
        self.notifier = notifier
        self.budget = budget
        self.continuations = continuations
        self.resources = Resources(notifier, budget)
        self.prompts = Prompts(catalogue.registry)

    async def _submit(self, name: str, args: dict[str, Any], caller: Caller) -> Envelope:
        return await asyncio.wrap_future(self.gateway.submit(name, args, caller))

    # -- tools ------------------------------------------------------------------------------

    def tool_input_schema(self, tool_name: str) -> dict[str, Any] | None:
        """For the SDK's `Mcp-Param-*` header check (2026-07-28): only tools the caller sees,
        so a hidden tool takes exactly the path of an unknown one."""
        credential = current_credential()
        if credential is None or self.catalogue.visible(
                tool_name, credential.mode, credential.toolset) is None:
            return None
        return self.catalogue.input_schema(tool_name)

    async def list_tools(self, ctx: ServerRequestContext[Any, Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        credential = current_credential()
        tools = self.catalogue.tools(credential.mode, credential.toolset) if credential else []
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: ServerRequestContext[Any, Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        credential = current_credential()
        spec = self.catalogue.visible(params.name, credential.mode, credential.toolset) \
            if credential else None
        if credential is None or spec is None:
            raise unknown_tool(params.name)
        args = dict(params.arguments or {})
        library_id = arguments.library_named(args)
        deep = arguments.nested_too_deep(args)
        if deep is not None:
            return call_result(arguments.too_deep(deep, library_id))
        given = args.get("cursor")
        if isinstance(given, str):
            given = arguments.unbind(given, args)
            if given is None:
                return call_result(arguments.other_arguments(library_id))
            args["cursor"] = given
        owner = Owner(credential.name, spec.tool_name, library_id)
        if is_continuation(given) or (given is not None and continued_here(spec)):
            # the rest of a cut answer: served from what was kept, nothing runs again
            return call_result(bound(self.continuations.next_page(given, owner, self.budget())
                                     if isinstance(given, str) else expired(owner), args))
        caller = mcp_caller(credential)
        watch = self.notifier.watch() if logs_opted_in(ctx) else None
        forwarder = asyncio.ensure_future(self._forward(ctx, watch)) if watch else None
        try:
            envelope = await self._submit(spec.name, args, caller)
            envelope = await analysis_wait.settled(
                spec, args, envelope, lambda name, a: self._submit(name, a, caller))
            if spec.returns_image and envelope["status"] == "ok":
                return await self._thumbnail(envelope)
            envelope = await self._fit(spec, args, caller, envelope, owner)
            return call_result(bound(envelope, args))
        except Exception as error:  # a bug of ours: the caller gets INTERNAL + incident id
            failure = errors.internal(error, f"MCP call of {spec.tool_name}")
            return call_result(envelopes.error(failure, library_id))
        finally:
            if watch is not None and forwarder is not None:
                await self._finish_forwarding(ctx, watch, forwarder)

    async def _fit(self, spec: CommandSpec, args: dict[str, Any], caller: Caller,
                   envelope: Envelope, owner: Owner) -> Envelope:
        """`envelope` within the output budget, without losing anything (docs/contracts.md §5):
        a paged list is asked again for a page that fits (its nextCursor continues there);
        any other answer with a list goes out in parts (continuations.py)."""
        budget = self.budget()
        if budget.fits(envelope):
            return envelope
        if envelope["status"] == "confirmation_required":
            return fit_risk_report(envelope, budget)
        if envelope["status"] != "ok":
            return too_large(envelope, budget)
        can_ask_again = (spec.risk == "read" and spec.paged and "limit" in
                         spec.input_model.model_fields
                         and isinstance(envelope["result"].get("items"), list))
        keep = items_that_fit(envelope, budget.envelope_bytes) if can_ask_again else None
        for _ in range(REASK_TRIES):
            if not keep:
                break
            again = await self._submit(spec.name, {**args, "limit": keep}, caller)
            if again["status"] != "ok":
                break
            page = again["result"]
            page["truncated"] = page.get("nextCursor") is not None
            if budget.fits(again):
                return again
            keep = min(keep - 1, items_that_fit(again, budget.envelope_bytes) or 0)
        parted = self.continuations.first_page(envelope, owner, budget)
        return parted if parted is not None else too_large(envelope, budget)

    async def _thumbnail(self, envelope: OkEnvelope) -> types.CallToolResult:
        """The picture itself as image content: one asset's preview, or a contact sheet whose
        numbered cells the text maps to assets. No thumbnail path ever leaves this method."""
        shown = copy.deepcopy(envelope)
        result = shown["result"]
        path = Path(str(result.pop("path", None) or ""))
        cells = [Cell(index=int(item["index"]), status=str(item["status"]),
                      path=Path(item["path"]) if item.get("path") else None)
                 for item in result.get("items", [])]
        for item in result.get("items", []):
            item.pop("path", None)
        budget = self.budget()
        room = budget.total_bytes - FRAMING_BYTES - 2 * encoded_size(shown) - 512
        try:
            image = await asyncio.to_thread(contact_sheet, cells, room) if cells else \
                await asyncio.to_thread(fit_image, path, room)
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

    # -- resources and prompts -------------------------------------------------------------

    def _as_caller(self) -> Submit | None:
        """Submit commands as the request's credential (None outside a request)."""
        credential = current_credential()
        if credential is None:
            return None
        caller = mcp_caller(credential)

        async def submit(name: str, args: dict[str, Any]) -> Envelope:
            return await self._submit(name, args, caller)
        return submit

    async def list_resources(self, ctx: ServerRequestContext[Any, Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return await self.resources.listing(self._as_caller())

    async def list_resource_templates(self, ctx: ServerRequestContext[Any, Any],
                                      params: types.PaginatedRequestParams | None
                                      ) -> types.ListResourceTemplatesResult:
        return self.resources.templates()

    async def read_resource(self, ctx: ServerRequestContext[Any, Any],
                            params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        return await self.resources.read(str(params.uri), self._as_caller())

    def _listed(self) -> set[str]:
        """The tool names the request's credential sees (its prompts need theirs)."""
        credential = current_credential()
        if credential is None:
            return set()
        return {spec.tool_name for spec in self.catalogue.specs(credential.mode,
                                                                credential.toolset)}

    async def list_prompts(self, ctx: ServerRequestContext[Any, Any],
                           params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[
            self.prompts.as_mcp(p) for p in self.prompts.offered(self._listed())])

    async def get_prompt(self, ctx: ServerRequestContext[Any, Any],
                         params: types.GetPromptRequestParams) -> types.GetPromptResult:
        submit = self._as_caller()
        prompt = self.prompts.find(params.name, self._listed())
        assert submit is not None  # a prompt was found: there is a credential
        return await self.prompts.get(prompt, dict(params.arguments or {}), submit)

    async def complete(self, ctx: ServerRequestContext[Any, Any],
                       params: types.CompleteRequestParams) -> types.CompleteResult:
        submit = self._as_caller()
        context = dict((params.context.arguments if params.context else None) or {})
        values: list[str] = []
        if submit is not None and isinstance(params.ref, types.PromptReference):
            prompt = self.prompts.find(params.ref.name, self._listed())
            values = await self.prompts.complete(prompt, params.argument.name,
                                                 params.argument.value, context, submit)
        elif submit is not None and isinstance(params.ref, types.ResourceTemplateReference):
            values = await self.resources.complete(params.ref.uri, params.argument.name,
                                                   params.argument.value, context, submit)
        return types.CompleteResult(completion=types.Completion(
            values=values, total=len(values), has_more=False))
