// A test MCP Apps host for Serpent's search grid: node host.mjs CONFIG.json
//
// CONFIG (written by tests/mcp/test_search_app_host.py): serpentUrl, token, libraryId,
// missingLibraryId, gridTag, bulkTag, shotDir, reportPath, chromium (default /usr/bin/chromium),
// scenarios (names from scenarios.mjs; default all). Starts the two host origins
// (host-server.mjs), Debian's Chromium headless through playwright-core (no browser download)
// with a new empty profile, connects the page's MCP client to Serpent, runs the scenarios and
// writes {scenarios: {name: facts | {error}}, console: [...]} to reportPath. Exit 0 once the
// report is written (the test judges it), 1 when the host itself could not run.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startHostServers } from "./host-server.mjs";
import { scenarios, waitFor } from "./scenarios.mjs";

const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--host-resolver-rules=MAP localhost 127.0.0.1",
];

const SCENARIO_DEADLINE_MS = 60000;

function withDeadline(name, promise) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} took over ${SCENARIO_DEADLINE_MS} ms`)),
                       SCENARIO_DEADLINE_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function main() {
  const config = JSON.parse(await readFile(process.argv[2], "utf8"));
  const executablePath = config.chromium ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium is not at ${executablePath}: apt install chromium`);
  }
  const servers = await startHostServers(config.serpentUrl);
  const profile = await mkdtemp(path.join(os.tmpdir(), "serpent-mcp-app-host-"));
  const consoleLines = [];
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath, headless: true, args: FLAGS, viewport: { width: 1000, height: 900 },
      timeout: 60000,
    });
    const page = context.pages()[0] ?? await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") {
        consoleLines.push({ type: message.type(), text: message.text(), url: message.location()?.url ?? "" });
      }
    });
    page.on("pageerror", (error) => consoleLines.push({ type: "pageerror", text: String(error), url: "" }));
    await page.goto(servers.hostUrl);
    await waitFor("the host page", () => page.evaluate(() => window.testHostReady === true));
    const connected = await page.evaluate((options) => window.testHost.connect(options),
      { token: config.token, sandbox: servers.sandboxUrl });

    const report = { connected, hostUrl: servers.hostUrl, sandboxUrl: servers.sandboxUrl,
                     scenarios: {}, timings: {}, console: consoleLines, complete: false };
    for (const name of config.scenarios ?? Object.keys(scenarios)) {
      const started = Date.now();
      try {
        report.scenarios[name] = await withDeadline(name, scenarios[name](page, config));
      } catch (error) {
        report.scenarios[name] = { error: String(error?.stack ?? error) };
        await page.evaluate(() => window.testHost.unmountAll()).catch(() => {});
      }
      report.timings[name] = Date.now() - started;
      await writeFile(config.reportPath, JSON.stringify(report, null, 1));  // partial on a kill
    }
    report.complete = true;
    await writeFile(config.reportPath, JSON.stringify(report, null, 1));
  } finally {
    await context?.close().catch(() => {});
    await servers.close();
    await rm(profile, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`mcp-app-host: ${error?.stack ?? error}\n`);
  process.exit(1);
});
