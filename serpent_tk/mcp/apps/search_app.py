"""The one MCP App (`io.modelcontextprotocol/ui`): a thumbnail grid of an asset search result.

Thread-safe (constants and a cached file read). `serpent_asset_search` carries
`_meta.ui.resourceUri` pointing here; hosts that render MCP Apps (Claude Desktop, VS Code, ...)
show the page `asset_search_grid.html` beside this module (package data, also bundled by
the PyInstaller spec), which fetches thumbnails through `serpent_asset_thumbnail` over the
host's postMessage bridge. Every other client reads the tool's text content: the same JSON
as `structuredContent` (ids, names, tags, sizes, `total`, `nextCursor`), which is the
meaningful fallback.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

__all__ = ["APP_MIME_TYPE", "EXTENSION_ID", "SEARCH_APP_URI", "SEARCH_TOOL", "search_app_html",
           "tool_meta", "resource_meta"]

SEARCH_APP_URI = "ui://serpent/asset-search-grid.html"
SEARCH_TOOL = "serpent_asset_search"
THUMBNAIL_TOOL = "serpent_asset_thumbnail"  # the page calls it by this name
APP_FILE = "asset_search_grid.html"


def tool_meta() -> dict[str, dict[str, Any]]:
    """`_meta` per tool name: the search tool is bound to the grid view."""
    return {SEARCH_TOOL: {"ui": {"resourceUri": SEARCH_APP_URI}}}


def resource_meta() -> dict[str, Any]:
    # No network at all: thumbnails arrive as data: URLs through tools/call.
    return {"ui": {"csp": {"connectDomains": [], "resourceDomains": []},
                   "prefersBorder": True}}


@functools.cache
def search_app_html() -> str:
    """The grid's page, read once from this package (`asset_search_grid.html`)."""
    return resources.files("serpent_tk.mcp.apps").joinpath(APP_FILE).read_text(encoding="utf-8")
