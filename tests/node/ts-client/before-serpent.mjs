// A stdio client started before Serpent (Claude Desktop opened first), with the official
// TypeScript MCP SDK. Run by tests/mcp/test_ts_client_before_serpent.py:
// `node before-serpent.mjs PLAN.json`. It connects through the bridge, lists the tools, calls
// one and prints a report line; then waits for one line on stdin (the test has started
// Serpent meanwhile), calls again in the same session, lists again and prints a second line.
// PLAN: {sdk: "v1" | "v2", era: "legacy" | "auto", transport: {kind: "stdio", command, args,
//        env}, call: {name, arguments}}
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { callTool, listAllTools, loadSdk, thrown, transportFor } from "./common.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const say = (line) => process.stdout.write(JSON.stringify(line) + "\n");

async function main() {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const sdk = await loadSdk(plan.sdk, plan.era);
  const client = sdk.newClient();
  let listChanged = 0;
  sdk.onNotification(client, "notifications/tools/list_changed", () => { listChanged += 1; });
  const transport = transportFor(sdk, plan.transport);
  await client.connect(transport);
  try {
    say({
      phase: "before",
      sdkVersion: sdk.version,
      protocolVersion: sdk.protocolVersion(client, transport),
      tools: await listAllTools(client),  // also what the SDK checks results against
      call: await callTool(client, plan.call.name, plan.call.arguments),
    });
    await lines.next();  // Serpent runs now
    const call = await callTool(client, plan.call.name, plan.call.arguments);
    say({ phase: "after", call, tools: await listAllTools(client), listChanged });
  } finally {
    await client.close();
  }
}

main().then(() => process.exit(0), (error) => {
  say({ fatal: thrown(error) });
  process.exit(1);
});
