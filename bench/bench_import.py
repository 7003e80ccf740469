"""Benchmark: importing 2,000 generated 1-2 MP images (JPEG and PNG) through `library.client`
against a plain loop that copies and hashes the same files, measured in the same run.

Run: `.venv/bin/python bench/bench_import.py [--count 2000] [--dir /tmp/somewhere]`;
`--small` imports small files instead (4x4 PNGs of ~80 bytes, default 300 of them), where
the per-file overhead shows (target: <= 1.5x the plain loop, never over the fsync loop).
Prints the times and the ratios (target: Serpent <= 1.3x the plain copy+hash loop). The
plain loop is shown twice: without fsync (the target's baseline) and with an fsync per file
(what a crash-safe store must pay at least). The phases run in interleaved rounds
(`--rounds`, default 2) and the best time of each counts, which damps the noise of a shared
machine's disk and CPU. `--mcp` adds a phase importing the same files through MCP: one
`serpent_file_import` call over HTTP to `serpent-tk serve` (its own process, an auto-mode
credential, a new library per round), to show what the MCP path adds to the import itself.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdata import record, settle, write_images, write_small_images  # noqa: E402

from library.client import LibraryHost  # noqa: E402

CHUNK = 1024 * 1024


def plain_copy(paths: list[Path], target: Path, *, fsync: bool) -> float:
    target.mkdir(parents=True)
    started = time.perf_counter()
    for path in paths:
        digest = hashlib.sha256()
        temp = target / (path.name + ".part")
        with open(path, "rb") as reader, open(temp, "wb") as writer:
            while chunk := reader.read(CHUNK):
                digest.update(chunk)
                writer.write(chunk)
            if fsync:
                writer.flush()
                os.fsync(writer.fileno())
        os.replace(temp, target / f"{digest.hexdigest()}{path.suffix}")
    return time.perf_counter() - started


class OpenLibrary:
    """A new library whose worker serves (its commands loaded) before the clock starts: the
    import is measured on an open library, not the worker's start (bench_ui and growth
    measure that)."""

    def __init__(self, parent: Path) -> None:
        self.host = LibraryHost()
        self.library_id = self.host.create(parent, "Bench").result(60)["libraryId"]
        self.host.call(self.library_id, "library.change-sequence", {}).result(60)

    def timed_import(self, folder: Path) -> tuple[float, dict]:
        started = time.perf_counter()
        result = self.host.call(self.library_id, "file.import",
                                {"sourcePaths": [str(folder)]}).result(3600)
        return time.perf_counter() - started, result

    def close(self) -> None:
        self.host.shutdown()


class OverMcp:
    """`serpent-tk serve` in its own process and an SDK client over Streamable HTTP."""

    def __init__(self, work: Path) -> None:
        from bench_mcp_roundtrip import start_serpent

        self.env = {**os.environ, "SERPENT_USER_DATA_PATH": str(work / "mcp-user-data")}
        saved = os.environ.get("SERPENT_USER_DATA_PATH")
        os.environ["SERPENT_USER_DATA_PATH"] = self.env["SERPENT_USER_DATA_PATH"]
        try:
            from serpent_tk.credentials import CredentialStore
            from serpent_tk.paths import app_dirs

            store = CredentialStore(app_dirs().ensure().credentials_file)
            self.token = store.create("Bench", "auto", "everything")[1]
        finally:
            if saved is None:
                os.environ.pop("SERPENT_USER_DATA_PATH", None)
            else:
                os.environ["SERPENT_USER_DATA_PATH"] = saved
        self.process, self.url = start_serpent(self.env)

    def stop(self) -> None:
        from bench_mcp_roundtrip import stop

        stop(self.process)

    def import_once(self, folder: Path, parent: Path, name: str,
                    before_clock: Callable[[], None]) -> tuple[float, dict]:
        """A new library over MCP, then `before_clock` (the phase before's files removed,
        the settle), then the timed import."""
        import asyncio

        return asyncio.run(self._import(folder, parent, name, before_clock))

    async def _import(self, folder: Path, parent: Path, name: str,
                      before_clock: Callable[[], None]) -> tuple[float, dict]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"},
                                  timeout=httpx2.Timeout(60, read=3600))
        async with http, Client(streamable_http_client(self.url, http_client=http)) as client:
            async def call(tool: str, args: dict) -> dict:
                result = await client.call_tool(tool, args)
                if result.is_error:
                    raise RuntimeError(f"{tool} failed: {result.content}")
                return dict((result.structured_content or {}).get("result", {}))
            made = await call("serpent_library_create", {"selectedParentPath": str(parent),
                                                         "name": name})
            library = str(made["libraryId"])
            await call("serpent_library_change_sequence", {"libraryId": library})
            before_clock()
            started = time.perf_counter()
            result = await call("serpent_file_import", {"libraryId": library,
                                                        "sourcePaths": [str(folder)]})
            elapsed = time.perf_counter() - started
            await call("serpent_library_close", {"libraryId": library})
        return elapsed, result


def removed_then_settled(folder: Path) -> None:
    shutil.rmtree(folder)
    settle()


def rounds(args: argparse.Namespace, paths: list[Path], work: Path,
           times: dict[str, list[float]], mcp: OverMcp | None) -> None:
    """The phases in interleaved rounds: plain loop, loop with fsync, Serpent (and MCP)."""
    for round_number in range(args.rounds):
        settle()
        times["plain"].append(plain_copy(paths, work / "plain", fsync=False))
        shutil.rmtree(work / "plain")
        settle()
        times["fsync"].append(plain_copy(paths, work / "plain-fsync", fsync=True))
        libraries = work / f"libraries-{round_number}"
        libraries.mkdir()
        # the worker is up before the files of the phase before are removed, as the loops'
        # process is: its start would otherwise use up the memory that removal frees, and
        # on a host that takes freed memory back, new page-cache pages cost ~50x recycled
        # ones (bench/README.md)
        library = OpenLibrary(libraries)
        try:
            shutil.rmtree(work / "plain-fsync")
            settle()
            elapsed, result = library.timed_import(work / "sources")
        finally:
            library.close()
        assert result["imported"] == args.count, result
        times["serpent"].append(elapsed)
        over_mcp = ""
        if mcp is None:
            shutil.rmtree(libraries)
        else:
            over = work / f"libraries-mcp-{round_number}"
            over.mkdir()
            elapsed_mcp, result = mcp.import_once(work / "sources", over, f"Bench {round_number}",
                                                  partial(removed_then_settled, libraries))
            assert result["imported"] == args.count, result
            times["mcp"].append(elapsed_mcp)
            shutil.rmtree(over)
            over_mcp = f", over MCP {elapsed_mcp:.3f} s"
        print(f"round {round_number + 1}: plain {times['plain'][-1]:.3f} s, plain+fsync "
              f"{times['fsync'][-1]:.3f} s, serpent {elapsed:.3f} s{over_mcp}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--small", action="store_true", help="small files (per-file cost)")
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--mcp", action="store_true", help="also import over MCP HTTP")
    args = parser.parse_args()
    args.count = args.count or (300 if args.small else 2000)
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-import-", dir=args.dir))
    try:
        print(f"generating {args.count} images in {work} ...", flush=True)
        paths, total = (write_small_images if args.small else write_images)(
            work / "sources", args.count)
        for path in paths:  # warm the page cache for every phase alike
            path.read_bytes()
        print(f"{args.count} files, {total / 1e6:.0f} MB", flush=True)

        times: dict[str, list[float]] = {"plain": [], "fsync": [], "serpent": [], "mcp": []}
        mcp = OverMcp(work) if args.mcp else None
        try:
            rounds(args, paths, work, times, mcp)
        finally:
            if mcp is not None:
                mcp.stop()
        baseline, baseline_fsync, serpent = (min(times["plain"]), min(times["fsync"]),
                                             min(times["serpent"]))

        mb = total / 1e6
        print(f"plain copy+hash loop          {baseline:7.3f} s  ({mb / baseline:6.0f} MB/s)")
        print(f"plain copy+hash + fsync/file  {baseline_fsync:7.3f} s  "
              f"({mb / baseline_fsync:6.0f} MB/s)")
        print(f"serpent file.import           {serpent:7.3f} s  ({mb / serpent:6.0f} MB/s)")
        target = 1.5 if args.small else 1.3
        print(f"ratio serpent / plain loop          {serpent / baseline:5.2f}x  "
              f"(target <= {target:.2f}x)")
        print(f"ratio serpent / plain loop + fsync  {serpent / baseline_fsync:5.2f}x")
        if times["mcp"]:
            over = min(times["mcp"])
            print(f"serpent_file_import over MCP  {over:7.2f} s  ({over / serpent:5.2f}x the "
                  f"library.client call, +{(over - serpent) * 1000:.0f} ms; "
                  f"{over / baseline:5.2f}x the plain loop)")
            record(f"import {args.count} files over MCP vs library.client", over, "s",
                   baseline=serpent, target="")
        what = f"{args.count} {'small files' if args.small else 'images'}"
        record(f"import {what}", serpent, "s", baseline=baseline,
               target=f"<= {target:.1f}x plain copy+hash")
        record(f"import {what} vs fsync loop", serpent, "s", baseline=baseline_fsync,
               target="<= 1.0x plain copy+hash+fsync")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
