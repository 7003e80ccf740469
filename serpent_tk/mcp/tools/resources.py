"""MCP resources: the search grid (MCP App), each open library's change resource, and the
asset templates `serpent://libraries/{libraryId}/assets/{assetId}` (the asset's metadata as
JSON) and `.../preview` (its preview image as a blob).

Runs on the listener loop. Every read goes through the gateway as the reading credential
(`asset.get`, `asset.thumbnail`, `library.change-sequence`: read commands, so every mode may
read them) and stays within the output budget. A URI naming no such library, asset or
preview is the protocol's "Resource not found" error: -32602 with the uri in `data`, as the
2026-07-28 specification asks for every revision (SEP-2164; the SDK's own servers do the same,
and clients still accept the retired -32002); its message says plainly "no such asset" (or
library), whatever was wrong with the id, and repeats at most 200 characters of the URI.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from library.errors import ErrorCode
from serpent_tk.automation.envelope import Envelope, error_of, result_of
from serpent_tk.automation.errors import excerpt
from serpent_tk.mcp.apps import search_app
from serpent_tk.mcp.notifier import Notifier, change_resource_uri
from serpent_tk.mcp.tools.budget import FRAMING_BYTES, Budget, dumps, encoded_size
from serpent_tk.mcp.tools.images import fit_image

RESOURCE_NOT_FOUND = types.INVALID_PARAMS  # -32602 (SEP-2164), no longer -32002
ASSET_TEMPLATE = "serpent://libraries/{libraryId}/assets/{assetId}"
PREVIEW_TEMPLATE = ASSET_TEMPLATE + "/preview"
CHANGES_TEMPLATE = "serpent://libraries/{libraryId}/changes"
ASSET_URI = re.compile(r"^serpent://libraries/(?P<library>[^/?#]+)/assets/(?P<asset>[^/?#]+)"
                       r"(?P<preview>/preview)?$")
CHANGES_URI = re.compile(r"^serpent://libraries/(?P<library>[^/?#]+)/changes$")
PREVIEW_SIZE = 1024  # px, longest side, before fitting the budget
MAX_COMPLETIONS = 100

# (command, arguments) -> the envelope, as the reading credential
Submit = Callable[[str, dict[str, Any]], Awaitable[Envelope]]

TEMPLATES = [
    types.ResourceTemplate(
        uri_template=ASSET_TEMPLATE, name="asset", title="Asset",
        mime_type="application/json",
        description="One asset's metadata (as serpent_asset_get gives it): name, tags, "
                    "rating, notes, folders, size, version."),
    types.ResourceTemplate(
        uri_template=PREVIEW_TEMPLATE, name="asset-preview", title="Asset preview",
        description="One asset's preview picture (downscaled to fit the output budget)."),
    types.ResourceTemplate(
        uri_template=CHANGES_TEMPLATE, name="library-changes", title="Library changes",
        mime_type="application/json",
        description="A library's newest changeSequence; subscribe to hear of every change."),
]


NO_ASSET = "no such asset"
NO_LIBRARY = "no such library open"
URI_EXCERPT = 200  # characters of a URI an answer repeats


def not_found(uri: str, why: str = "") -> MCPError:
    shown = excerpt(uri, URI_EXCERPT)
    return MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {shown}"
                    + (f" ({why})" if why else ""), {"uri": shown})


def _failure(uri: str, envelope: Envelope) -> MCPError:
    """A failed read in plain words: a malformed or unknown id is simply not there (no
    field path or pattern of the command behind it)."""
    error = error_of(envelope)
    if error is None:  # not an error, yet not ok: nothing a read can show
        return not_found(uri, "")
    code, field = error["code"], error.get("field", "")
    if code in (ErrorCode.LIBRARY_NOT_FOUND, ErrorCode.LIBRARY_NOT_OPEN,
                ErrorCode.LIBRARY_REQUIRED) or (
            code == ErrorCode.INVALID_ARGUMENT and field.startswith("libraryId")):
        return not_found(uri, NO_LIBRARY)
    if code in (ErrorCode.NOT_FOUND, ErrorCode.INVALID_ARGUMENT):
        return not_found(uri, NO_ASSET)
    return not_found(uri, excerpt(error["message"], URI_EXCERPT))


def app_resource() -> types.Resource:
    """The search grid (MCP App), listed whether or not a library is open."""
    return types.Resource(
        uri=search_app.SEARCH_APP_URI, name="asset-search-grid",
        title="Asset search grid", mime_type=search_app.APP_MIME_TYPE,
        description="MCP App: shows a serpent_asset_search result as a thumbnail grid.",
        _meta=search_app.resource_meta())


def read_app() -> types.ReadResourceResult:
    return types.ReadResourceResult(contents=[types.TextResourceContents(
        uri=search_app.SEARCH_APP_URI, mime_type=search_app.APP_MIME_TYPE,
        text=search_app.search_app_html(), _meta=search_app.resource_meta())])


class Resources:
    """resources/list, resources/templates/list, resources/read and the templates'
    argument completion, for one server instance."""

    def __init__(self, notifier: Notifier, budget: Callable[[], Budget]) -> None:
        self.notifier = notifier
        self.budget = budget

    async def listing(self, submit: Submit | None) -> types.ListResourcesResult:
        resources = [app_resource()]
        if submit is not None:
            listing = await submit("library.list-open", {})
            for library in (result_of(listing) or {}).get("items", []):
                resources.append(types.Resource(
                    uri=change_resource_uri(library["libraryId"]),
                    name=f"library-changes-{library['libraryId']}",
                    title=f"Changes of {library['name']}", mime_type="application/json",
                    description="The library's newest changeSequence. Subscribe to it "
                                "(subscriptions/listen) to hear about every change."))
        return types.ListResourcesResult(resources=resources)

    @staticmethod
    def templates() -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read(self, uri: str, submit: Submit | None) -> types.ReadResourceResult:
        if uri == search_app.SEARCH_APP_URI:
            return read_app()
        if submit is None:
            raise not_found(uri)
        changes = CHANGES_URI.match(uri)
        if changes:
            return await self._changes(uri, changes.group("library"), submit)
        asset = ASSET_URI.match(uri)
        if asset is None:
            raise not_found(uri)
        if asset.group("preview"):
            return await self._preview(uri, asset.group("library"), asset.group("asset"),
                                       submit)
        return await self._asset(uri, asset.group("library"), asset.group("asset"), submit)

    async def _changes(self, uri: str, library_id: str, submit: Submit
                       ) -> types.ReadResourceResult:
        answer = await submit("library.change-sequence", {"libraryId": library_id})
        if answer["status"] != "ok":
            raise _failure(uri, answer)
        sequence = answer["result"]["changeSequence"]
        data: dict[str, Any] = {"libraryId": library_id, "changeSequence": sequence}
        latest = self.notifier.latest_change(library_id)
        if latest is not None and latest.change_sequence == sequence:
            data["kinds"] = list(latest.kinds)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=dumps(data))])

    async def _asset(self, uri: str, library_id: str, asset_id: str, submit: Submit
                     ) -> types.ReadResourceResult:
        answer = await submit("asset.get", {"libraryId": library_id, "assetIds": [asset_id]})
        if answer["status"] != "ok":
            raise _failure(uri, answer)
        items = answer["result"].get("items", [])
        if not items:
            raise not_found(uri, NO_ASSET)
        text = dumps(items[0])
        if not self.budget().fits({"text": text}):
            raise not_found(uri, "too large for the output budget")
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=text)])

    async def _preview(self, uri: str, library_id: str, asset_id: str, submit: Submit
                       ) -> types.ReadResourceResult:
        answer = await submit("asset.thumbnail", {"libraryId": library_id,
                                                  "assetId": asset_id, "size": PREVIEW_SIZE})
        if answer["status"] != "ok":
            raise _failure(uri, answer)
        room = self.budget().total_bytes - FRAMING_BYTES - encoded_size({"uri": uri}) - 512
        try:
            image = await asyncio.to_thread(fit_image, Path(str(answer["result"]["path"])),
                                            room)
        except (OSError, ValueError):  # the thumbnail vanished or does not fit at all
            raise not_found(uri, "no preview could be read") from None
        return types.ReadResourceResult(contents=[types.BlobResourceContents(
            uri=uri, mime_type=image.mime, blob=image.data_b64)])

    async def complete(self, template: str, argument: str, value: str,
                       context: dict[str, str], submit: Submit) -> list[str]:
        """libraryId: the open libraries' ids; assetId: ids starting with `value`, or the
        assets whose name or tags match it."""
        if template not in (ASSET_TEMPLATE, PREVIEW_TEMPLATE, CHANGES_TEMPLATE):
            return []
        if argument == "libraryId":
            listing = await submit("library.list-open", {})
            ids = [str(i["libraryId"]) for i in (result_of(listing) or {}).get("items", [])]
            return [i for i in ids if i.startswith(value)][:MAX_COMPLETIONS]
        library_id = context.get("libraryId", "")
        if argument != "assetId" or not library_id:
            return []
        query: dict[str, Any] = {"libraryId": library_id, "limit": MAX_COMPLETIONS}
        if value and not value.startswith("ast_"):
            query["text"] = value
        answer = await submit("asset.search", query)
        ids = [str(i["id"]) for i in (result_of(answer) or {}).get("items", [])]
        if value.startswith("ast_"):
            ids = [i for i in ids if i.startswith(value)]
        return ids[:MAX_COMPLETIONS]
