// Runs one long tool call as a 2025-11-25 MCP task with the official TypeScript SDK 1.x
// client's experimental tasks API (client.experimental.tasks: callToolStream, cancelTask,
// getTaskResult), as VS Code and Copilot CLI drive tasks. Run by tests/mcp/tasks/test_tasks_ts.py:
// `node tasks.mjs PLAN.json`. PLAN: {url, token, name, arguments, ttl}.
// Prints one JSON line per thing it saw ({event: "tools" | "created" | "progress" | "status" |
// "cancelled" | "end" | "result" | "report"}); reads "cancel" lines on stdin (it then cancels
// the task). The checks are the test's.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const say = (event) => process.stdout.write(JSON.stringify(event) + "\n");

function thrown(error) {
  return { code: error?.code ?? null, message: String(error?.message ?? error) };
}

async function main() {
  const client = new Client({ name: "serpent-ts-tasks-test", version: "1.0.0" },
    { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(plan.url), {
    requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
  });
  await client.connect(transport);
  const tasks = client.experimental.tasks;
  try {
    const tools = (await client.listTools()).tools;
    say({
      event: "tools", protocolVersion: transport.protocolVersion ?? null,
      serverTasks: client.getServerCapabilities()?.tasks ?? null,
      taskTools: tools.filter((t) => client.isToolTask(t.name)).map((t) => t.name),
    });
    let taskId = null;
    const input = createInterface({ input: process.stdin });
    input.on("line", (line) => {
      if (line.trim() !== "cancel" || taskId === null) return;
      tasks.cancelTask(taskId).then((task) => say({ event: "cancelled", task }),
        (error) => say({ event: "cancelled", error: thrown(error) }));
    });
    const stream = tasks.callToolStream({ name: plan.name, arguments: plan.arguments },
      undefined, {
        task: { ttl: plan.ttl },
        onprogress: (p) => say({ event: "progress", progress: p.progress, total: p.total ?? null,
          message: p.message ?? null }),
      });
    for await (const message of stream) {
      if (message.type === "taskCreated") {
        taskId = message.task.taskId;
        say({ event: "created", task: message.task });
      } else if (message.type === "taskStatus") {
        say({ event: "status", task: message.task });
      } else if (message.type === "result") {
        say({ event: "end", result: message.result });
      } else {
        say({ event: "end", error: thrown(message.error) });
      }
    }
    input.close();
    // what the call answered, also when it was cancelled (what it finished stays): the
    // answer's counts and the task it relates to, not all its items
    try {
      const result = await tasks.getTaskResult(taskId, CallToolResultSchema);
      const { items, ...counts } = result.structuredContent?.result ?? {};
      say({ event: "result", counts, items: items?.length ?? null, meta: result._meta ?? null });
    } catch (error) {
      say({ event: "result", error: thrown(error) });
    }
    say({ event: "report", listed: (await tasks.listTasks()).tasks.map((t) => t.taskId) });
  } finally {
    await client.close();
  }
}

// exit only once stdout is flushed: a pipe is written asynchronously, and process.exit()
// drops what is still pending (the last lines, cut mid-way)
const exitFlushed = (code) => process.stdout.write("", () => process.exit(code));
main().then(() => exitFlushed(0), (error) => {
  say({ event: "fatal", error: thrown(error) });
  exitFlushed(1);
});
