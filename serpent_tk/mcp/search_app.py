"""The one MCP App (`io.modelcontextprotocol/ui`): a thumbnail grid of an asset search result.

Thread-safe (constants). `serpent_asset_search` carries `_meta.ui.resourceUri` pointing here;
hosts that render MCP Apps (Claude Desktop, VS Code, ...) show the grid, fetching each
thumbnail through `serpent_asset_thumbnail` over the host's postMessage bridge. Every other
client reads the tool's text content: the same JSON as `structuredContent` (ids, names, tags,
sizes, `total`, `nextCursor`), which is the meaningful fallback.
"""

from __future__ import annotations

from typing import Any

from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

__all__ = ["APP_MIME_TYPE", "EXTENSION_ID", "SEARCH_APP_URI", "SEARCH_TOOL", "search_app_html",
           "tool_meta", "resource_meta"]

SEARCH_APP_URI = "ui://serpent/asset-search-grid.html"
SEARCH_TOOL = "serpent_asset_search"
THUMBNAIL_TOOL = "serpent_asset_thumbnail"


def tool_meta() -> dict[str, dict[str, Any]]:
    """`_meta` per tool name: the search tool is bound to the grid view."""
    return {SEARCH_TOOL: {"ui": {"resourceUri": SEARCH_APP_URI}}}


def resource_meta() -> dict[str, Any]:
    # No network at all: thumbnails arrive as data: URLs through tools/call.
    return {"ui": {"csp": {"connectDomains": [], "resourceDomains": []},
                   "prefersBorder": True}}


def search_app_html() -> str:
    return _HTML


_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Serpent search</title>
<style>
  :root { color-scheme: light dark; --fg: #1d1f23; --muted: #6b7078; --card: #f3f4f6;
          --accent: #2f7d4a; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e8e9eb; --muted: #9aa0a8;
          --card: #26292e; } }
  body { margin: 0; padding: 12px; color: var(--fg); background: transparent; }
  header { display: flex; justify-content: space-between; align-items: baseline;
           margin-bottom: 10px; font-size: 13px; color: var(--muted); }
  header strong { color: var(--fg); font-size: 14px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(132px, 1fr));
          gap: 10px; }
  figure { margin: 0; background: var(--card); border-radius: 8px; overflow: hidden; }
  .thumb { aspect-ratio: 1 / 1; display: flex; align-items: center; justify-content: center;
           font-size: 12px; color: var(--muted); text-transform: uppercase; }
  .thumb img { width: 100%; height: 100%; object-fit: contain; }
  figcaption { padding: 6px 8px; font-size: 12px; line-height: 1.3; }
  figcaption .name { display: block; white-space: nowrap; overflow: hidden;
                     text-overflow: ellipsis; }
  figcaption .tags { color: var(--accent); font-size: 11px; white-space: nowrap;
                     overflow: hidden; text-overflow: ellipsis; display: block; }
  .empty { color: var(--muted); font-size: 13px; padding: 24px 0; text-align: center; }
</style>
</head>
<body>
<header><strong id="title">Serpent</strong><span id="count"></span></header>
<div id="grid" class="grid"></div>
<p id="empty" class="empty" hidden>No assets match this search.</p>
<script>
(() => {
  "use strict";
  const pending = new Map();
  let nextId = 1;
  let libraryId = null;

  function send(message) { window.parent.postMessage(message, "*"); }
  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ jsonrpc: "2.0", id, method, params });
    });
  }
  function notify(method, params) { send({ jsonrpc: "2.0", method, params: params || {} }); }
  function reportSize() {
    notify("ui/notifications/size-changed",
           { width: document.body.scrollWidth, height: document.body.scrollHeight });
  }

  function text(tag, cls, value) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    el.textContent = value;
    return el;
  }

  async function loadThumbnail(assetId, box) {
    try {
      const result = await request("tools/call", { name: "THUMBNAIL_TOOL",
        arguments: { libraryId, assetId, size: 256 } });
      const image = (result.content || []).find((c) => c.type === "image");
      if (!image) return;
      const img = document.createElement("img");
      img.alt = "";
      img.src = "data:" + image.mimeType + ";base64," + image.data;
      box.textContent = "";
      box.appendChild(img);
    } catch (e) { /* keep the extension label */ }
  }

  function render(envelope) {
    const grid = document.getElementById("grid");
    grid.textContent = "";
    if (!envelope || envelope.status !== "ok") {
      document.getElementById("count").textContent =
        envelope && envelope.error ? envelope.error.message : "";
      return;
    }
    libraryId = envelope.libraryId;
    const result = envelope.result || {};
    const items = result.items || [];
    document.getElementById("count").textContent =
      items.length + " of " + (result.total ?? items.length) + " assets" +
      (result.nextCursor ? " (more available)" : "");
    document.getElementById("empty").hidden = items.length > 0;
    for (const asset of items) {
      const figure = document.createElement("figure");
      const box = text("div", "thumb", asset.ext || asset.kind || "");
      figure.appendChild(box);
      const caption = document.createElement("figcaption");
      caption.appendChild(text("span", "name", asset.name));
      caption.appendChild(text("span", "tags", (asset.tags || []).join(", ")));
      figure.appendChild(caption);
      figure.title = asset.name + (asset.width ? " — " + asset.width + "×" + asset.height : "");
      grid.appendChild(figure);
      loadThumbnail(asset.id, box);
    }
    reportSize();
  }

  window.addEventListener("message", (event) => {
    const msg = event.data;
    if (!msg || msg.jsonrpc !== "2.0") return;
    if (msg.id !== undefined && pending.has(msg.id) && !msg.method) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(msg.error); else resolve(msg.result);
      return;
    }
    if (msg.method === "ui/notifications/tool-result") {
      const params = msg.params || {};
      let envelope = params.structuredContent;
      if (!envelope) {
        const block = (params.content || []).find((c) => c.type === "text");
        try { envelope = block ? JSON.parse(block.text) : null; } catch (e) { envelope = null; }
      }
      render(envelope);
    }
  });

  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "serpent-search-grid", version: "1" },
    appCapabilities: {},
  }).then(() => notify("ui/notifications/initialized"), () => {});
})();
</script>
</body>
</html>
""".replace("THUMBNAIL_TOOL", THUMBNAIL_TOOL)
