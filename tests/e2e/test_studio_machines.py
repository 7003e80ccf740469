"""Two Serpents as two machines on one studio library, over MCP (tests/e2e/studio_machines.py):
what one does, the other sees live (imports, tags, moves, trash, undo); edits that conflict
get VERSION_CONFLICT; a worker killed mid-import stops nobody else, and its import, sent
again to the restarted worker, ends with every file imported once; the database stopped
mid-import gives the stable code and no half-applied change, and both machines carry on
once it is back."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from mcp import Client

from tests.e2e.studio_machines import Machine, machine
from tests.mcp.conftest import call, connect, error_code, make_images, ok, run
from tests.mcp.test_notifications import Inbox
from tests.postgres import PostgresServer
from tests.waiting import async_wait_until, wait_until

pytestmark = pytest.mark.timeout(600)
WAIT_S = 60.0


async def changes_seen(inbox: Inbox, library_id: str, sequence: int) -> None:
    """Wait until `inbox` heard `library.changed` for `library_id` up to `sequence`."""
    await inbox.wait_for(lambda: any(e["libraryId"] == library_id
                                     and e["changeSequence"] >= sequence
                                     for e in inbox.library_events()))


async def sequence_of(client: Client, library_id: str) -> int:
    return int((await ok(client, "serpent_library_change_sequence",
                         {"libraryId": library_id}))["changeSequence"])


async def search(client: Client, library_id: str, **filters: Any) -> dict[str, Any]:
    return await ok(client, "serpent_asset_search", {"libraryId": library_id, "limit": 500,
                                                     **filters})


def test_two_machines_see_each_others_changes_live(tmp_path: Path,
                                                   postgres_database: str) -> None:
    shared = tmp_path / "shared drive"
    shared.mkdir()
    pictures = make_images(tmp_path / "pictures", 4)
    heard = Inbox()
    with machine(tmp_path, "anna") as anna, machine(tmp_path, "ben") as ben:
        async def scenario() -> None:
            async with connect(anna.url, anna.token, "legacy") as a, \
                    connect(ben.url, ben.token, "legacy", logging_callback=heard.on_log,
                            message_handler=heard.on_message) as b:
                made = await ok(a, "serpent_library_create", {
                    "selectedParentPath": str(shared), "name": "Refs",
                    "database": postgres_database})
                library = made["libraryId"]
                opened = await ok(b, "serpent_library_open", {"path": made["path"]})
                assert opened["libraryId"] == library  # the same library on both

                imported = await ok(a, "serpent_file_import", {
                    "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
                ids = [item["assetId"] for item in imported["items"]]
                await changes_seen(heard, library, await sequence_of(a, library))
                assert (await search(b, library))["total"] == 4

                await ok(a, "serpent_asset_tag", {"libraryId": library, "assetIds": ids[:2],
                                                  "tags": ["forest"]})
                await changes_seen(heard, library, await sequence_of(a, library))
                assert {i["id"] for i in (await search(b, library, tags=["forest"]))[
                    "items"]} == set(ids[:2])

                folder = await ok(a, "serpent_folder_create", {"libraryId": library,
                                                               "name": "Moodboard"})
                await ok(a, "serpent_asset_move", {"libraryId": library, "assetIds": ids[2:3],
                                                   "folderId": folder["id"]})
                await changes_seen(heard, library, await sequence_of(a, library))
                assert [i["id"] for i in (await search(b, library, folderId=folder["id"]))[
                    "items"]] == ids[2:3]

                await ok(a, "serpent_asset_trash", {"libraryId": library,
                                                    "assetIds": ids[3:]})
                await changes_seen(heard, library, await sequence_of(a, library))
                assert [i["id"] for i in (await search(b, library, trashed=True))[
                    "items"]] == ids[3:]
                await ok(a, "serpent_history_undo", {"libraryId": library})
                await changes_seen(heard, library, await sequence_of(a, library))
                assert (await search(b, library, trashed=True))["total"] == 0

                # who did it travels with the change
                by_anna = [e for e in heard.library_events() if e["libraryId"] == library]
                assert len(by_anna) >= 6

                # the same asset edited on both machines from the same version
                version = (await ok(b, "serpent_asset_get", {
                    "libraryId": library, "assetIds": ids[:1]}))["items"][0]["version"]
                await ok(a, "serpent_asset_update", {"libraryId": library, "assetId": ids[0],
                                                     "rating": 5, "expectedVersion": version})
                conflict = await call(b, "serpent_asset_update", {
                    "libraryId": library, "assetId": ids[0], "rating": 1,
                    "expectedVersion": version})
                assert conflict["error"]["code"] == "VERSION_CONFLICT"
                assert conflict["error"]["currentVersion"] == version + 1

                # and the other way round: ben's change reaches anna's Serpent
                await ok(b, "serpent_asset_tag", {"libraryId": library, "assetIds": ids[1:2],
                                                  "tags": ["by ben"]})
                assert [i["id"] for i in (await search(a, library, tags=["by ben"]))[
                    "items"]] == ids[1:2]

        run(scenario(), timeout=300)


def test_undo_takes_back_your_own_change_across_machines(tmp_path: Path,
                                                        postgres_database: str) -> None:
    """Anna tags asset 1, Ben asset 2, Anna undoes: her tag goes, Ben's stays, on both
    machines. Ben then changes asset 1: Anna's redo, and her undo of the import that made
    it, answer HISTORY_CONFLICT naming it, and nothing changes."""
    shared = tmp_path / "shared drive"
    shared.mkdir()
    pictures = make_images(tmp_path / "pictures", 2)
    heard = Inbox()
    with machine(tmp_path, "anna", "Anna") as anna, machine(tmp_path, "ben", "Ben") as ben:
        async def scenario() -> None:
            async with connect(anna.url, anna.token, "legacy") as a, \
                    connect(ben.url, ben.token, "legacy", logging_callback=heard.on_log,
                            message_handler=heard.on_message) as b:
                made = await ok(a, "serpent_library_create", {
                    "selectedParentPath": str(shared), "name": "Refs",
                    "database": postgres_database})
                library = made["libraryId"]
                await ok(b, "serpent_library_open", {"path": made["path"]})
                imported = await ok(a, "serpent_file_import", {
                    "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
                one, two = (item["assetId"] for item in imported["items"])
                await ok(a, "serpent_asset_tag", {"libraryId": library, "assetIds": [one],
                                                  "tags": ["anna"]})
                await ok(b, "serpent_asset_tag", {"libraryId": library, "assetIds": [two],
                                                  "tags": ["ben"]})

                undone = (await ok(a, "serpent_history_undo", {"libraryId": library}))["entry"]
                assert undone["command"] == "asset.tag" and undone["actor"]["person"] == "Anna"
                await changes_seen(heard, library, await sequence_of(a, library))
                for client in (a, b):
                    assert (await search(client, library, tags=["anna"]))["total"] == 0
                    assert [i["id"] for i in (await search(client, library, tags=["ben"]))[
                        "items"]] == [two]
                entries = (await ok(b, "serpent_history_list", {"libraryId": library}))[
                    "items"]
                assert entries[0]["actor"]["person"] == "Ben"
                assert entries[1]["actor"]["label"] == "Anna's Claude on anna via MCP"

                await ok(b, "serpent_asset_update", {"libraryId": library, "assetId": one,
                                                     "rating": 4})
                before = await search(b, library)
                for tool in ("serpent_history_redo", "serpent_history_undo"):
                    refused = await call(a, tool, {"libraryId": library})
                    assert refused["error"]["code"] == "HISTORY_CONFLICT", refused
                    assert one in refused["error"]["entityIds"]
                for client in (a, b):
                    assert await search(client, library) == before  # nothing changed
                    assert (await search(client, library, tags=["anna"]))["total"] == 0

        run(scenario(), timeout=300)


def test_a_machine_killed_mid_import_loses_nothing_acknowledged(
        tmp_path: Path, postgres_database: str) -> None:
    shared = tmp_path / "shared drive"
    shared.mkdir()
    first = make_images(tmp_path / "first", 3, prefix="first")
    many = make_images(tmp_path / "many", 400, prefix="many", size=96)
    with machine(tmp_path, "anna") as anna, machine(tmp_path, "ben") as ben:
        async def scenario() -> None:
            async with connect(anna.url, anna.token, "legacy") as a, \
                    connect(ben.url, ben.token, "legacy") as b:
                made = await ok(a, "serpent_library_create", {
                    "selectedParentPath": str(shared), "name": "Refs",
                    "database": postgres_database})
                library = made["libraryId"]
                await ok(b, "serpent_library_open", {"path": made["path"]})
                acknowledged = await ok(a, "serpent_file_import", {
                    "libraryId": library, "sourcePaths": [str(p) for p in first],
                    "tags": ["kept"]})
                kept = {i["assetId"] for i in acknowledged["items"]}
                folder = Path(made["path"])
                killer = threading.Thread(target=_kill_once_rows_arrive,
                                          args=(anna, folder, postgres_database, 3))
                killer.start()
                answer = await call(a, "serpent_file_import", {
                    "libraryId": library, "sourcePaths": [str(p) for p in many],
                    "tags": ["bulk"]})
                killer.join(WAIT_S)
                # Serpent sent the import to anna's restarted worker, which went on from
                # what the killed one had committed: answered, every file imported once
                assert answer["status"] == "ok", answer
                # ben was never stopped: he writes, and sees every acknowledged write
                await ok(b, "serpent_folder_create", {"libraryId": library,
                                                      "name": "After anna's restart"})
                seen = await search(b, library, tags=["kept"])
                assert {i["id"] for i in seen["items"]} == kept
                bulk = await search(b, library, tags=["bulk"])
                everything = await search(b, library)
                assert bulk["total"] == len(many)
                assert everything["total"] == 3 + len(many)
                _every_file_is_there(folder, postgres_database)

        run(scenario(), timeout=400)


def _kill_once_rows_arrive(anna: Machine, folder: Path, uri: str, before: int) -> None:
    """kill -9 anna's library worker as soon as her import committed its first batch."""
    with psycopg.connect(uri, autocommit=True) as spy:
        wait_until(lambda: spy.execute("SELECT count(*) FROM assets").fetchone()[0] > before,
                   "the import's first batch committed", WAIT_S, interval=0.01)
    for pid in anna.worker_pids(folder):
        os.kill(pid, signal.SIGKILL)


def _every_file_is_there(folder: Path, uri: str) -> None:
    with psycopg.connect(uri, autocommit=True) as spy:
        rows = spy.execute("SELECT sha256, ext, (SELECT count(*) FROM asset_tags x "
                           "WHERE x.asset_id = a.id) FROM assets a").fetchall()
    for sha256, ext, tags in rows:
        assert (folder / "files" / sha256[:2] / f"{sha256}.{ext}").is_file()
        assert tags == 1  # its import's tag came with it, in the same transaction


def test_the_database_stopped_mid_import(tmp_path: Path) -> None:
    """The server goes down during an import: the import answers DATABASE_UNAVAILABLE
    (retryable), nothing half-applied is left, every call meanwhile says the same, and both
    machines carry on by themselves once the server is back."""
    server = PostgresServer.start()  # its own server: this test stops it
    try:
        uri = server.new_database("outage")
        _the_database_stopped_mid_import(tmp_path, server, uri)
    finally:
        server.stop()


def _the_database_stopped_mid_import(tmp_path: Path, server: PostgresServer, uri: str) -> None:
    shared = tmp_path / "shared drive"
    shared.mkdir()
    many = make_images(tmp_path / "many", 400, prefix="many", size=96)
    with machine(tmp_path, "anna") as anna, machine(tmp_path, "ben") as ben:
        async def scenario() -> None:
            async with connect(anna.url, anna.token, "legacy") as a, \
                    connect(ben.url, ben.token, "legacy") as b:
                made = await ok(a, "serpent_library_create", {
                    "selectedParentPath": str(shared), "name": "Refs", "database": uri})
                library = made["libraryId"]
                await ok(b, "serpent_library_open", {"path": made["path"]})
                stopper = threading.Thread(target=_stop_once_rows_arrive,
                                           args=(server, uri))
                stopper.start()
                answer = await call(a, "serpent_file_import", {
                    "libraryId": library, "sourcePaths": [str(p) for p in many],
                    "tags": ["bulk"]})
                stopper.join(WAIT_S)
                assert answer["status"] == "error", answer
                assert answer["error"]["code"] == "DATABASE_UNAVAILABLE"
                assert answer["error"]["retryable"] is True
                assert await error_code(b, "serpent_folder_create", {
                    "libraryId": library, "name": "While down"}) == "DATABASE_UNAVAILABLE"
                server.back()
                for client in (a, b):  # each reconnects by itself
                    await _until_ok(client, "serpent_folder_list", {"libraryId": library})
                _every_file_is_there(Path(made["path"]), uri)
                names = [f["name"] for f in (await ok(b, "serpent_folder_list", {
                    "libraryId": library}))["items"]]
                assert "While down" not in names
                await ok(b, "serpent_folder_create", {"libraryId": library, "name": "After"})
                assert "After" in [f["name"] for f in (await ok(a, "serpent_folder_list", {
                    "libraryId": library}))["items"]]

        run(scenario(), timeout=400)


def _stop_once_rows_arrive(server: PostgresServer, uri: str) -> None:
    with psycopg.connect(uri, autocommit=True) as spy:
        wait_until(lambda: spy.execute("SELECT count(*) FROM assets").fetchone()[0] > 0,
                   "the import's first batch committed", WAIT_S, interval=0.01)
    server.outage()


async def _until_ok(client: Client, tool: str, args: dict[str, Any]) -> None:
    async def answered() -> bool:
        envelope = await call(client, tool, args)
        if envelope["status"] != "ok":
            assert envelope["error"]["code"] == "DATABASE_UNAVAILABLE", envelope
        return bool(envelope["status"] == "ok")

    await async_wait_until(answered, f"{tool} answered after the reconnect", WAIT_S,
                           interval=0.2)
