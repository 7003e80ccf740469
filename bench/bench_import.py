"""Benchmark: importing 2,000 generated 1-2 MP images (JPEG and PNG) through `library.client`
against a plain loop that copies and hashes the same files, measured in the same run.

Run: `.venv/bin/python bench/bench_import.py [--count 2000] [--dir /tmp/somewhere]`;
`--small` imports small files instead (4x4 PNGs of ~80 bytes, default 300 of them), where
the per-file overhead shows (target: <= 1.5x the plain loop, never over the fsync loop).
Prints the times and the ratios (target: Serpent <= 1.3x the plain copy+hash loop). The
plain loop is shown twice: without fsync (the target's baseline) and with an fsync per file
(what a crash-safe store must pay at least). The phases run in interleaved rounds
(`--rounds`, default 2) and the best time of each counts, which damps the noise of a shared
machine's disk and CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdata import record, write_images, write_small_images  # noqa: E402

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


def serpent_import(folder: Path, parent: Path) -> tuple[float, dict]:
    host = LibraryHost()
    try:
        ref = host.create(parent, "Bench").result(60)
        # the worker answers once it serves (its commands loaded): the import is measured
        # on an open library, not the worker's start (bench_ui and growth measure that)
        host.call(ref["libraryId"], "library.change-sequence", {}).result(60)
        settle()
        started = time.perf_counter()
        result = host.call(ref["libraryId"], "file.import",
                           {"sourcePaths": [str(folder)]}).result(3600)
        elapsed = time.perf_counter() - started
    finally:
        host.shutdown()
    return elapsed, result


def settle() -> None:
    os.sync()  # each phase starts without the previous one's dirty pages
    time.sleep(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--small", action="store_true", help="small files (per-file cost)")
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=2)
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

        times: dict[str, list[float]] = {"plain": [], "fsync": [], "serpent": []}
        for round_number in range(args.rounds):
            settle()
            times["plain"].append(plain_copy(paths, work / "plain", fsync=False))
            shutil.rmtree(work / "plain")
            settle()
            times["fsync"].append(plain_copy(paths, work / "plain-fsync", fsync=True))
            shutil.rmtree(work / "plain-fsync")
            settle()
            libraries = work / f"libraries-{round_number}"
            libraries.mkdir()
            elapsed, result = serpent_import(work / "sources", libraries)
            assert result["imported"] == args.count, result
            times["serpent"].append(elapsed)
            shutil.rmtree(libraries)
            print(f"round {round_number + 1}: plain {times['plain'][-1]:.2f} s, plain+fsync "
                  f"{times['fsync'][-1]:.2f} s, serpent {elapsed:.2f} s", flush=True)
        baseline, baseline_fsync, serpent = (min(times["plain"]), min(times["fsync"]),
                                             min(times["serpent"]))

        mb = total / 1e6
        print(f"plain copy+hash loop          {baseline:7.2f} s  ({mb / baseline:6.0f} MB/s)")
        print(f"plain copy+hash + fsync/file  {baseline_fsync:7.2f} s  "
              f"({mb / baseline_fsync:6.0f} MB/s)")
        print(f"serpent file.import           {serpent:7.2f} s  ({mb / serpent:6.0f} MB/s)")
        target = 1.5 if args.small else 1.3
        print(f"ratio serpent / plain loop          {serpent / baseline:5.2f}x  "
              f"(target <= {target:.2f}x)")
        print(f"ratio serpent / plain loop + fsync  {serpent / baseline_fsync:5.2f}x")
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
