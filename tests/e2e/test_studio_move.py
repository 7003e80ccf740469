"""Moving a local library onto a studio server over MCP, between two Serpents as two machines
(tests/e2e/studio_machines.py): Anna's local library, moved with the dangerous tool and its
challenge, is opened by Ben from its folder as the same library (same id, same assets and
tags), and a change made before the move is undone after it; the database refused when it
is not empty, with nothing changed."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.e2e.studio_machines import machine
from tests.mcp.conftest import call, connect, make_images, ok, run

pytestmark = pytest.mark.timeout(600)


def test_a_local_library_moved_over_mcp_is_the_same_library_on_another_machine(
        tmp_path: Path, postgres_database: str, postgres_server: object) -> None:
    shared = tmp_path / "shared drive"
    shared.mkdir()
    pictures = make_images(tmp_path / "pictures", 3)
    used = postgres_server.new_database()  # type: ignore[attr-defined]
    with psycopg.connect(used, autocommit=True) as other:
        other.execute("CREATE TABLE someone_elses (x int)")
    with machine(tmp_path, "anna") as anna, machine(tmp_path, "ben") as ben:
        async def scenario() -> None:
            async with connect(anna.url, anna.token, "legacy") as a, \
                    connect(ben.url, ben.token, "legacy") as b:
                made = await ok(a, "serpent_library_create", {
                    "selectedParentPath": str(shared), "name": "Refs"})
                library, root = made["libraryId"], Path(made["path"])
                imported = await ok(a, "serpent_file_import", {
                    "libraryId": library, "sourcePaths": [str(p) for p in pictures],
                    "tags": ["sky"]})
                ids = sorted(item["assetId"] for item in imported["items"])
                await ok(a, "serpent_asset_trash", {"libraryId": library, "assetIds": ids[:1]})

                refused = await call(a, "serpent_library_move_to_studio",
                                     {"libraryId": library, "database": used})
                if refused["status"] == "confirmation_required":  # the plan may not look
                    refused = await call(a, "serpent_library_move_to_studio", {
                        "libraryId": library, "database": used,
                        "confirmChallenge": refused["challenge"]["id"]})
                assert refused["status"] == "error" and \
                    refused["error"]["code"] == "INVALID_ARGUMENT", refused
                assert (root / "library.sqlite").is_file()

                asked = await call(a, "serpent_library_move_to_studio",
                                   {"libraryId": library, "database": postgres_database})
                assert asked["status"] == "confirmation_required", asked
                assert not (root / "studio.json").exists()  # the first call changes nothing
                moved = await ok(a, "serpent_library_move_to_studio", {
                    "libraryId": library, "database": postgres_database,
                    "confirmChallenge": asked["challenge"]["id"]})
                assert moved["libraryId"] == library
                assert (root / "studio.json").is_file()
                assert (root / ".before-studio" / "library.sqlite").is_file()

                opened = await ok(b, "serpent_library_open", {"path": str(root)})
                assert opened["libraryId"] == library  # the same library, on the other one
                seen = await ok(b, "serpent_asset_search", {"libraryId": library,
                                                            "tags": ["sky"]})
                assert sorted(i["id"] for i in seen["items"]) == ids[1:]
                await ok(a, "serpent_history_undo", {"libraryId": library})  # the trash
                back = await ok(b, "serpent_asset_search", {"libraryId": library})
                assert sorted(i["id"] for i in back["items"]) == ids
        run(scenario(), timeout=300)
