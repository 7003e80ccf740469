// The test host's page code (bundled by host-server.mjs, runs in Chromium): a real MCP client
// connected to a running Serpent (through the host server's same-origin /mcp proxy) and, per
// mounted view, the official AppBridge + PostMessageTransport talking to the app inside the
// double-iframe sandbox, as real MCP Apps hosts do. It records what a host can observe (size
// reports, thumbnail calls in flight, raw messages) for scenarios.mjs; it can hold thumbnail
// calls like a slow host would, and release them one by one.
import {
  AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as z from "zod";

const HOST_INFO = { name: "serpent-test-host", version: "1.0.0" };
const THUMBNAIL_TOOL = "serpent_asset_thumbnail";
const SEARCH_TOOL = "serpent_asset_search";
const AnyResult = z.looseObject({});  // the SDK sends a method it does not know only with one

let client = null;
let sandboxUrl = null;
let appResource = null;
const views = new Map();
let nextView = 1;

async function connect({ token, sandbox }) {
  sandboxUrl = sandbox;
  client = new Client(HOST_INFO, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", window.location.href), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const search = tools.find((tool) => tool.name === SEARCH_TOOL);
  const uri = search ? getToolUiResourceUri(search) : undefined;
  if (!uri) throw new Error(`${SEARCH_TOOL} has no UI resource`);
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  appResource = { uri, mimeType: content.mimeType, html: content.text, meta: content._meta ?? {} };
  return { uri, mimeType: content.mimeType, csp: appResource.meta.ui?.csp ?? null,
           protocolEra: client.getProtocolEra?.() ?? null };
}

function waitForSandbox(iframe) {
  return new Promise((resolve) => {
    const listener = ({ source, data }) => {
      if (source === iframe.contentWindow && data?.method === "ui/notifications/sandbox-proxy-ready") {
        window.removeEventListener("message", listener);
        resolve();
      }
    };
    window.addEventListener("message", listener);
  });
}

/** A held thumbnail call waits here until released (a slow host), or its request is cancelled. */
function holdCall(view, signal) {
  if (!view.holding) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const entry = { resolve, reject };
    view.held.push(entry);
    signal?.addEventListener("abort", () => {
      view.held = view.held.filter((e) => e !== entry);
      reject(new Error("cancelled by the app"));
    }, { once: true });
  });
}

async function mount({ width = 860, hostContext = {} } = {}) {
  const id = nextView++;
  const slot = document.createElement("div");
  slot.className = "slot";
  slot.id = `slot-${id}`;
  slot.style.width = `${width}px`;
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  slot.appendChild(iframe);
  document.getElementById("slots").appendChild(slot);
  document.body.classList.toggle("dark", hostContext.theme === "dark");

  const view = {
    id, slot, iframe, bridge: null, hostContext, sizes: [], raw: [], holding: false, held: [],
    thumbnails: { started: [], finished: 0, failed: 0, inFlight: 0, maxInFlight: 0 },
    others: [], initialized: false,
  };
  views.set(id, view);
  window.addEventListener("message", (event) => {
    if (event.source === iframe.contentWindow) view.raw.push(event.data);
  });

  const csp = appResource.meta.ui?.csp ?? {};
  const url = new URL(sandboxUrl);
  url.searchParams.set("csp", JSON.stringify(csp));
  const ready = waitForSandbox(iframe);
  iframe.src = url.href;
  await ready;

  const bridge = new AppBridge(client, HOST_INFO, {
    serverTools: client.getServerCapabilities()?.tools,
    serverResources: client.getServerCapabilities()?.resources,
  }, { hostContext });
  view.bridge = bridge;
  const fixedHeight = hostContext.containerDimensions?.height;
  if (fixedHeight) iframe.style.height = `${fixedHeight}px`;
  bridge.onsizechange = ({ width: w, height }) => {
    view.sizes.push({ width: w ?? null, height: height ?? null, at: performance.now() });
    if (height !== undefined && !fixedHeight) {
      const max = view.hostContext.containerDimensions?.maxHeight;
      iframe.style.height = `${max ? Math.min(height, max) : height}px`;
    }
  };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  const forward = bridge.oncalltool;
  bridge.oncalltool = async (params, extra) => {
    if (params.name !== THUMBNAIL_TOOL) {
      view.others.push(params.name);
      return forward(params, extra);
    }
    const t = view.thumbnails;
    t.started.push(params.arguments?.assetId);
    t.inFlight += 1;
    t.maxInFlight = Math.max(t.maxInFlight, t.inFlight);
    try {
      await holdCall(view, extra?.mcpReq?.signal);
      const result = await forward(params, extra);
      t.finished += 1;
      return result;
    } catch (error) {
      t.failed += 1;
      throw error;
    } finally {
      t.inFlight -= 1;
    }
  };
  await bridge.sendSandboxResourceReady({ html: appResource.html, csp, permissions: appResource.meta.ui?.permissions });
  await initialized;
  view.initialized = true;
  return id;
}

function viewOf(id) {
  const view = views.get(id);
  if (!view) throw new Error(`no view ${id}`);
  return view;
}

/** Call a tool the way a host runs the model's call: tool-input first, then result or cancel. */
async function runTool(id, { name = SEARCH_TOOL, args, cancel = false, cancelReason }) {
  const view = viewOf(id);
  await view.bridge.sendToolInput({ arguments: args });
  const controller = new AbortController();
  const call = client.callTool({ name, arguments: args }, { signal: controller.signal });
  if (cancel) controller.abort(cancelReason ?? "cancelled");
  try {
    const result = await call;
    await view.bridge.sendToolResult(result);
    return { outcome: "result", result };
  } catch (error) {
    const reason = cancelReason ?? (error instanceof Error ? error.message : String(error));
    await view.bridge.sendToolCancelled({ reason });
    return { outcome: "cancelled", reason };
  }
}

async function sendResult(id, result) { await viewOf(id).bridge.sendToolResult(result); }
async function sendToolInput(id, args) { await viewOf(id).bridge.sendToolInput({ arguments: args }); }

async function request(id, method, timeout = 5000) {
  const started = performance.now();
  try {
    const result = await viewOf(id).bridge.request({ method, params: {} }, AnyResult, { timeout });
    return { answered: true, result, ms: performance.now() - started };
  } catch (error) {
    return { answered: false, code: error?.code ?? null, message: String(error?.message ?? error),
             ms: performance.now() - started };
  }
}

async function teardown(id, timeout = 5000) {
  const started = performance.now();
  try {
    const result = await viewOf(id).bridge.teardownResource({}, { timeout });
    return { answered: true, result, ms: performance.now() - started };
  } catch (error) {
    return { answered: false, code: error?.code ?? null, message: String(error?.message ?? error),
             ms: performance.now() - started };
  }
}

function setWidth(id, width) {
  const view = viewOf(id);
  view.slot.style.width = `${width}px`;
  return view.bridge.sendHostContextChange({ containerDimensions: { width } });
}

function setHostContext(id, update) {
  const view = viewOf(id);
  view.hostContext = { ...view.hostContext, ...update };
  if (update.theme) document.body.classList.toggle("dark", update.theme === "dark");
  return view.bridge.sendHostContextChange(update);
}

function hold(id) { viewOf(id).holding = true; }
function release(id, count = Infinity) {
  const view = viewOf(id);
  if (count === Infinity) view.holding = false;
  const released = view.held.splice(0, count);
  for (const entry of released) entry.resolve();
  return released.length;
}

/**
 * Post `message` to the app's frame from two frames that are not its parent: this top window
 * and a sibling iframe of the host page. Resolves once both have posted.
 */
function postFromForeignFrames(id, message) {
  const view = viewOf(id);
  const appWindow = view.iframe.contentWindow.frames[0];
  appWindow.postMessage(message, "*");
  window.__foreign = { target: appWindow, message };
  return new Promise((resolve) => {
    const sibling = document.createElement("iframe");
    sibling.style.display = "none";
    sibling.srcdoc = "<script>parent.__foreign.target.postMessage(parent.__foreign.message, '*');" +
      "parent.postMessage('foreign-sent', '*');<\/script>";
    const done = (event) => {
      if (event.data !== "foreign-sent") return;
      window.removeEventListener("message", done);
      sibling.remove();
      resolve(true);
    };
    window.addEventListener("message", done);
    document.body.appendChild(sibling);
  });
}

function stats(id) {
  const view = viewOf(id);
  return {
    sizes: view.sizes.slice(),
    thumbnails: { ...view.thumbnails, started: view.thumbnails.started.slice(), held: view.held.length },
    others: view.others.slice(),
    iframeHeight: view.iframe.getBoundingClientRect().height,
    iframeWidth: view.iframe.getBoundingClientRect().width,
    raw: view.raw.map((m) => ({ id: m?.id ?? null, method: m?.method ?? null,
                               error: m?.error ?? null, params: m?.method === "notifications/cancelled" ? m.params : undefined })),
  };
}

function unmount(id) {
  const view = viewOf(id);
  release(id);
  view.bridge.close?.();
  view.slot.remove();
  views.delete(id);
}

function unmountAll() {
  for (const id of [...views.keys()]) unmount(id);
}

window.testHost = {
  connect, mount, runTool, sendResult, sendToolInput, request, teardown, setWidth, setHostContext, hold,
  release, postFromForeignFrames, stats, unmount, unmountAll,
};
window.testHostReady = true;
