"""Benchmark: the round trip of `serpent_library_change_sequence` over HTTP (guard, token check,
tool handler, gateway, library worker) against a bare `MCPServer` no-op tool on the same
machine, in the same run, with the same SDK client, in both protocol eras.

Run: `.venv/bin/python bench/bench_mcp_roundtrip.py [--calls 400] [--warmup 40]`.
Prints p50 and p99 per server and the ratios (target: Serpent p50 <= 1.5x bare p50).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def measure(url: str, token: str | None, mode: str, tool: str, args: dict[str, object],
                  calls: int, warmup: int) -> list[float]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60))
    samples: list[float] = []
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        for index in range(warmup + calls):
            started = time.perf_counter()
            result = await client.call_tool(tool, args)
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"{tool} failed: {result.content}")
            if index >= warmup:
                samples.append(elapsed)
    return samples


def bare_server() -> tuple[object, str]:
    from mcp.server import MCPServer

    from serpent_tk.mcp.listener import Listener

    bare = MCPServer("bare", log_level="WARNING")

    @bare.tool()
    def noop() -> str:
        """Do nothing."""
        return "ok"

    listener = Listener(0)
    listener.start(bare.streamable_http_app())
    return listener, f"http://127.0.0.1:{listener.port}/mcp"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=int(os.environ.get("SERPENT_BENCH_CALLS",
                                                                        400)))
    parser.add_argument("--warmup", type=int, default=40)
    options = parser.parse_args()
    os.environ["SERPENT_USER_DATA_PATH"] = tempfile.mkdtemp(prefix="serpent-bench-")

    from serpent_tk.logs import setup_logging
    from serpent_tk.paths import app_dirs

    dirs = app_dirs().ensure()
    setup_logging(dirs.log, level=logging.WARNING, console=True)  # ours before the SDK's

    from serpent_tk.automation.caller import Caller
    from serpent_tk.automation.gateway import Gateway
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.mcp.service import McpService
    from serpent_tk.settings import SettingsStore

    gateway = Gateway(SettingsStore(dirs.settings_file))
    credentials = CredentialStore(dirs.credentials_file)
    token = credentials.create("Bench", "auto")[1]
    service = McpService(gateway, credentials, port=0)
    bare_listener, bare_url = bare_server()
    try:
        parent = Path(tempfile.mkdtemp(prefix="serpent-bench-lib-"))
        created = gateway.submit("library.create", {"selectedParentPath": str(parent),
                                                    "name": "Bench"}, Caller.cli()).result(120)
        library = created["result"]["libraryId"]
        status = service.start()
        assert status.url is not None
        print(f"{options.calls} calls per series after {options.warmup} warm-up calls; "
              f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        for mode in ("legacy", "auto"):
            bare = asyncio.run(measure(bare_url, None, mode, "noop", {}, options.calls,
                                       options.warmup))
            ours = asyncio.run(measure(status.url, token, mode, "serpent_library_change_sequence",
                                       {"libraryId": library}, options.calls, options.warmup))
            era = "2025-11-25 (legacy)" if mode == "legacy" else "2026-07-28 (modern)"
            b50, b99 = percentile(bare, 0.5), percentile(bare, 0.99)
            s50, s99 = percentile(ours, 0.5), percentile(ours, 0.99)
            print(f"\n{era}")
            print(f"  bare MCPServer no-op      p50 {b50 * 1e3:7.2f} ms   p99 {b99 * 1e3:7.2f} ms"
                  f"   mean {statistics.mean(bare) * 1e3:7.2f} ms")
            print(f"  serpent change_sequence   p50 {s50 * 1e3:7.2f} ms   p99 {s99 * 1e3:7.2f} ms"
                  f"   mean {statistics.mean(ours) * 1e3:7.2f} ms")
            verdict = "meets" if s50 <= 1.5 * b50 else "MISSES"
            print(f"  ratio p50 {s50 / b50:5.2f}x ({verdict} the 1.5x target)   "
                  f"ratio p99 {s99 / b99:5.2f}x")
    finally:
        service.stop()
        bare_listener.stop()  # type: ignore[attr-defined]
        gateway.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
