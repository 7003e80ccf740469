"""Benchmark: how many MCP calls, and how many image bytes, an agent needs to look at and tag
1,000 untagged pictures, the way the "tag-untagged" prompt says — a page of 36 untagged assets
(serpent_asset_search), one contact sheet of them (serpent_asset_thumbnail with assetIds),
one serpent_asset_tag with tagsByAsset — against the one-at-a-time way measured in the same
run on a sample (one thumbnail and one tag call per asset), extrapolated to all of them.

Everything is real: a gateway, library worker and MCP server in this process, an essentials
credential, the SDK client over HTTP (2025-11-25 era). The agent's "vision" is a stand-in
(each picture is tagged from its name): what is measured is the traffic, not the tagging.

Run: `.venv/bin/python bench/bench_agent_looking.py [--assets 1000] [--sample 36]`.
Goal: under 100 calls for 1,000 assets.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PAGE = 36  # one contact sheet
GOAL_CALLS = 100


def write_pictures(folder: Path, count: int) -> list[Path]:
    """`count` distinct 800 x 600 JPEGs (a few drawn ones, each file made unique)."""
    from benchdata import unique_variant
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    bases = []
    for n in range(8):
        image = Image.new("RGB", (800, 600), (30 * n, 200 - 20 * n, 90 + 15 * n))
        draw = ImageDraw.Draw(image)
        for k in range(12):
            draw.ellipse((40 * k, 30 * n, 40 * k + 180, 30 * n + 140),
                         fill=(255 - 20 * k, 20 * n, 10 * k))
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=85)
        bases.append(buffer.getvalue())
    paths = []
    for n in range(count):
        path = folder / f"picture-{n:04d}-base{n % 8}.jpg"
        path.write_bytes(unique_variant("jpg", bases[n % 8], n))
        paths.append(path)
    return paths


class Counter:
    """Calls made and image bytes received by the agent."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0
        self.image_bytes = 0
        self.images = 0

    async def __call__(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        result = await self.client.call_tool(tool, args)
        for content in result.content:
            if content.type == "image":
                self.images += 1
                self.image_bytes += len(base64.b64decode(content.data))
        envelope: dict[str, Any] = result.structured_content or {}
        if envelope.get("status") != "ok":
            raise SystemExit(f"{tool} failed: {envelope}")
        return dict(envelope["result"])


def seen_tags(name: str) -> list[str]:
    """The stand-in for looking: what the picture 'shows'."""
    return ["bench", name.rsplit("-", 1)[-1].split(".")[0]]


async def with_sheets(ask: Counter, library: str, most: int) -> int:
    """The prompt's loop; returns how many assets it tagged."""
    tagged, cursor = 0, None
    while tagged < most:
        query: dict[str, Any] = {"libraryId": library, "untagged": True, "kind": ["image"],
                                 "limit": PAGE}
        if cursor:
            query["cursor"] = cursor
        page = await ask("serpent_asset_search", query)
        ids = [item["id"] for item in page["items"]]
        if not ids:
            break
        sheet = await ask("serpent_asset_thumbnail", {"libraryId": library, "assetIds": ids})
        plan = {cell["assetId"]: seen_tags(cell["name"]) for cell in sheet["items"]
                if cell["status"] == "shown"}
        await ask("serpent_asset_tag", {"libraryId": library, "tagsByAsset": plan})
        tagged += len(plan)
        cursor = page.get("nextCursor")
        if not cursor:
            break
    return tagged


async def one_at_a_time(ask: Counter, library: str, sample: int) -> list[str]:
    """The old way on `sample` assets: a page, then per asset one look and one tag call."""
    page = await ask("serpent_asset_search", {"libraryId": library, "untagged": True,
                                              "kind": ["image"], "limit": sample})
    ids = []
    for item in page["items"]:
        await ask("serpent_asset_thumbnail", {"libraryId": library, "assetId": item["id"]})
        await ask("serpent_asset_tag", {"libraryId": library, "assetIds": [item["id"]],
                                        "tags": seen_tags(item["name"])})
        ids.append(item["id"])
    return ids


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assets", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=36,
                        help="assets the one-at-a-time baseline looks at (extrapolated)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-looking-"))
    os.environ["SERPENT_USER_DATA_PATH"] = str(work / "data")

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from serpent_tk.automation.caller import Caller
    from serpent_tk.automation.gateway import Gateway
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.mcp.service import McpService
    from serpent_tk.paths import app_dirs
    from serpent_tk.settings import SettingsStore

    dirs = app_dirs().ensure()
    gateway = Gateway(SettingsStore(dirs.settings_file))
    credentials = CredentialStore(dirs.credentials_file)
    service = McpService(gateway, credentials, port=0)
    try:
        started = time.perf_counter()
        print(f"making {args.assets} pictures and importing them ...", flush=True)
        pictures = write_pictures(work / "pictures", args.assets)
        (work / "libs").mkdir()

        def submit(command: str, arguments: dict[str, Any]) -> dict[str, Any]:
            answer = gateway.submit(command, arguments, Caller.ui()).result(3600)
            if answer["status"] != "ok":
                raise SystemExit(f"{command}: {answer}")
            return dict(answer["result"])

        library = submit("library.create", {"selectedParentPath": str(work / "libs"),
                                            "name": "Bench"})["libraryId"]
        submit("file.import", {"libraryId": library, "sourcePaths": [str(work / "pictures")]})
        print(f"  ready in {time.perf_counter() - started:.0f} s", flush=True)
        status = service.start(0)
        token = credentials.create("Agent")[1]  # a new credential: the essentials

        async def agent() -> tuple[Counter, Counter, float, float]:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                      timeout=httpx2.Timeout(120, read=600))
            async with http, Client(streamable_http_client(str(status.url), http_client=http),
                                    mode="legacy") as client:
                base = Counter(client)
                began = time.perf_counter()
                sampled = await one_at_a_time(base, library, args.sample)
                base_s = time.perf_counter() - began
                await client.call_tool("serpent_asset_untag", {  # untagged again
                    "libraryId": library, "assetIds": sampled, "tags": ["bench"] + sorted(
                        {t for i in range(8) for t in (f"base{i}",)})})
                sheets = Counter(client)
                began = time.perf_counter()
                tagged = await with_sheets(sheets, library, len(pictures))
                sheets_s = time.perf_counter() - began
                if tagged != len(pictures):
                    raise SystemExit(f"tagged {tagged} of {len(pictures)}")
                return base, sheets, base_s, sheets_s

        base, sheets, base_s, sheets_s = asyncio.run(agent())
    finally:
        service.stop()
        gateway.shutdown()
    n, sample = len(pictures), max(1, min(args.sample, len(pictures)))
    base_calls = math.ceil(n / sample) + 2 * n  # a page per sample-size, 2 calls per asset
    base_bytes = base.image_bytes / sample * n
    base_time = base_s / sample * n
    print(f"\nlooking at and tagging {n} untagged pictures, essentials credential:")
    print(f"{'way':<26} {'calls':>7} {'images':>7} {'image bytes':>13} {'time':>9}")
    print(f"{'one at a time (sampled)':<26} {base_calls:>7,} {n:>7,} {base_bytes:>13,.0f} "
          f"{base_time:>8.0f}s")
    print(f"{'contact sheets of 36':<26} {sheets.calls:>7,} {sheets.images:>7,} "
          f"{sheets.image_bytes:>13,} {sheets_s:>8.0f}s")
    print(f"ratio (sheets / one at a time): calls {sheets.calls / base_calls:.3f}, image bytes "
          f"{sheets.image_bytes / base_bytes:.2f}, time {sheets_s / base_time:.2f}")
    print(f"goal: under {GOAL_CALLS} calls — {'met' if sheets.calls < GOAL_CALLS else 'MISSED'}")
    from benchdata import record

    record(f"agent looks at and tags {n} pictures: calls", sheets.calls, "calls",
           baseline=base_calls, target=f"< {GOAL_CALLS} calls")
    record(f"agent looks at and tags {n} pictures: image bytes", sheets.image_bytes / 1e6,
           "MB", baseline=base_bytes / 1e6, target="")
    return 0 if sheets.calls < GOAL_CALLS else 1


if __name__ == "__main__":
    raise SystemExit(main())
