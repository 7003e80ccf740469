"""One MCP client of the many-clients studio benchmark: a realistic mix of calls over real
HTTP for a fixed time, every acknowledged write remembered, then checked on any machine.

Runs in the benchmark process (asyncio, one task per client). A client works on assets of its
own (so its last acknowledged write is what must be there afterwards) and on a few assets
every client shares (rated with `expectedVersion`, so conflicts are real and answered
`VERSION_CONFLICT`): searches (text, tag, sort, page), tags added, ratings and renames,
imports of a new small picture, and trashing what it imported.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

SEARCHES: list[dict[str, Any]] = [
    {}, {"sort": "name-asc"}, {"text": "small 01"}, {"tags": ["mix-0"]},
    {"kind": ["image"], "sort": "size-desc"}, {"text": "renamed"}]
# (weight, kind of call): reads are most of what agents do
MIX = [(40, "search"), (15, "tag"), (15, "rate"), (5, "rename"), (10, "shared"),
       (10, "import"), (5, "trash")]


@dataclass
class Written:
    """What one client's acknowledged writes say must be true afterwards."""

    rating: dict[str, int] = field(default_factory=dict)        # own asset -> last rating
    name: dict[str, str] = field(default_factory=dict)          # own asset -> last name
    tags: dict[str, set[str]] = field(default_factory=dict)     # asset -> tags added
    imported: set[str] = field(default_factory=set)             # asset ids, not trashed
    trashed: set[str] = field(default_factory=set)              # asset ids, trashed
    shared: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (version, rating)


@dataclass
class Outcome:
    calls: int = 0
    acknowledged: int = 0  # write calls answered ok
    errors: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    by_tool: dict[str, list[float]] = field(default_factory=dict)  # answered calls' times
    written: Written = field(default_factory=Written)


def http_client(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx2.Timeout(30, read=120))


async def envelope(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.structured_content is not None:
        return dict(result.structured_content)
    texts = [c.text for c in result.content if c.type == "text"]
    return dict(json.loads(texts[-1]))


async def run_client(url: str, token: str, library_id: str, own: list[str],
                     shared: list[str], pictures: list[Path], seconds: float, seed: int
                     ) -> Outcome:
    rng = random.Random(seed)
    out = Outcome()
    kinds = [kind for weight, kind in MIX for _ in range(weight)]
    pictures = list(pictures)
    http = http_client(token)
    async with http, Client(streamable_http_client(url, http_client=http),
                            mode="legacy") as client:
        async def call(tool: str, args: dict[str, Any]) -> dict[str, Any] | None:
            started = time.perf_counter()
            out.calls += 1
            try:
                answer = await envelope(client, f"serpent_{tool}", {"libraryId": library_id,
                                                                    **args})
            except Exception as error:  # the HTTP call itself failed: counted
                out.errors[f"no answer: {type(error).__name__}"] += 1
                return None
            out.latencies.append(time.perf_counter() - started)
            out.by_tool.setdefault(tool, []).append(out.latencies[-1])
            if answer["status"] != "ok":
                out.errors[str(answer["error"]["code"])] += 1
                return None
            result: dict[str, Any] = answer["result"]
            if not tool.endswith(("_search", "_get")):
                out.acknowledged += 1
            return result

        end = time.monotonic() + seconds
        step = 0
        while time.monotonic() < end:
            step += 1
            kind = rng.choice(kinds)
            asset = rng.choice(own)
            if kind == "search":
                await call("asset_search", {**rng.choice(SEARCHES), "limit": 50})
            elif kind == "tag":
                tag = f"mix-{rng.randrange(6)}"
                if await call("asset_tag", {"assetIds": [asset], "tags": [tag]}) is not None:
                    out.written.tags.setdefault(asset, set()).add(tag)
            elif kind == "rate":
                rating = rng.randrange(6)
                if await call("asset_update", {"assetId": asset, "rating": rating}) is not None:
                    out.written.rating[asset] = rating
            elif kind == "rename":
                name = f"renamed {seed}-{step}"
                if await call("asset_update", {"assetId": asset, "name": name}) is not None:
                    out.written.name[asset] = name
            elif kind == "shared":
                await rate_shared(call, out, rng, rng.choice(shared))
            elif kind == "import" and pictures:
                picture = pictures.pop()
                result = await call("file_import", {"sourcePaths": [str(picture)]})
                if result is not None:
                    out.written.imported.update(i["assetId"] for i in result["items"]
                                                if i.get("assetId"))
            elif kind == "trash" and out.written.imported:
                victim = sorted(out.written.imported)[0]
                if await call("asset_trash", {"assetIds": [victim]}) is not None:
                    out.written.imported.discard(victim)
                    out.written.trashed.add(victim)
    return out


async def rate_shared(call: Any, out: Outcome, rng: random.Random, asset: str) -> None:
    """Read a shared asset's version, then rate it from that version (another client may
    have changed it meanwhile: VERSION_CONFLICT, counted with the errors)."""
    got = await call("asset_get", {"assetIds": [asset]})
    if got is None:
        return
    version = int(got["items"][0]["version"])
    rating = rng.randrange(6)
    result = await call("asset_update", {"assetId": asset, "rating": rating,
                                         "expectedVersion": version})
    if result is not None:  # the version it made (the same one when nothing changed)
        made = int(result["items"][0]["version"])
        if made > out.written.shared.get(asset, (0, 0))[0]:
            out.written.shared[asset] = (made, rating)


async def lost_writes(url: str, token: str, library_id: str, outcomes: list[Outcome]
                      ) -> list[str]:
    """Every acknowledged write checked on the machine at `url`; returns what is not there."""
    expected: dict[str, dict[str, Any]] = {}
    for outcome in outcomes:
        w = outcome.written
        for asset, rating in w.rating.items():
            expected.setdefault(asset, {})["rating"] = rating
        for asset, name in w.name.items():
            expected.setdefault(asset, {})["name"] = name
        for asset, tags in w.tags.items():
            expected.setdefault(asset, {}).setdefault("tags", set()).update(tags)
        for asset in w.imported:
            expected.setdefault(asset, {})["trashed"] = False
        for asset in w.trashed:
            expected.setdefault(asset, {})["trashed"] = True
        for asset, (version, rating) in w.shared.items():
            best = expected.setdefault(asset, {}).get("shared", (0, 0))
            if version > best[0]:
                expected[asset]["shared"] = (version, rating)
    lost: list[str] = []
    http = http_client(token)
    async with http, Client(streamable_http_client(url, http_client=http),
                            mode="legacy") as client:
        ids = sorted(expected)
        for start in range(0, len(ids), 100):
            args = {"libraryId": library_id, "assetIds": ids[start:start + 100]}
            found: dict[str, dict[str, Any]] = {}
            while True:  # a long answer comes in parts (docs/mcp.md)
                answer = await envelope(client, "serpent_asset_get", args)
                if answer["status"] != "ok":
                    raise RuntimeError(f"asset.get: {answer['error']}")
                found.update((item["id"], item) for item in answer["result"]["items"])
                if not answer["result"].get("truncated"):
                    break
                args = {**args, "cursor": answer["result"]["nextCursor"]}
            for asset in ids[start:start + 100]:
                lost += _differences(asset, expected[asset], found.get(asset))
    return lost


def _differences(asset: str, want: dict[str, Any], item: dict[str, Any] | None) -> list[str]:
    if item is None:
        return [f"{asset}: gone (acknowledged: {want})"]
    lost = []
    if "rating" in want and item.get("rating") != want["rating"]:
        lost.append(f"{asset}: rating {item.get('rating')} not {want['rating']}")
    if "name" in want and item.get("name") != want["name"]:
        lost.append(f"{asset}: name {item.get('name')!r} not {want['name']!r}")
    missing = want.get("tags", set()) - {_tag_name(t) for t in item.get("tags", [])}
    if missing:
        lost.append(f"{asset}: tags {sorted(missing)} missing")
    if "trashed" in want and bool(item.get("trashed")) != want["trashed"]:
        lost.append(f"{asset}: trashed {item.get('trashed')} not {want['trashed']}")
    if "shared" in want:
        version, rating = want["shared"]
        if int(item.get("version", 0)) < version or (
                int(item.get("version", 0)) == version and item.get("rating") != rating):
            lost.append(f"{asset}: version {item.get('version')} rating {item.get('rating')},"
                        f" acknowledged version {version} rating {rating}")
    return lost


def _tag_name(tag: Any) -> str:
    return str(tag.get("name") if isinstance(tag, dict) else tag)
