// What the test host does with Serpent's search grid, scenario by scenario, and what it saw.
// Runs in node and drives the host page (page/host.js) through Playwright. Every wait is on a
// condition with a deadline; a scenario that fails records its error and the others still
// run. The facts go to tests/mcp/test_search_app_host.py, which judges them.
import path from "node:path";

const WAIT_MS = 15000;

export async function waitFor(what, probe, timeout = WAIT_MS) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The app's own frame: the inner iframe of the view's sandbox proxy. */
async function appFrame(page, id) {
  return waitFor("the app frame", async () => {
    const outer = await page.$(`#slot-${id} iframe`);
    const sandbox = outer && await outer.contentFrame();
    const inner = sandbox && sandbox.childFrames()[0];
    if (!inner) return null;
    const ready = await inner.evaluate(() => !!document.getElementById("grid")).catch(() => false);
    return ready ? inner : null;
  });
}

/** What the person sees in the app, read from inside its frame. */
function look(frame) {
  return frame.evaluate(() => {
    const root = document.documentElement;
    const visible = (el) => !!el && !el.hidden && el.getClientRects().length > 0;
    const text = (id) => document.getElementById(id)?.textContent ?? "";
    const previous = root.style.height;
    root.style.height = "max-content";
    const contentHeight = Math.ceil(root.getBoundingClientRect().height);
    root.style.height = previous;
    const body = getComputedStyle(document.body);
    const images = [...document.querySelectorAll(".thumb img")];
    const scroller = document.getElementById("scroller") ?? document.scrollingElement;
    return {
      state: document.body.dataset.state ?? null,
      theme: root.dataset.theme ?? null,
      count: text("count"),
      statusShown: visible(document.getElementById("status")),
      statusTitle: text("status-title"),
      statusDetail: visible(document.getElementById("status-detail")) ? text("status-detail") : "",
      problemShown: visible(document.getElementById("problem")),
      problemRole: document.getElementById("problem")?.getAttribute("role") ?? null,
      problemCode: text("problem-code"),
      problemMessage: text("problem-message"),
      figures: document.querySelectorAll("figure").length,
      names: [...document.querySelectorAll("figcaption .name")].map((n) => n.textContent),
      ids: [...document.querySelectorAll("figure")].map((f) => f.dataset.assetId),
      imagesLoaded: images.filter((img) => img.complete && img.naturalWidth > 0).length,
      contentHeight,
      viewportHeight: window.innerHeight,
      viewportWidth: window.innerWidth,
      scrollerScrollable: scroller.scrollHeight > scroller.clientHeight + 1,
      background: body.backgroundColor,
      color: body.color,
    };
  });
}

/** Ids of the grid cells inside the app's visible area right now. */
function visibleIds(frame) {
  return frame.evaluate(() => {
    const scroller = (document.getElementById("scroller") ?? document.documentElement)
      .getBoundingClientRect();
    const top = Math.max(scroller.top, 0);
    const bottom = Math.min(scroller.bottom, window.innerHeight);
    return [...document.querySelectorAll("figure")].filter((f) => {
      const r = f.getBoundingClientRect();
      return r.bottom > top && r.top < bottom;
    }).map((f) => f.dataset.assetId);
  });
}

/** Two animation frames inside the app: layout, observers and size reports have run. */
function settle(frame) {
  return frame.evaluate(() => new Promise((resolve) =>
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)))));
}

const host = (page, name, ...args) =>
  page.evaluate(([n, a]) => window.testHost[n](...a), [name, args]);

async function mount(page, options) {
  const id = await host(page, "mount", options);
  return { id, frame: await appFrame(page, id) };
}

async function stats(page, id) { return host(page, "stats", id); }

/**
 * Waits until the view reported its content's height and the host's iframe has it (the new
 * size reaches the app's out-of-process frame a moment after the host set it).
 */
async function fitted(page, id, frame) {
  await settle(frame);
  return waitFor("the host to size the view to its content", async () => {
    const seen = await look(frame);
    const s = await stats(page, id);
    const last = s.sizes.at(-1);
    const fixed = Math.round(s.iframeHeight) === seen.viewportHeight;
    return last && last.height === seen.contentHeight && fixed ? { seen, stats: s } : null;
  });
}

/** A PNG of the view's slot; the viewport grows to hold it (frames off screen are not painted). */
async function shot(page, id, dir, name) {
  if (!dir) return null;
  const file = path.join(dir, name);
  const slot = await page.$(`#slot-${id}`);
  const box = await slot.boundingBox();
  const viewport = page.viewportSize();
  const needed = Math.ceil(box.y + box.height + 16);
  if (needed > viewport.height) await page.setViewportSize({ width: viewport.width, height: needed });
  await slot.screenshot({ path: file });
  if (needed > viewport.height) await page.setViewportSize(viewport);
  return file;
}

async function searchGrid(page, id, frame, config, { beforeWaiting } = {}) {
  const run = await host(page, "runTool", id, {
    args: { libraryId: config.libraryId, tags: [config.gridTag], limit: 50 },
  });
  if (beforeWaiting) await beforeWaiting();
  const expected = run.result.structuredContent?.result?.items?.length ?? -1;
  await waitFor("every thumbnail of the grid", async () => {
    const seen = await look(frame);
    return seen.figures === expected && seen.imagesLoaded === expected;
  });
  return run;
}

export const scenarios = {
  async grid(page, config) {
    const { id, frame } = await mount(page, { width: 860, hostContext: { theme: "light" } });
    const run = await searchGrid(page, id, frame, config);
    const wide = await fitted(page, id, frame);
    const screenshot = await shot(page, id, config.shotDir, "grid-light.png");
    const ping = await host(page, "request", id, "ping");
    const unknown = await host(page, "request", id, "ui/no-such-method");
    await host(page, "setWidth", id, 420);
    const narrow = await waitFor("a new size after narrowing", async () => {
      const s = await stats(page, id);
      const last = s.sizes.at(-1);
      return last && last.height > wide.stats.sizes.at(-1).height ? true : null;
    }).then(() => fitted(page, id, frame));
    const narrowShot = await shot(page, id, config.shotDir, "grid-narrow.png");
    const teardown = await host(page, "teardown", id);
    const after = await stats(page, id);
    await host(page, "unmount", id);
    return {
      total: run.result.structuredContent?.result?.total ?? null,
      resultNames: (run.result.structuredContent?.result?.items ?? []).map((i) => i.name),
      wide: { seen: wide.seen, sizes: wide.stats.sizes, iframeHeight: wide.stats.iframeHeight },
      narrow: { seen: narrow.seen, sizes: narrow.stats.sizes, iframeHeight: narrow.stats.iframeHeight,
                iframeWidth: narrow.stats.iframeWidth },
      ping, unknown, teardown,
      thumbnails: after.thumbnails,
      screenshots: [screenshot, narrowShot].filter(Boolean),
    };
  },

  async dark(page, config) {
    const { id, frame } = await mount(page, { hostContext: { theme: "dark" } });
    await searchGrid(page, id, frame, config);
    const dark = (await fitted(page, id, frame)).seen;
    const screenshot = await shot(page, id, config.shotDir, "grid-dark.png");
    await host(page, "setHostContext", id, { theme: "light" });
    const light = await waitFor("the light theme", async () => {
      const seen = await look(frame);
      return seen.theme === "light" ? seen : null;
    });
    await host(page, "setHostContext", id,
      { styles: { variables: { "--color-background-primary": "rgb(10, 40, 70)" } } });
    const styled = await waitFor("the host's background colour", async () => {
      const seen = await look(frame);
      return seen.background === "rgb(10, 40, 70)" ? seen : null;
    });
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { dark, light, styled, screenshots: [screenshot].filter(Boolean) };
  },

  async error(page, config) {
    const { id, frame } = await mount(page, {});
    const run = await host(page, "runTool", id, { args: { libraryId: config.missingLibraryId } });
    await waitFor("the error panel", async () => (await look(frame)).state === "error");
    const { seen, stats: s } = await fitted(page, id, frame);
    const screenshot = await shot(page, id, config.shotDir, "error.png");
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { isError: run.result.isError ?? false, envelope: run.result.structuredContent ?? null,
             seen, sizes: s.sizes, iframeHeight: s.iframeHeight,
             screenshots: [screenshot].filter(Boolean) };
  },

  async cancelled(page, config) {
    const { id, frame } = await mount(page, {});
    const reason = "The person stopped the search";
    const run = await host(page, "runTool", id, {
      args: { libraryId: config.libraryId, text: "sky" }, cancel: true, cancelReason: reason,
    });
    await waitFor("the cancelled panel", async () => (await look(frame)).state === "cancelled");
    const { seen, stats: s } = await fitted(page, id, frame);
    const screenshot = await shot(page, id, config.shotDir, "cancelled.png");
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { outcome: run.outcome, reason, seen, sizes: s.sizes, iframeHeight: s.iframeHeight,
             screenshots: [screenshot].filter(Boolean) };
  },

  async empty(page, config) {
    const { id, frame } = await mount(page, {});
    const text = "no-such-asset-zzz";
    await host(page, "runTool", id, { args: { libraryId: config.libraryId, text } });
    await waitFor("the empty panel", async () => (await look(frame)).state === "empty");
    const { seen, stats: s } = await fitted(page, id, frame);
    const screenshot = await shot(page, id, config.shotDir, "empty.png");
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { text, seen, sizes: s.sizes, iframeHeight: s.iframeHeight,
             screenshots: [screenshot].filter(Boolean) };
  },

  async searching(page, config) {
    const { id, frame } = await mount(page, {});
    await page.evaluate(([viewId, args]) => window.testHost.sendToolInput?.(viewId, args),
      [id, { libraryId: config.libraryId, text: "sky", tags: ["clouds"] }]);
    await waitFor("the searching state", async () => (await look(frame)).state === "searching");
    const { seen } = await fitted(page, id, frame);
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { seen };
  },

  async maxHeight(page, config) {
    const maxHeight = 320;
    const { id, frame } = await mount(page, { hostContext: { containerDimensions: { maxHeight } } });
    await searchGrid(page, id, frame, config);
    const { seen, stats: s } = await fitted(page, id, frame);
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { maxHeight, seen, sizes: s.sizes, iframeHeight: s.iframeHeight };
  },

  async flood(page, config) {
    const height = 600;
    const { id, frame } = await mount(page, { hostContext: { containerDimensions: { height } } });
    await host(page, "hold", id);
    const run = await host(page, "runTool", id,
      { args: { libraryId: config.libraryId, tags: [config.bulkTag], limit: 200 } });
    const items = run.result.structuredContent?.result?.items ?? [];
    await waitFor("the first thumbnail calls", async () => (await stats(page, id)).thumbnails.started.length > 0);
    await host(page, "request", id, "ping");
    await settle(frame);
    const whileHeld = (await stats(page, id)).thumbnails;
    const visibleAtTop = await visibleIds(frame);

    await frame.evaluate(() => {
      const s = document.getElementById("scroller") ?? document.scrollingElement;
      s.scrollTop = s.scrollHeight;
    });
    await settle(frame);
    const visibleAtBottom = await visibleIds(frame);
    const afterScroll = [];
    for (let i = 0; i < 4; i++) {
      const before = (await stats(page, id)).thumbnails.started.length;
      await host(page, "release", id, 1);
      await waitFor("the next thumbnail call", async () =>
        (await stats(page, id)).thumbnails.started.length > before);
      afterScroll.push((await stats(page, id)).thumbnails.started.at(-1));
    }
    await host(page, "release", id);
    const done = await waitFor("every thumbnail of the 200", async () => {
      const t = (await stats(page, id)).thumbnails;
      return t.finished + t.failed >= items.length ? t : null;
    }, 45000);
    const seen = await look(frame);
    const screenshot = await shot(page, id, config.shotDir, "flood-200.png");
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { items: items.length, screenshots: [screenshot].filter(Boolean), whileHeld, visibleAtTop, visibleAtBottom, afterScroll,
             thumbnails: done, seen };
  },

  async teardownStops(page, config) {
    const { id, frame } = await mount(page, {});
    await host(page, "hold", id);
    await host(page, "runTool", id,
      { args: { libraryId: config.libraryId, tags: [config.bulkTag], limit: 200 } });
    await waitFor("the first thumbnail calls", async () => (await stats(page, id)).thumbnails.started.length > 0);
    await settle(frame);
    const before = (await stats(page, id)).thumbnails;
    const teardown = await host(page, "teardown", id);
    await host(page, "release", id);
    const ping = await host(page, "request", id, "ping");
    await settle(frame);
    const after = await stats(page, id);
    await host(page, "unmount", id);
    return {
      before, teardown, ping, after: after.thumbnails,
      cancelled: after.raw.filter((m) => m.method === "notifications/cancelled").length,
    };
  },

  async replaced(page, config) {
    const { id, frame } = await mount(page, {});
    await host(page, "hold", id);
    const bulk = await host(page, "runTool", id,
      { args: { libraryId: config.libraryId, tags: [config.bulkTag], limit: 200 } });
    await waitFor("the first thumbnail calls", async () => (await stats(page, id)).thumbnails.started.length > 0);
    await settle(frame);
    const before = (await stats(page, id)).thumbnails;
    // the new result arrives while the old calls are still held; then the host lets all go
    const grid = await searchGrid(page, id, frame, config,
      { beforeWaiting: () => host(page, "release", id) });
    await settle(frame);
    const after = await stats(page, id);
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return {
      before, after: after.thumbnails,
      bulkIds: (bulk.result.structuredContent?.result?.items ?? []).map((i) => i.id),
      gridIds: (grid.result.structuredContent?.result?.items ?? []).map((i) => i.id),
    };
  },

  async foreign(page, config) {
    const { id, frame } = await mount(page, {});
    await searchGrid(page, id, frame, config);
    const before = await look(frame);
    const fake = { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: {
      isError: true, content: [{ type: "text", text: "forged" }],
      structuredContent: { status: "error", error: { code: "FORGED", message: "from a stranger" } },
    } };
    await host(page, "postFromForeignFrames", id, fake);
    await host(page, "postFromForeignFrames", id, { jsonrpc: "2.0", id: "foreign-ping", method: "ping" });
    const ping = await host(page, "request", id, "ping");
    await settle(frame);
    const after = await look(frame);
    const s = await stats(page, id);
    await host(page, "teardown", id);
    await host(page, "unmount", id);
    return { before, after, ping, answeredForeign: s.raw.some((m) => m.id === "foreign-ping") };
  },
};
