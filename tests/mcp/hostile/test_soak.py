"""Soak: several real SDK clients (both protocol eras, their own credentials) write at once for a
while, each keeping a ledger of the writes the server acknowledged.

What must hold: no acknowledged write is lost (every folder, tag, note and collection in the
ledger is in the library afterwards), each client sees the change sequence strictly increase
after each of its writes, the change notifications a handshake-era session hears arrive in
strictly increasing order, and the library's rows equal its files. Memory (RSS of this
process, which runs the server, and of the library's worker) is printed. Short in CI;
`SERPENT_LONG_TESTS=1` runs it for five minutes.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.mcp.conftest import Server, call, connect, create_library, make_images, ok, run

LONG = os.environ.get("SERPENT_LONG_TESTS") == "1"
SOAK_S = 300.0 if LONG else 20.0
CLIENTS = [("Claude Desktop", "legacy"), ("Cursor", "legacy"), ("Codex", "auto"),
           ("VS Code", "auto"), ("Claude Code", "legacy"), ("Gemini", "auto")]


def rss_kib(pid: int | str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass
class Ledger:
    """What the server acknowledged to one client."""

    folders: dict[str, str] = field(default_factory=dict)  # folder id -> name
    tags: set[str] = field(default_factory=set)  # tags added to the client's own asset
    notes: str | None = None  # the last notes written to the client's own asset
    collections: dict[str, str] = field(default_factory=dict)
    sequences: list[int] = field(default_factory=list)
    heard: list[int] = field(default_factory=list)  # change notifications, in arrival order
    writes: int = 0


async def soak_one(client: Client, index: int, library: str, asset: str, ledger: Ledger,
                   until: float) -> None:
    step = 0
    while time.monotonic() < until:
        step += 1
        kind = step % 4
        if kind == 0:
            name = f"c{index}-folder-{step}"
            folder = await ok(client, "serpent_folder_create",
                              {"libraryId": library, "name": name})
            ledger.folders[folder["id"]] = name
        elif kind == 1:
            tag = f"c{index}-tag-{step}"
            await ok(client, "serpent_asset_tag",
                     {"libraryId": library, "assetIds": [asset], "tags": [tag]})
            ledger.tags.add(tag)
        elif kind == 2:
            notes = f"client {index}, step {step}"
            await ok(client, "serpent_asset_update",
                     {"libraryId": library, "assetId": asset, "notes": notes})
            ledger.notes = notes
        else:
            name = f"c{index}-collection-{step}"
            created = await ok(client, "serpent_collection_create",
                               {"libraryId": library, "name": name})
            ledger.collections[created["id"]] = name
        ledger.writes += 1
        sequence = (await ok(client, "serpent_library_change_sequence",
                             {"libraryId": library}))["changeSequence"]
        ledger.sequences.append(sequence)


def check_ledger(ledger: Ledger, asset: dict[str, Any], folders: dict[str, str],
                 collections: dict[str, str]) -> None:
    lost_folders = {k: v for k, v in ledger.folders.items() if folders.get(k) != v}
    lost_collections = {k: v for k, v in ledger.collections.items()
                        if collections.get(k) != v}
    assert not lost_folders and not lost_collections, (lost_folders, lost_collections)
    assert ledger.tags <= set(asset["tags"]), ledger.tags - set(asset["tags"])
    assert ledger.notes is None or asset["notes"] == ledger.notes
    assert all(b > a for a, b in zip(ledger.sequences, ledger.sequences[1:], strict=False)), \
        ledger.sequences
    assert all(b > a for a, b in zip(ledger.heard, ledger.heard[1:], strict=False)), \
        ledger.heard


async def list_all(client: Client, tool: str, library: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        args: dict[str, Any] = {"libraryId": library}
        if cursor:
            args["cursor"] = cursor
        page = await ok(client, tool, args)
        items.extend(page["items"])
        cursor = page.get("nextCursor")
        if not cursor:
            return items


@pytest.mark.timeout(3600 if LONG else 300)
def test_clients_writing_at_once_lose_no_acknowledged_write(server: Server,
                                                           tmp_path: Path) -> None:
    tokens = [server.token(name) for name, _era in CLIENTS]
    ledgers = [Ledger() for _ in CLIENTS]
    rss_before = rss_kib()

    async def scenario() -> dict[str, Any]:
        async with connect(server.url, tokens[0]) as setup:
            library = await create_library(setup, tmp_path / "libraries", "Soak")
            pictures = make_images(tmp_path / "pictures", len(CLIENTS))
            imported = await ok(setup, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            assets = [item["assetId"] for item in imported["items"]]
        worker = server.gateway.host.worker_pid(library)
        worker_before = rss_kib(worker) if worker else 0

        async def one(index: int) -> None:
            name, era = CLIENTS[index]
            ledger = ledgers[index]

            async def heard(params: types.LoggingMessageNotificationParams) -> None:
                data = params.data if isinstance(params.data, dict) else {}
                if data.get("event") == "library.changed":
                    ledger.heard.append(int(data["changeSequence"]))

            options = {"logging_callback": heard} if era == "legacy" else {}
            async with connect(server.url, tokens[index], era, **options) as client:
                await soak_one(client, index, library, assets[index], ledger,
                               time.monotonic() + SOAK_S)

        await asyncio.gather(*(one(i) for i in range(len(CLIENTS))))
        async with connect(server.url, tokens[0]) as check:
            folders = {f["id"]: f["name"]
                       for f in await list_all(check, "serpent_folder_list", library)}
            collections = {c["id"]: c["name"]
                           for c in await list_all(check, "serpent_collection_list", library)}
            got = await ok(check, "serpent_asset_get", {"libraryId": library,
                                                        "assetIds": assets})
            by_id = {a["id"]: a for a in got["items"]}
            for index, ledger in enumerate(ledgers):
                check_ledger(ledger, by_id[assets[index]], folders, collections)
            refreshed = await ok(check, "serpent_library_refresh", {"libraryId": library})
            assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0
            final = await call(check, "serpent_library_change_sequence",
                               {"libraryId": library})
        worker_after = rss_kib(worker) if worker else 0
        return {"final": final["result"]["changeSequence"], "worker": (worker_before,
                                                                        worker_after)}

    outcome = run(scenario()) if SOAK_S < 60 else asyncio.run(scenario())
    writes = sum(ledger.writes for ledger in ledgers)
    assert writes > len(CLIENTS) * 5, writes
    assert outcome["final"] >= writes
    heard = sum(len(ledger.heard) for ledger in ledgers)
    print(f"\nsoak: {len(CLIENTS)} clients, {SOAK_S:.0f} s, {writes} acknowledged writes, none "
          f"lost; {heard} change notifications heard in order; RSS of the server process "
          f"{rss_before // 1024} -> {rss_kib() // 1024} MiB, of the worker "
          f"{outcome['worker'][0] // 1024} -> {outcome['worker'][1] // 1024} MiB")
