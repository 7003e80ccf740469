// What the scripts here share: loading one of the two TypeScript MCP SDK lines, making a
// transport from a plan's spec, and calling a tool the way a desktop client does (a thrown
// error reported, not raised). Imported by drive.mjs and before-serpent.mjs.
import { readFileSync } from "node:fs";

const CLIENT_INFO = { name: "serpent-ts-client-test", version: "1.0.0" };

function installedVersion(name) {
  const manifest = new URL(`./node_modules/@modelcontextprotocol/${name}/package.json`,
    import.meta.url);
  return JSON.parse(readFileSync(manifest, "utf8")).version;
}

export async function loadSdk(which, era) {
  if (which === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const http = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const stdio = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const types = await import("@modelcontextprotocol/sdk/types.js");
    const schemas = {
      "notifications/message": types.LoggingMessageNotificationSchema,
      "notifications/resources/updated": types.ResourceUpdatedNotificationSchema,
      "notifications/tools/list_changed": types.ToolListChangedNotificationSchema,
    };
    return {
      version: installedVersion("sdk"),
      newClient: () => new Client(CLIENT_INFO, { capabilities: {} }),
      Http: http.StreamableHTTPClientTransport,
      Stdio: stdio.StdioClientTransport,
      onNotification: (client, method, handler) =>
        client.setNotificationHandler(schemas[method], handler),
      protocolVersion: (_client, transport) => transport.protocolVersion ?? null,
    };
  }
  const sdk = await import("@modelcontextprotocol/client");
  const stdio = await import("@modelcontextprotocol/client/stdio");
  return {
    version: installedVersion("client"),
    newClient: () => new sdk.Client(CLIENT_INFO, { versionNegotiation: { mode: era } }),
    Http: sdk.StreamableHTTPClientTransport,
    Stdio: stdio.StdioClientTransport,
    onNotification: (client, method, handler) => client.setNotificationHandler(method, handler),
    protocolVersion: (client) => client.getNegotiatedProtocolVersion() ?? null,
  };
}

export function transportFor(sdk, spec) {
  if (spec.kind === "http") {
    return new sdk.Http(new URL(spec.url), {
      requestInit: { headers: { Authorization: `Bearer ${spec.token}` } },
    });
  }
  return new sdk.Stdio({ command: spec.command, args: spec.args, env: spec.env, stderr: "inherit" });
}

export function thrown(error) {
  return { threw: true, code: error?.code ?? null, message: String(error?.message ?? error) };
}

export async function callTool(client, name, args) {
  try {
    const result = await client.callTool({ name, arguments: args });
    return {
      threw: false,
      isError: Boolean(result.isError),
      text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
      structured: result.structuredContent ?? null,
      content: (result.content ?? []).map((c) => ({
        type: c.type,
        mimeType: c.mimeType ?? null,
        bytes: typeof c.data === "string" ? Buffer.from(c.data, "base64").length : null,
      })),
    };
  } catch (error) {
    return thrown(error);
  }
}

export async function listAllTools(client) {
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
}
