"""Benchmark: a studio library (PostgreSQL, docs/studio.md) against a local one (SQLite), in
the same run, through `library.client` (pipe + worker): importing the same small pictures,
and `asset.search` pages of 50; and the live latency between two machines (two library
hosts with their own machine names on one studio library): from a change's commit event on
the machine that made it to the same change's event on the other.

Run: `.venv/bin/python bench/studio/bench_studio.py [--assets 300] [--changes 100]` (apart from
`run_all.py`: it starts a PostgreSQL).
Baselines in the same run: the local library for import and search; for the live latency, a
bare `LISTEN/NOTIFY` round trip between two plain psycopg connections on the same server.
Target (issue 28): live latency p50 <= 300 ms. Needs Debian's PostgreSQL (the test set-up
installs it); the server is started in a temporary folder, as the tests do (tests/postgres).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

import psycopg  # noqa: E402
from benchdata import percentile, record, summary, write_small_images  # noqa: E402

from library.client import LibraryHost  # noqa: E402
from library.events import LibraryChanged  # noqa: E402
from tests.postgres import PostgresServer  # noqa: E402

TIMEOUT = 600


class Seen:
    """When the first event naming each entity arrived, on one machine."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.arrived = threading.Condition()

    def __call__(self, event: object) -> None:
        if isinstance(event, LibraryChanged):
            now = time.perf_counter()
            with self.arrived:
                for entity in event.entity_ids:
                    self.at.setdefault(entity, now)
                self.arrived.notify_all()

    def wait(self, entity: str) -> float:
        with self.arrived:
            if not self.arrived.wait_for(lambda: entity in self.at, TIMEOUT):
                raise TimeoutError(f"no event named {entity}")
            return self.at[entity]


def timed_import(host: LibraryHost, library_id: str, pictures: list[Path]) -> float:
    started = time.perf_counter()
    host.call(library_id, "file.import", {"sourcePaths": [str(p) for p in pictures]}
              ).result(TIMEOUT)
    return time.perf_counter() - started


def search_pages(host: LibraryHost, library_id: str, rounds: int) -> list[float]:
    shapes: list[dict[str, Any]] = [{}, {"sort": "name-asc"}, {"text": "image 01"},
                                    {"kind": ["image"], "sort": "size-desc"}]
    times = []
    for n in range(rounds):
        started = time.perf_counter()
        host.call(library_id, "asset.search", {**shapes[n % len(shapes)], "limit": 50}
                  ).result(TIMEOUT)
        times.append(time.perf_counter() - started)
    return times


def notify_round_trips(uri: str, count: int) -> list[float]:
    """The baseline: NOTIFY committed on one plain connection, received on another."""
    times = []
    with psycopg.connect(uri, autocommit=True) as listener, \
            psycopg.connect(uri, autocommit=True) as sender:
        listener.execute("LISTEN bench")
        for n in range(count):
            started = time.perf_counter()
            sender.execute("SELECT pg_notify('bench', %s)", (str(n),))
            for _ in listener.notifies(timeout=10, stop_after=1):
                pass
            times.append(time.perf_counter() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assets", type=int, default=300, help="pictures imported")
    parser.add_argument("--changes", type=int, default=100, help="changes timed live")
    parser.add_argument("--rounds", type=int, default=100, help="search pages timed")
    options = parser.parse_args()
    server = PostgresServer.start()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-studio-"))
    alpha_seen, beta_seen = Seen(), Seen()
    alpha = LibraryHost(on_event=alpha_seen, machine="alpha")
    beta = LibraryHost(on_event=beta_seen, machine="beta")
    try:
        pictures, _ = write_small_images(work / "pictures", options.assets)
        local = alpha.create(work, "Local").result(TIMEOUT)
        (work / "shared").mkdir()
        database = server.new_database("bench")
        studio = alpha.create(work / "shared", "Studio", database=database).result(TIMEOUT)
        beta.open(studio["path"]).result(TIMEOUT)
        local_import = timed_import(alpha, local["libraryId"], pictures)
        studio_import = timed_import(alpha, studio["libraryId"], pictures)
        print(f"import of {options.assets} small pictures: studio {studio_import:.2f} s, "
              f"local {local_import:.2f} s (baseline): x{studio_import / local_import:.2f}")
        record("studio import", studio_import, "s", baseline=local_import,
               note=f"{options.assets} small PNGs, local library as baseline")
        search_pages(alpha, studio["libraryId"], 5)  # warm both
        search_pages(alpha, local["libraryId"], 5)
        studio_pages = search_pages(alpha, studio["libraryId"], options.rounds)
        local_pages = search_pages(alpha, local["libraryId"], options.rounds)
        ratio = percentile(studio_pages, 50) / percentile(local_pages, 50)
        print(f"asset.search page of 50 on {options.assets} assets: studio "
              f"{summary(studio_pages)}; local {summary(local_pages)} (baseline): p50 x{ratio:.2f}")
        record("studio search page p50", percentile(studio_pages, 50), "s",
               baseline=percentile(local_pages, 50))

        latencies, after_own = [], []
        library_id = studio["libraryId"]
        for n in range(options.changes):
            sent = time.perf_counter()
            made = alpha.call(library_id, "folder.create", {"name": f"Live {n:03d}"}
                              ).result(TIMEOUT)
            there = beta_seen.wait(made["id"])
            latencies.append(there - sent)  # the whole write included: an upper bound
            after_own.append(there - alpha_seen.wait(made["id"]))
        bare = notify_round_trips(server.uri(database.rsplit("/", 1)[1]), 200)
        print(f"live latency, machine to machine, {options.changes} changes, from the call "
              f"sent on one to the event on the other (the write included): "
              f"{summary(latencies)}; after the maker's own event: {summary(after_own)}; "
              f"bare LISTEN/NOTIFY (baseline): {summary(bare)}; "
              f"p50 x{percentile(latencies, 50) / percentile(bare, 50):.1f} (target p50 <= 300 ms)")
        record("studio live latency p50", percentile(latencies, 50), "s",
               baseline=percentile(bare, 50), target="<= 300 ms")
        record("studio live latency p99", percentile(latencies, 99), "s",
               baseline=percentile(bare, 99))
    finally:
        alpha.shutdown()
        beta.shutdown()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)  # its libraries and pictures, in /tmp
    return 0


if __name__ == "__main__":
    sys.exit(main())
