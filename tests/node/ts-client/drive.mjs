// Drives a running Serpent with the official TypeScript MCP SDK client, as desktop clients do.
// Run by tests/mcp/test_ts_client.py: `node drive.mjs PLAN.json`; prints one JSON report line
// on stdout (what each step saw: results, thrown errors, notifications); pytest judges it.
// PLAN: {sdk: "v1" (@modelcontextprotocol/sdk) | "v2" (@modelcontextprotocol/client),
//        era: "legacy" | "auto", transport: {kind: "http", url, token} |
//        {kind: "stdio", command, args, env}, libraryId, calls: [{label, name, arguments}],
//        prompts: [{label, name, arguments}], completions: [{label, ref, argument, context}],
//        resources: [{label, uri}] (each optional: the prompts, templates and reads to try),
//        notify (default true: wait for a library change), notifyTimeoutMs,
//        starts (optional: that many clients connect, list tools and leave first)}
import { readFileSync } from "node:fs";
import { callTool, listAllTools, loadSdk, thrown, transportFor } from "./common.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const MODERN = "2026-07-28";

async function guarded(work) {
  try {
    return { threw: false, ...(await work()) };
  } catch (error) {
    return thrown(error);
  }
}

/** Prompts, completions and resources, as a client's slash commands and @-mentions use them. */
async function promptsAndResources(client) {
  const report = {};
  report.promptList = await guarded(async () => ({
    prompts: (await client.listPrompts()).prompts.map((p) => ({
      name: p.name, title: p.title ?? null,
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: Boolean(a.required) })),
    })),
  }));
  report.prompts = {};
  for (const step of plan.prompts ?? []) {
    report.prompts[step.label] = await guarded(async () => {
      const result = await client.getPrompt({ name: step.name, arguments: step.arguments });
      return {
        messages: result.messages.map((m) => ({
          role: m.role, type: m.content.type, text: m.content.text ?? null,
        })),
      };
    });
  }
  report.completions = {};
  for (const step of plan.completions ?? []) {
    report.completions[step.label] = await guarded(async () => {
      const params = { ref: step.ref, argument: step.argument };
      if (step.context) params.context = { arguments: step.context };
      return { values: (await client.complete(params)).completion.values };
    });
  }
  report.templates = await guarded(async () => ({
    templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => ({
      uriTemplate: t.uriTemplate, mimeType: t.mimeType ?? null,
    })),
  }));
  report.resources = {};
  for (const step of plan.resources ?? []) {
    report.resources[step.label] = await guarded(async () => ({
      contents: (await client.readResource({ uri: step.uri })).contents.map((c) => ({
        uri: c.uri, mimeType: c.mimeType ?? null, text: c.text ?? null,
        bytes: typeof c.blob === "string" ? Buffer.from(c.blob, "base64").length : null,
      })),
    }));
  }
  return report;
}

/** Resolves with the first notification `accept` takes, or null after `ms`. */
function waitFor(inbox, accept, ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    inbox.waiters.push((note) => {
      if (!accept(note)) return false;
      clearTimeout(timer);
      resolve(note);
      return true;
    });
    inbox.replay();
  });
}

function inboxFor(sdk, client, methods) {
  const inbox = {
    seen: [],
    waiters: [],
    replay() {
      for (const note of inbox.seen) {
        inbox.waiters = inbox.waiters.filter((waiter) => !waiter(note));
      }
    },
  };
  for (const method of methods) {
    sdk.onNotification(client, method, (note) => {
      inbox.seen.push(note);
      inbox.waiters = inbox.waiters.filter((waiter) => !waiter(note));
    });
  }
  return inbox;
}

/** A change to the library must reach this client as a notification. */
async function libraryChangeNotification(sdk, client, inbox, modern) {
  const deadline = Date.now() + plan.notifyTimeoutMs;
  const folder = (n) => ({ libraryId: plan.libraryId, name: `From TypeScript ${n}` });
  if (modern) {  // 2026-07-28: subscribe to the library's change resource, then change it
    const uri = `serpent://libraries/${plan.libraryId}/changes`;
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    try {
      const change = await callTool(client, "serpent_folder_create", folder(1));
      const note = await waitFor(inbox, (n) => n.method === "notifications/resources/updated"
        && n.params?.uri === uri, deadline - Date.now());
      return { change, method: note?.method ?? null, params: note?.params ?? null };
    } finally {
      await subscription.close();
    }
  }
  // handshake era: notifications/message on the session's GET stream. Whether that stream is
  // open yet cannot be seen from here, so change again until one arrives (or the deadline).
  for (let attempt = 1; Date.now() < deadline; attempt += 1) {
    const change = await callTool(client, "serpent_folder_create", folder(attempt));
    // the folder's own change: the setup's pictures finishing their previews and analysis
    // in the background announce library changes too (kinds ["asset"]), now or already seen
    const note = await waitFor(inbox, (n) => n.method === "notifications/message"
      && n.params?.data?.event === "library.changed"
      && n.params?.data?.libraryId === plan.libraryId
      && (n.params?.data?.kinds ?? []).includes("folder"),
    Math.min(1500, Math.max(0, deadline - Date.now())));
    if (note) return { change, method: note.method, params: note.params, attempts: attempt };
  }
  return { method: null, params: null };
}

/** `plan.starts` clients, two at a time (what two cores take), each connecting, listing tools
 * and leaving as a person's scripted loop or restarts do: how many saw Serpent's tools, and
 * the first failure. */
async function startMany(sdk) {
  const outcome = { connected: 0, failure: null };
  const startOne = async (start) => {
    const client = sdk.newClient();
    try {
      await client.connect(transportFor(sdk, plan.transport));
      if ((await client.listTools()).tools.length > 0) outcome.connected += 1;
    } catch (error) {
      outcome.failure ??= { start, ...thrown(error) };
    } finally {
      await client.close().catch(() => {});
    }
  };
  for (let start = 0; start < plan.starts; start += 2) {
    await Promise.all([start, start + 1].filter((n) => n < plan.starts).map(startOne));
  }
  return outcome;
}

async function main() {
  const sdk = await loadSdk(plan.sdk, plan.era);
  const starts = plan.starts ? await startMany(sdk) : null;
  const client = sdk.newClient();
  const transport = transportFor(sdk, plan.transport);
  const report = { sdk: plan.sdk, sdkVersion: sdk.version, calls: {}, starts };
  const inbox = inboxFor(sdk, client, ["notifications/message", "notifications/resources/updated"]);
  await client.connect(transport);
  try {
    report.protocolVersion = sdk.protocolVersion(client, transport);
    report.tools = await listAllTools(client);  // also what the SDK validates results with
    for (const step of plan.calls) {
      report.calls[step.label] = await callTool(client, step.name, step.arguments);
    }
    if (plan.prompts || plan.resources || plan.completions) {
      Object.assign(report, await promptsAndResources(client));
    }
    if (plan.notify !== false) {
      const modern = report.protocolVersion === MODERN;
      report.notification = await libraryChangeNotification(sdk, client, inbox, modern);
    }
  } finally {
    await client.close();
  }
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().then(() => process.exit(0), (error) => {
  process.stdout.write(JSON.stringify({ fatal: thrown(error) }) + "\n");
  process.exit(1);
});
