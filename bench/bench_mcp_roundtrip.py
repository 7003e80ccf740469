"""Benchmark: the round trip of one MCP tool call over HTTP, Serpent against a bare SDK server,
in both protocol eras, measured in the same run.

- Baseline: a bare SDK `MCPServer` with a no-op tool, served by a plain `uvicorn.run(app)` in a
  process of its own. It shares no code with what it judges (not our listener, guard, gateway).
- Serpent: `serpent-tk serve --port 0` in a process of its own, with a real library (the default
  one, holding some imported pictures), called with `serpent_library_change_sequence` (bearer
  check, guard, tool handler, gateway, library worker and back).

The same SDK client drives both, `mode="legacy"` (2025-11-25, sessions) and `mode="auto"`
(2026-07-28, self-contained POSTs), alternating between the servers in rounds so load from
other work on the machine hits both alike; Serpent's calls are timed once the imported
pictures' previews and analysis are done (else they compete for the CPU). Prints p50 and
p99 per server and era and the p50 ratio (target: Serpent p50 <= 1.5x bare p50 in both
eras).

Run: `.venv/bin/python bench/bench_mcp_roundtrip.py [--calls 400] [--warmup 40] [--rounds 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
START_TIMEOUT_S = 120.0
ERAS = (("legacy", "2025-11-25 (legacy)"), ("auto", "2026-07-28 (modern)"))
TARGET = 1.5


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


# -- the baseline server (its own process) --------------------------------------------------

def serve_bare(port: int) -> None:
    """`uvicorn.run` of a bare MCPServer with one no-op tool: nothing of Serpent's."""
    import uvicorn
    from mcp.server import MCPServer

    bare = MCPServer("bare", log_level="WARNING")

    @bare.tool()
    def noop() -> str:
        """Do nothing."""
        return "ok"

    uvicorn.run(bare.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the bare server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the bare server did not start listening")


# -- Serpent (`serpent-tk serve`, its own process) -----------------------------------------

def start_serpent(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, "-m", "serpent_tk", "serve", "--port", "0"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break
        if line.startswith("MCP server listening on "):
            return process, line.split()[-1]
    process.kill()
    raise RuntimeError("serpent-tk serve did not print its URL")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


# -- the client ----------------------------------------------------------------------------

class Series:
    """One server in one era: an open SDK client and its samples."""

    def __init__(self, url: str, token: str | None, mode: str, tool: str,
                 args: dict[str, Any]) -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60))
        self.client = Client(streamable_http_client(url, http_client=self.http), mode=mode)
        self.tool, self.args = tool, args
        self.samples: list[float] = []

    async def calls(self, count: int, keep: bool = True) -> None:
        for _ in range(count):
            started = time.perf_counter()
            result = await self.client.call_tool(self.tool, self.args)
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"{self.tool} failed: {result.content}")
            if keep:
                self.samples.append(elapsed)


async def prepare_library(url: str, token: str, pictures: list[Path]) -> str:
    """The id of serve's default library, with `pictures` imported into it."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx2.Timeout(30, read=120))
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:  # serve may still be opening it
            listed = await client.call_tool("serpent_library_list_open", {})
            items = (listed.structured_content or {}).get("result", {}).get("items", [])
            if items:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("serve opened no library")
            await asyncio.sleep(0.1)
        library = str(items[0]["libraryId"])
        imported = await client.call_tool("serpent_file_import", {
            "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
        if imported.is_error:
            raise RuntimeError(f"import failed: {imported.content}")
        await quiet(client, library)
        return library


async def quiet(client: Any, library: str) -> None:
    """Wait until the import's background work is over (its previews, then the analysis
    the app queues after it): the bare server has none to compete with the calls timed."""
    async def result(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = await client.call_tool(tool, {"libraryId": library, **args})
        if answer.is_error:
            raise RuntimeError(f"{tool} failed: {answer.content}")
        return dict((answer.structured_content or {}).get("result", {}))

    deadline = time.monotonic() + START_TIMEOUT_S
    analysed = False
    while time.monotonic() < deadline:
        previews = await result("serpent_asset_preview_status", {})
        tasks = (await result("serpent_task_list", {"limit": 500}))["items"]
        analysed = analysed or any(t["kind"] == "analysis" for t in tasks)
        busy = any(t["status"] in ("queued", "running") for t in tasks)
        if (analysed and not busy and previews["making"] is None
                and previews["counts"]["queued"] == 0):
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the library's background work did not end in time")


async def measure_era(mode: str, bare_url: str, serpent_url: str, token: str, library: str,
                      calls: int, warmup: int, rounds: int) -> tuple[list[float], list[float]]:
    bare = Series(bare_url, None, mode, "noop", {})
    ours = Series(serpent_url, token, mode, "serpent_library_change_sequence",
                  {"libraryId": library})
    async with bare.http, bare.client, ours.http, ours.client:
        await bare.calls(warmup, keep=False)
        await ours.calls(warmup, keep=False)
        per_round = max(1, calls // rounds)
        for _ in range(rounds):  # alternate, so a burst of load elsewhere hits both
            await bare.calls(per_round)
            await ours.calls(per_round)
    return bare.samples, ours.samples


def make_pictures(folder: Path, count: int) -> list[Path]:
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"bench-{index:03d}.png"
        Image.new("RGB", (320, 240), ((index * 37) % 256, (index * 91) % 256, 120)).save(path)
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=int(os.environ.get("SERPENT_BENCH_CALLS",
                                                                        400)))
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--bare-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.bare_server is not None:
        serve_bare(options.bare_server)
        return 0

    data = Path(tempfile.mkdtemp(prefix="serpent-bench-"))
    env = {**os.environ, "SERPENT_USER_DATA_PATH": str(data / "user-data")}
    os.environ["SERPENT_USER_DATA_PATH"] = env["SERPENT_USER_DATA_PATH"]
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.paths import app_dirs

    store = CredentialStore(app_dirs().ensure().credentials_file)
    token = store.create("Bench", "auto", "everything")[1]  # change-sequence: not essential
    port = free_port()
    bare_process = subprocess.Popen([sys.executable, __file__, "--bare-server", str(port)],
                                    cwd=ROOT, text=True)
    serpent_process: subprocess.Popen[str] | None = None
    try:
        wait_for_port(port, bare_process)
        bare_url = f"http://127.0.0.1:{port}/mcp"
        serpent_process, serpent_url = start_serpent(env)
        library = asyncio.run(prepare_library(serpent_url, token,
                                              make_pictures(data / "pictures", 20)))
        print(f"{options.calls} calls per series in {options.rounds} alternating rounds, after "
              f"{options.warmup} warm-up calls; Python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        from benchdata import record

        verdicts = []
        for mode, era in ERAS:
            bare, ours = asyncio.run(measure_era(mode, bare_url, serpent_url, token, library,
                                                 options.calls, options.warmup,
                                                 options.rounds))
            b50, b99 = percentile(bare, 0.5), percentile(bare, 0.99)
            s50, s99 = percentile(ours, 0.5), percentile(ours, 0.99)
            verdicts.append(s50 <= TARGET * b50)
            print(f"\n{era}")
            print(f"  bare MCPServer, uvicorn.run, no-op     p50 {b50 * 1e3:7.2f} ms   "
                  f"p99 {b99 * 1e3:7.2f} ms   mean {statistics.mean(bare) * 1e3:7.2f} ms")
            print(f"  serpent-tk serve, change_sequence      p50 {s50 * 1e3:7.2f} ms   "
                  f"p99 {s99 * 1e3:7.2f} ms   mean {statistics.mean(ours) * 1e3:7.2f} ms")
            print(f"  p50 ratio {s50 / b50:5.2f}x ({'meets' if verdicts[-1] else 'MISSES'} the "
                  f"{TARGET}x target)   p99 ratio {s99 / b99:5.2f}x")
            record(f"MCP tool call round trip p50, {era}", s50 * 1000, "ms",
                   baseline=b50 * 1000, target=f"<= {TARGET}x")
            record(f"MCP tool call round trip p99, {era}", s99 * 1000, "ms",
                   baseline=b99 * 1000, target="")
    finally:
        if serpent_process is not None:
            stop(serpent_process)
        stop(bare_process)
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
