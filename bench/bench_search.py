"""Benchmark: `asset.search` pages of 50 on a generated 100,000-asset library with 2,000 tags,
through `library.client` (pipe + worker + validation) against the same raw SQL on the same
file, measured in the same run.

Run: `.venv/bin/python bench/bench_search.py [--assets 100000] [--tags 2000] [--queries 400]`.
Targets: p50 within 2 ms of the raw SQL, p99 under 20 ms. Free text (searched as you type)
runs through the trigram index and is shown against the LIKE scan it replaced, same run.
The library is made with the real worker (schema, identity), then filled with direct SQL
(fast; the text index fills through its triggers), and reopened cleanly.
The raw side always counts its total (a cold cache); the worker counts a filtered total once
per filter and change sequence, so repeated filters (rating, ext) are cheaper through the
client, while random tags (the "one tag" shape) nearly always miss that cache.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdata import percentile, record, summary  # noqa: E402

from library.client import LibraryHost  # noqa: E402
from library.worker.rows.tagfold import fold  # noqa: E402

WORDS = ["sky", "sunset", "forest", "portrait", "city", "night", "river", "mountain", "studio",
         "texture", "concept", "sketch", "neon", "rain", "desert", "ocean", "flower", "robot",
         "castle", "dragon"]
SUMMARY = ("a.id, a.name, a.ext, a.kind, a.size, a.width, a.height, a.rating, a.version, "
           "a.added_at, a.trashed, a.missing")


def fill(db_path: Path, assets: int, tags: int, seed: int = 7) -> list[str]:
    """Insert `assets` assets carrying 0-6 of `tags` tags; returns the tag names."""
    rng = random.Random(seed)
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    actor = json.dumps({"source": "system", "credential": None, "label": "Bench"})
    tag_names = [f"{rng.choice(WORDS)}-{n:04d}" for n in range(tags)]
    start = datetime(2024, 1, 1, tzinfo=UTC)
    conn.execute("BEGIN")
    # `folded` is how the library finds a tag by name (`rows.tagfold`): a tag without it
    # is not found, and a search by it matches nothing
    conn.executemany("INSERT INTO tags (id, name, folded, created_at) VALUES (?, ?, ?, ?)",
                     [(n + 1, name, fold(name), "2024-01-01T00:00:00.000000Z")
                      for n, name in enumerate(tag_names)])
    rows, links = [], []
    for n in range(assets):
        asset_id = f"ast_{n:010d}{rng.getrandbits(40):010x}"
        name = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {n}"
        ext = rng.choice(("jpg", "png", "png", "jpg", "webp", "psd"))
        added = (start + timedelta(seconds=n * 37 + rng.randrange(30))).strftime(
            "%Y-%m-%dT%H:%M:%S.%fZ")
        chosen = rng.sample(range(tags), rng.choice((0, 1, 2, 3, 3, 4, 6)))
        text = " ".join([name, f"{name}.{ext}", "", ""] + [tag_names[t] for t in chosen])
        rows.append((asset_id, name, f"{name}.{ext}", ext, "image", "image/" + ext, None,
                     rng.randrange(50_000, 5_000_000), 1600, 1200, f"{n:064x}",
                     rng.randrange(6), added, added, actor, actor, text.casefold()))
        links += [(asset_id, t + 1) for t in chosen]
    conn.executemany("INSERT INTO assets (id, name, original_name, ext, kind, mime, format, "
                     "size, width, height, sha256, rating, added_at, modified_at, added_by, "
                     "modified_by, search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                     "?, ?, ?, ?)", rows)
    conn.executemany("INSERT INTO asset_tags (asset_id, tag_id) VALUES (?, ?)", links)
    conn.execute("UPDATE library_state SET clean_shutdown = 1")
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return tag_names


def raw_page(conn: sqlite3.Connection, where: str, params: list, order: str, limit: int = 50
             ) -> list[tuple]:
    """The worker's statements for one page on a cold count cache: rows, total (from the
    trigger-kept counter when unfiltered, else counted), and the rows' tags and folders."""
    rows = conn.execute(f"SELECT {SUMMARY} FROM assets a WHERE {where} ORDER BY {order} "
                        f"LIMIT ? OFFSET 0", (*params, limit + 1)).fetchall()
    if where == "a.trashed = ?":
        conn.execute("SELECT n FROM asset_counts WHERE trashed = ?", params).fetchone()
    else:
        conn.execute(f"SELECT count(*) FROM assets a WHERE {where}", params).fetchone()
    ids = [r[0] for r in rows[:limit]]
    marks = ",".join("?" * len(ids))
    conn.execute(f"SELECT at.asset_id, t.name FROM asset_tags at JOIN tags t ON t.id = "
                 f"at.tag_id WHERE at.asset_id IN ({marks}) ORDER BY t.name COLLATE NOCASE",
                 ids).fetchall()
    conn.execute(f"SELECT asset_id, folder_id FROM asset_folders WHERE asset_id IN ({marks}) "
                 f"ORDER BY folder_id", ids).fetchall()
    return rows


def queries(tag_names: list[str], tag_ids: dict[str, int], count: int, seed: int = 3):
    """(client args, raw where, raw params, raw order) for a mix of grid-like page requests."""
    rng = random.Random(seed)
    order_added = "a.added_at DESC, a.rowid DESC"
    for n in range(count):
        shape = n % 4
        if shape == 0:  # the grid's first page
            yield "first page", {"limit": 50}, "a.trashed = ?", [0], order_added
        elif shape == 1:  # one tag
            tag = rng.choice(tag_names)
            yield ("one tag", {"limit": 50, "tags": [tag]},
                   "a.trashed = ? AND a.id IN (SELECT asset_id FROM asset_tags WHERE tag_id = ?)",
                   [0, tag_ids[tag]], order_added)
        elif shape == 2:  # a rating filter, sorted by name
            low = rng.randrange(1, 5)
            yield ("rating, by name", {"limit": 50, "ratingMin": low, "sort": "name-asc"},
                   "a.trashed = ? AND a.rating >= ?", [0, low],
                   "a.name COLLATE NOCASE ASC, a.rowid ASC")
        else:  # an extension filter
            ext = rng.choice(("psd", "webp"))
            yield ("ext", {"limit": 50, "ext": [ext]}, "a.trashed = ? AND a.ext IN (?)",
                   [0, ext], order_added)


def text_queries(tag_names: list[str], assets: int, seed: int = 5):
    """(label, text) for a search box searched as you type: every prefix of a few words
    (1-2 characters fall back to the scan), rare numbers and tags, two-word searches."""
    rng = random.Random(seed)
    for word in WORDS[:8]:
        for end in range(1, len(word) + 1):
            label = "text, 1-2 chars" if end < 3 else "text, common word"
            yield label, word[:end]
    for _ in range(16):
        yield "text, rare", rng.choice((f"{rng.randrange(assets)}", rng.choice(tag_names)))
    for _ in range(8):
        yield "text, two words", f"{rng.choice(WORDS)} {rng.choice(WORDS)[:4]}"


def like_page(conn: sqlite3.Connection, text: str) -> list[tuple]:
    """The same page by the LIKE scan free text used before the index (a cold count)."""
    words = text.casefold().split()
    where = " AND ".join(["a.trashed = ?"] + ["a.search_text LIKE ? ESCAPE '\\'"] * len(words))
    return raw_page(conn, where, [0, *(f"%{w}%" for w in words)], "a.added_at DESC, a.rowid DESC")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--assets", type=int, default=100_000)
    parser.add_argument("--tags", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=400)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serpent-bench-search-"))
    host = LibraryHost()
    try:
        ref = host.create(work, "Big").result(60)
        host.close(ref["libraryId"]).result(60)
        db_path = Path(ref["path"]) / "library.sqlite"
        started = time.perf_counter()
        tag_names = fill(db_path, args.assets, args.tags)
        print(f"generated {args.assets} assets, {args.tags} tags in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        library_id = host.open(ref["path"]).result(120)["libraryId"]
        raw = sqlite3.connect(db_path)
        raw.execute("PRAGMA query_only = ON")
        tag_ids = dict(raw.execute("SELECT name, id FROM tags").fetchall())
        plan = list(queries(tag_names, tag_ids, args.queries))
        for _label, client_args, where, params, order in plan[:20]:  # warm both caches
            host.call(library_id, "asset.search", client_args).result(60)
            raw_page(raw, where, params, order)
        client_times: dict[str, list[float]] = {}
        raw_times: dict[str, list[float]] = {}
        for label, client_args, where, params, order in plan:  # interleaved, same load
            t0 = time.perf_counter()
            result = host.call(library_id, "asset.search", client_args).result(60)
            t1 = time.perf_counter()
            rows = raw_page(raw, where, params, order)
            t2 = time.perf_counter()
            assert [i["id"] for i in result["items"]] == [r[0] for r in rows[:50]], label
            client_times.setdefault(label, []).append(t1 - t0)
            raw_times.setdefault(label, []).append(t2 - t1)
        text_client: dict[str, list[float]] = {}
        text_raw: dict[str, list[float]] = {}
        for label, text in text_queries(tag_names, args.assets):
            t0 = time.perf_counter()
            result = host.call(library_id, "asset.search", {"text": text, "limit": 50}
                               ).result(60)
            t1 = time.perf_counter()
            rows = like_page(raw, text)
            text_raw.setdefault(label, []).append(time.perf_counter() - t1)
            text_client.setdefault(label, []).append(t1 - t0)
            assert [i["id"] for i in result["items"]] == [r[0] for r in rows[:50]], text
        raw.close()

        all_client = [t for ts in client_times.values() for t in ts]
        all_raw = [t for ts in raw_times.values() for t in ts]
        for label in client_times:
            print(f"{label:18s} client {summary(client_times[label])}")
            print(f"{'':18s} raw    {summary(raw_times[label])}")
        for label in text_client:
            print(f"{label:18s} client {summary(text_client[label])}")
            ratio = percentile(text_client[label], 50) / percentile(text_raw[label], 50)
            print(f"{'':18s} LIKE   {summary(text_raw[label])}  (the scan it replaces; "
                  f"p50 ratio {ratio:.2f}x)")
        all_text = [t for label, ts in text_client.items() if label != "text, 1-2 chars"
                    for t in ts]
        print(f"free text 3+ chars client p50 {percentile(all_text, 50) * 1000:.2f} ms, "
              f"p99 {percentile(all_text, 99) * 1000:.2f} ms")
        p50_gap = (percentile(all_client, 50) - percentile(all_raw, 50)) * 1000
        p99 = percentile(all_client, 99) * 1000
        print(f"ALL page queries   client {summary(all_client)}")
        print(f"                   raw    {summary(all_raw)}")
        print(f"p50 client - raw = {p50_gap:.2f} ms (target <= 2 ms); "
              f"ratio p50 {percentile(all_client, 50) / percentile(all_raw, 50):.2f}x; "
              f"client p99 = {p99:.2f} ms (target < 20 ms)")
        record(f"search page p50 ({args.assets:,} assets)", percentile(all_client, 50) * 1000,
               "ms", baseline=percentile(all_raw, 50) * 1000, target="<= raw + 2 ms")
        record(f"search page p99 ({args.assets:,} assets)", p99, "ms",
               baseline=percentile(all_raw, 99) * 1000, target="< 20 ms")
    finally:
        host.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
