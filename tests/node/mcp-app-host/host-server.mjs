// The test host's two web origins on loopback, as a real MCP Apps host has them:
// - the host page on http://127.0.0.1:<port>: host.html, host.js (bundled here with esbuild from
//   page/host.js and the npm packages), and /mcp, a plain pass-through to the running Serpent
//   (same origin for the page's MCP client, so no CORS is needed);
// - the sandbox proxy on http://localhost:<other port>: sandbox.html with the app's CSP as an
//   HTTP header, built from the resource's _meta.ui.csp (no connect domains: no network).
import http from "node:http";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import * as esbuild from "esbuild";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PAGE = path.join(HERE, "page");

export async function bundleHostScript() {
  const built = await esbuild.build({
    entryPoints: [path.join(PAGE, "host.js")], bundle: true, write: false, format: "esm",
    platform: "browser", target: "chrome120", logLevel: "silent",
  });
  return built.outputFiles[0].text;
}

function sanitized(domains) {
  return Array.isArray(domains) ? domains.filter((d) => typeof d === "string" && !/[;\r\n'" ]/.test(d)) : [];
}

/** The CSP a host puts on the sandbox for an app resource's declared `csp`. */
export function sandboxCsp(csp = {}) {
  const resources = sanitized(csp.resourceDomains).join(" ");
  const connect = sanitized(csp.connectDomains).join(" ");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `style-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `img-src 'self' data: blob: ${resources}`.trim(),
    `font-src 'self' data: ${resources}`.trim(),
    connect ? `connect-src ${connect}` : "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join("; ");
}

function listen(server, host) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve(server.address().port));
  });
}

function proxy(request, response, upstream) {
  const headers = { ...request.headers, host: upstream.host };
  const forwarded = http.request({
    host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: request.method,
    headers,
  }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  forwarded.on("error", (error) => {
    if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
    response.end(`proxy error: ${error.message}`);
  });
  response.on("close", () => forwarded.destroy());
  request.pipe(forwarded);
}

/** Starts both servers; `serpentUrl` is Serpent's MCP endpoint. Returns their URLs and close(). */
export async function startHostServers(serpentUrl) {
  const upstream = new URL(serpentUrl);
  const [hostHtml, sandboxHtml, hostScript] = await Promise.all([
    readFile(path.join(PAGE, "host.html"), "utf8"),
    readFile(path.join(PAGE, "sandbox.html"), "utf8"),
    bundleHostScript(),
  ]);
  const sockets = new Set();
  const track = (server) => server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const host = http.createServer((request, response) => {
    const url = new URL(request.url, "http://127.0.0.1");
    if (url.pathname === "/mcp") return proxy(request, response, upstream);
    if (url.pathname === "/favicon.ico") return response.writeHead(204).end();
    if (url.pathname === "/" || url.pathname === "/host.html") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return response.end(hostHtml);
    }
    if (url.pathname === "/host.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      return response.end(hostScript);
    }
    response.writeHead(404).end();
  });
  const sandbox = http.createServer((request, response) => {
    const url = new URL(request.url, "http://localhost");
    if (url.pathname !== "/sandbox.html") return response.writeHead(404).end();
    let csp = {};
    try { csp = JSON.parse(url.searchParams.get("csp") ?? "{}"); } catch { csp = {}; }
    response.writeHead(200, {
      "content-type": "text/html; charset=utf-8", "content-security-policy": sandboxCsp(csp),
      "cache-control": "no-store",
    });
    response.end(sandboxHtml);
  });
  track(host);
  track(sandbox);
  const hostPort = await listen(host, "127.0.0.1");
  const sandboxPort = await listen(sandbox, "127.0.0.1");
  return {
    hostUrl: `http://127.0.0.1:${hostPort}/`,
    // another origin (and site) for the sandbox: the name localhost, mapped to 127.0.0.1 for
    // the browser by host.mjs, so it never depends on how this machine resolves localhost
    sandboxUrl: `http://localhost:${sandboxPort}/sandbox.html`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([host, sandbox].map((s) => new Promise((r) => s.close(() => r()))));
    },
  };
}
