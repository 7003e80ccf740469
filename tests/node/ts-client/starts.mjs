// Starts a client against a running Serpent many times in a row, as Claude Code does for every
// `claude -p` and `claude mcp list`: connect, list the tools, and leave without DELETE. Run by
// tests/mcp/test_client_starts.py: `node starts.mjs PLAN.json`; prints one JSON report line.
// PLAN: {sdk: "v1" | "v2", url, token, starts, keepOpen (true: never close the clients, so
//        every abandoned session keeps its GET stream open until the end), call: {name,
//        arguments} (made by one more client after the starts)}
import { readFileSync } from "node:fs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const CLIENT_INFO = { name: "serpent-starts-test", version: "1.0.0" };

async function loadSdk(which) {
  if (which === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const http = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    return {
      newClient: () => new Client(CLIENT_INFO, { capabilities: {} }),
      Http: http.StreamableHTTPClientTransport,
    };
  }
  const sdk = await import("@modelcontextprotocol/client");
  return {  // the 2025 era, as the v2 SDK speaks it to a server that also knows 2026-07-28
    newClient: () => new sdk.Client(CLIENT_INFO, { versionNegotiation: { mode: "legacy" } }),
    Http: sdk.StreamableHTTPClientTransport,
  };
}

function thrown(error) {
  return { ok: false, code: error?.code ?? null, message: String(error?.message ?? error) };
}

async function start(sdk) {
  const client = sdk.newClient();
  client.onerror = () => {};  // a reclaimed session's GET stream ends: expected, not a failure
  const transport = new sdk.Http(new URL(plan.url), {
    requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
  });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.length;
  return { client, tools, sessionId: transport.sessionId ?? null };
}

async function main() {
  const sdk = await loadSdk(plan.sdk);
  const report = { starts: [], final: null };
  const kept = [];
  for (let n = 0; n < plan.starts; n += 1) {
    try {
      const { client, tools, sessionId } = await start(sdk);
      report.starts.push({ ok: true, tools, sessionId });
      if (plan.keepOpen) kept.push(client);
      else await client.close();  // aborts its requests and GET stream; sends no DELETE
    } catch (error) {
      report.starts.push(thrown(error));
    }
  }
  try {
    const { client } = await start(sdk);
    const result = await client.callTool({ name: plan.call.name, arguments: plan.call.arguments });
    report.final = {
      ok: !result.isError,
      text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    };
    await client.close();
  } catch (error) {
    report.final = thrown(error);
  }
  for (const client of kept) await client.close();
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().then(() => process.exit(0), (error) => {
  process.stdout.write(JSON.stringify({ fatal: thrown(error) }) + "\n");
  process.exit(1);
});
