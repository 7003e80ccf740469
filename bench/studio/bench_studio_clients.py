"""Benchmark: 8 MCP clients across two machines on one studio library for 60 s, against the
same 8 clients on one machine with a local library, in the same run.

Run: `.venv/bin/python bench/studio/bench_studio_clients.py [--seconds 60] [--clients 8]`
(apart from `run_all.py`: it starts a PostgreSQL and `serve` processes). About 3 minutes.
Each machine is a `serpent-tk serve --port 0` process with its own user data folder
(tests/e2e/studio_machines.py); the studio run has two, half the clients on each, over real
HTTP (streamable HTTP, a bearer credential). Every client runs `mcp_mix`'s mix (searches,
tags, ratings, renames, conflicting ratings of shared assets, imports, trash) on a library
seeded with 100 small pictures. Printed for each run: calls, errors by code (the shared
assets' `VERSION_CONFLICT` is expected), p50/p99 latency, and lost writes: every acknowledged
write checked afterwards (on both machines in the studio run); must be 0. Baseline in the
same run: one machine, one local (SQLite) library, the same clients and mix (run first).
The PostgreSQL is local (loopback, fsync on), so a real studio's network is not in it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

import mcp_mix  # noqa: E402
import studio_setup  # noqa: E402
from benchdata import percentile, record, tiny_png  # noqa: E402

from tests.e2e.studio_machines import Machine, machine  # noqa: E402

SEED = 100
SHARED = 4
IMPORTS_PER_CLIENT = 400


def pictures(folder: Path, first: int, count: int) -> list[Path]:
    """`count` distinct tiny PNGs numbered from `first`."""
    folder.mkdir(parents=True)
    paths = []
    for n in range(first, first + count):
        path = folder / f"small_{n:06d}.png"
        path.write_bytes(tiny_png(n))
        paths.append(path)
    return paths


async def one_run(machines: list[Machine], work: Path, clients: int, seconds: float,
                  database: str | None) -> dict[str, Any]:
    first = machines[0]
    async with _session(first) as client:
        made = await _ok(client, "serpent_library_create", {
            "selectedParentPath": str(work), "name": "Mix",
            **({"database": database} if database else {})})
        library = made["libraryId"]
        seeded = await _ok(client, "serpent_file_import", {
            "libraryId": library, "sourcePaths": [str(work / "seed")]})
    for other in machines[1:]:
        async with _session(other) as client:
            await _ok(client, "serpent_library_open", {"path": made["path"]})
    ids = sorted(i["assetId"] for i in seeded["items"] if i.get("assetId"))
    shared, rest = ids[:SHARED], ids[SHARED:]
    outcomes = await asyncio.gather(*[
        mcp_mix.run_client(machines[n % len(machines)].url, machines[n % len(machines)].token,
                           library, rest[n::clients], shared,
                           sorted((work / f"imports-{n}").iterdir()), seconds, seed=n)
        for n in range(clients)])
    lost = {m.name: await mcp_mix.lost_writes(m.url, m.token, library, list(outcomes))
            for m in machines}
    errors: Counter[str] = Counter()
    for outcome in outcomes:
        errors.update(outcome.errors)
    latencies = [t for outcome in outcomes for t in outcome.latencies]
    writes = sum(o.acknowledged for o in outcomes)
    return {"calls": sum(o.calls for o in outcomes), "errors": errors, "lost": lost,
            "latencies": latencies, "checked": writes,
            "by_tool": {tool: [t for o in outcomes for t in o.by_tool.get(tool, [])]
                        for tool in sorted({k for o in outcomes for k in o.by_tool})}}


@asynccontextmanager
async def _session(m: Machine) -> AsyncIterator[Any]:
    """An MCP session with one machine, for the set-up calls."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = mcp_mix.http_client(m.token)
    async with http, Client(streamable_http_client(m.url, http_client=http),
                            mode="legacy") as client:
        yield client


async def _ok(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    answer = await mcp_mix.envelope(client, tool, args)
    if answer["status"] != "ok":
        raise RuntimeError(f"{tool}: {answer['error']}")
    result: dict[str, Any] = answer["result"]
    return result


def report(label: str, run: dict[str, Any], seconds: float) -> None:
    lost = "; ".join(f"{name} {len(found)}" for name, found in run["lost"].items())
    errors = ", ".join(f"{code} {n}" for code, n in sorted(run["errors"].items())) or "none"
    print(f"{label}: {run['calls']:,} calls ({run['calls'] / seconds:.1f}/s), "
          f"p50 {percentile(run['latencies'], 50) * 1000:.1f} ms, "
          f"p99 {percentile(run['latencies'], 99) * 1000:.1f} ms; errors: {errors}; "
          f"{run['checked']:,} acknowledged writes checked, lost: {lost}")
    print("  per tool, p50 / p99 ms (calls): " + "; ".join(
        f"{tool} {percentile(times, 50) * 1000:.0f} / {percentile(times, 99) * 1000:.0f}"
        f" ({len(times)})" for tool, times in run["by_tool"].items()))
    for name, found in run["lost"].items():
        for line in found[:10]:
            print(f"  lost on {name}: {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="how long the clients run")
    parser.add_argument("--clients", type=int, default=8, help="clients (half on each machine)")
    options = parser.parse_args()
    print("load average at the start: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    # a session closed while a change notification is on its way logs the message it could
    # not deliver (anyio.ClosedResourceError): harmless for the figures, and hundreds of lines
    logging.getLogger("mcp.client.streamable_http").setLevel(logging.CRITICAL)
    root = Path(tempfile.mkdtemp(prefix="serpent-bench-studio-clients-"))
    server = studio_setup.durable_server()
    runs: dict[str, dict[str, Any]] = {}
    try:
        for label, database in (("one machine, local library", None),
                                ("two machines, studio library",
                                 server.new_database("clients"))):
            work = root / ("studio" if database else "local")
            pictures(work / "seed", 0, SEED)
            for n in range(options.clients):
                pictures(work / f"imports-{n}", SEED + n * IMPORTS_PER_CLIENT,
                         IMPORTS_PER_CLIENT)
            names = ["anna", "ben"] if database else ["solo"]
            with ExitStack() as stack:
                machines = [stack.enter_context(machine(work, name)) for name in names]
                runs[label] = asyncio.run(one_run(machines, work, options.clients,
                                                  options.seconds, database))
            report(label, runs[label], options.seconds)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    local, studio = runs["one machine, local library"], runs["two machines, studio library"]
    lost = sum(len(found) for found in studio["lost"].values())
    print(f"calls: studio {studio['calls']:,} against local {local['calls']:,} (baseline): "
          f"x{studio['calls'] / local['calls']:.2f}; lost writes {lost} (must be 0)")
    for pct in (50, 99):
        value = percentile(studio["latencies"], pct) * 1000
        base = percentile(local["latencies"], pct) * 1000
        record(f"studio {options.clients} clients on two machines, call p{pct}", value, "ms",
               baseline=base, note="the same clients on one machine with a local library")
    record(f"studio {options.clients} clients on two machines, calls in "
           f"{options.seconds:.0f} s", studio["calls"], "calls", baseline=local["calls"])
    record("studio clients on two machines, lost writes", lost, "writes", target="0")
    print("load average at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    return 1 if lost or any(local["lost"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
