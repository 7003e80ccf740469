"""`library.move-to-studio` through real workers and a real PostgreSQL: a local library with
everything a library holds moves onto the studio database in its own folder — same library
id, same ids and counts, the same history (a change made before the move is undone after
it), files readable — its local database kept in `.before-studio/`; a second machine opens
the folder as the same library; `library.export` of it unpacks to a one-file library equal
to the original. And what it refuses, with nothing changed."""

from __future__ import annotations

import contextlib
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import psycopg
import pytest

from library.client import LibraryHost
from library.errors import (
    ALREADY_EXISTS,
    DATABASE_UNAVAILABLE,
    HISTORY_EMPTY,
    INVALID_ARGUMENT,
    UNSUPPORTED_FORMAT,
)
from tests.library.factories import TIMEOUT, EventLog, call, call_error, make_images


def organised(host: LibraryHost, parent: Path, sources: Path) -> dict[str, Any]:
    """A local library with assets, tags, folders, collections (hand-picked and smart),
    notes, ratings, trash and history."""
    made = host.create(parent, "Refs").result(TIMEOUT)
    library = made["libraryId"]
    make_images(sources, 5)
    imported = call(host, library, "file.import", {"sourcePaths": [str(sources)],
                                                   "tags": ["sky"]})
    ids = [item["assetId"] for item in imported["items"]]
    folder = call(host, library, "folder.create", {"name": "Moodboard"})
    call(host, library, "folder.create", {"name": "Inside", "parentId": folder["id"]})
    call(host, library, "asset.move", {"assetIds": ids[:2], "folderId": folder["id"]})
    call(host, library, "asset.tag", {"assetIds": ids[1:3], "tags": ["forest", "dusk"]})
    call(host, library, "asset.update", {"assetId": ids[0], "notes": "the blue one",
                                         "rating": 4})
    hand = call(host, library, "collection.create", {"name": "Picks"})
    call(host, library, "collection.members", {"collectionId": hand["id"], "add": ids[2:4]})
    call(host, library, "collection.create", {"name": "Good ones", "rules": {"rules": [
        {"field": "rating", "op": "gte", "value": 3}]}})
    call(host, library, "asset.trash", {"assetIds": ids[4:]})
    call(host, library, "asset.update", {"assetId": ids[3], "rating": 2})  # undone later
    return {**made, "ids": ids}


def seen(host: LibraryHost, library: str) -> dict[str, Any]:
    """What a person sees of the library, ids included."""
    info = call(host, library, "library.info", {})
    assets = call(host, library, "asset.search", {"limit": 100})["items"]
    return {
        "info": {k: info[k] for k in ("libraryId", "name", "assetCount", "trashedCount",
                                      "folderCount", "tagCount", "collectionCount")},
        "assets": call(host, library, "asset.get", {"assetIds": [a["id"] for a in assets]})[
            "items"],
        "tags": call(host, library, "tag.list", {})["items"],
        "folders": call(host, library, "folder.list", {})["items"],
        "collections": call(host, library, "collection.list", {})["items"],
        "trash": [a["id"] for a in call(host, library, "trash.list", {})["items"]],
        "history": call(host, library, "history.list", {"limit": 100})["items"],
        "smart": [a["id"] for a in call(host, library, "asset.search", {"rules": {"rules": [
            {"field": "rating", "op": "gte", "value": 3}]}})["items"]],
    }


def comparable(view: dict[str, Any]) -> dict[str, Any]:
    """Without what a new home changes: the stored files' absolute paths, and the machine
    each change is marked with once the library is a studio library (whose undo it is)."""
    assets = [{k: v for k, v in a.items() if k not in ("filePath", "thumbnailPath")}
              for a in view["assets"]]
    history = [{**h, "actor": {k: v for k, v in h["actor"].items() if k != "machine"}}
               for h in view["history"]]
    return {**view, "assets": assets, "history": history}


def test_a_local_library_moves_onto_the_studio_server_and_back(
        tmp_path: Path, postgres_database: str, sources: Path) -> None:
    alpha = LibraryHost(on_event=EventLog(), machine="alpha")
    beta = LibraryHost(on_event=EventLog(), machine="beta")
    try:
        shared = tmp_path / "shared drive"
        shared.mkdir()
        made = organised(alpha, shared, sources)
        library, root = made["libraryId"], Path(made["path"])
        before = seen(alpha, library)

        moved = call(alpha, library, "library.move-to-studio", {"database": postgres_database})
        assert moved["libraryId"] == library and moved["assetCount"] == 5
        assert alpha.reopened(library).result(TIMEOUT)["libraryId"] == library
        assert (root / "studio.json").is_file()
        assert not (root / "library.sqlite").exists()
        kept = root / ".before-studio" / "library.sqlite"
        assert moved["setAside"] == str(kept) and kept.is_file()
        with contextlib.closing(sqlite3.connect(kept)) as local:  # where the local one ended
            last_local = local.execute("SELECT change_sequence FROM library_state").fetchone()[0]
        first_studio = call(alpha, library, "library.change-sequence", {})["changeSequence"]
        assert first_studio > last_local  # no sequence handed out twice
        assert alpha.recovery_report(library)["check"] == "postgres"  # the studio worker

        after = seen(alpha, library)
        assert comparable(after) == comparable(before)
        assert {h["actor"].get("machine") for h in after["history"]} == {"alpha"}
        for asset in after["assets"]:
            assert Path(asset["filePath"]).read_bytes()  # files readable where they were

        other = beta.open(root).result(TIMEOUT)  # a second machine: the same library
        assert other["libraryId"] == library
        assert comparable(seen(beta, library)) == comparable(after)

        # a change made before the move is its maker's to undo (undo is per person and
        # machine on a studio library): not the other machine's, alpha's
        assert call_error(beta, library, "history.undo", {}).code == HISTORY_EMPTY
        undone = call(alpha, library, "history.undo", {})
        assert undone["entry"]["command"] == "asset.update"
        rating = call(beta, library, "asset.get", {"assetIds": made["ids"][3:4]})[
            "items"][0]["rating"]
        assert rating in (0, None)

        # the counts go on by themselves after the move (copied with the triggers off)
        def forest(host: LibraryHost) -> int:
            tags = {t["name"]: t for t in call(host, library, "tag.list", {})["items"]}
            return int(tags["forest"]["count"])

        carried = forest(alpha)
        call(alpha, library, "asset.tag", {"assetIds": made["ids"][3:4], "tags": ["forest"]})
        assert forest(beta) == carried + 1 == 3

        studio_now = seen(alpha, library)
        archive = tmp_path / "back.zip"
        call(alpha, library, "library.export", {"targetPath": str(archive)})
        home = tmp_path / "back home"
        with zipfile.ZipFile(archive) as unpacked:  # as it is (import-exported gives a new id)
            unpacked.extractall(home)
        back = home / root.name
        assert (back / "library.sqlite").is_file() and not (back / "studio.json").exists()
        alone = LibraryHost(on_event=EventLog(), machine="alpha")  # the same id: a host apart
        try:
            assert alone.open(back).result(TIMEOUT)["libraryId"] == library
            assert comparable(seen(alone, library)) == comparable(studio_now)
        finally:
            alone.shutdown()
    finally:
        alpha.shutdown()
        beta.shutdown()


def test_what_cannot_move_is_refused_and_the_library_stays_local(
        host: LibraryHost, tmp_path: Path, postgres_database: str,
        postgres_server: Any, sources: Path) -> None:
    made = host.create(tmp_path, "Refs").result(TIMEOUT)
    library, root = made["libraryId"], Path(made["path"])
    make_images(sources, 1)
    first = call(host, library, "file.import", {"sourcePaths": [str(sources)]})["items"][0][
        "assetId"]

    def refused(database: str) -> Any:
        return call_error(host, library, "library.move-to-studio", {"database": database})

    assert refused("postgresql://serpent:secret@localhost/refs").code == INVALID_ARGUMENT
    assert refused("mysql://serpent@localhost/refs").code == INVALID_ARGUMENT
    down = refused(f"postgresql://serpent@127.0.0.1:{_closed_port()}/refs")
    assert down.code == DATABASE_UNAVAILABLE
    with psycopg.connect(postgres_database, autocommit=True) as other:
        other.execute("CREATE TABLE someone_elses (x int)")
    used = refused(postgres_database)
    assert used.code == INVALID_ARGUMENT and used.details.get("reason") == "not-empty"

    studio = postgres_server.new_database()
    (tmp_path / "elsewhere").mkdir()
    host.create(tmp_path / "elsewhere", "Team", database=studio).result(TIMEOUT)
    assert refused(studio).code == ALREADY_EXISTS  # it holds a library already

    linked = tmp_path / "on this disk"
    make_images(linked, 1)
    call(host, library, "linked-folder.create", {"path": str(linked)})
    fresh = postgres_server.new_database()
    refusal = refused(fresh)
    assert refusal.code == UNSUPPORTED_FORMAT and refusal.details["reason"] == "linked-folders"

    assert (root / "library.sqlite").is_file() and not (root / "studio.json").exists()
    assert call(host, library, "asset.search", {"tags": ["kept"]})["total"] == 0
    call(host, library, "asset.tag", {"assetIds": [first], "tags": ["kept"]})  # still works
    assert call(host, library, "asset.search", {"tags": ["kept"]})["total"] == 1
    with psycopg.connect(fresh) as check:
        assert check.execute("SELECT count(*) FROM pg_tables WHERE schemaname = "
                             "current_schema()").fetchone() == (0,)


def test_the_question_stays_valid_while_previews_and_analysis_go_on(
        host: LibraryHost, tmp_path: Path, sources: Path) -> None:
    """The move is confirmed against the last change a person made: the previews and
    analysis of a fresh import, which go on while the person reads the question, do not make
    the confirmation stale (they did: a confirmation soon after an import was refused with
    CHALLENGE_INVALID); a tag added meanwhile does."""
    made = host.create(tmp_path, "Refs").result(TIMEOUT)
    library = made["libraryId"]
    make_images(sources, 2)
    ids = [item["assetId"] for item in call(
        host, library, "file.import", {"sourcePaths": [str(sources)]})["items"]]
    args = {"database": "postgresql://serpent@studio-server/refs"}

    def plan() -> tuple[int, str]:
        report = call(host, library, "library.move-to-studio", args, plan=True)
        [target] = report["targets"]
        return target["version"], report["stateToken"]

    asked = plan()
    before = call(host, library, "library.change-sequence")["changeSequence"]
    call(host, library, "analysis.run", {"force": True})  # derived work, queued and done
    assert call(host, library, "library.change-sequence")["changeSequence"] > before
    assert plan() == asked
    call(host, library, "asset.tag", {"assetIds": ids[:1], "tags": ["kept"]})
    tagged = plan()
    assert tagged[0] > asked[0] and tagged[1] != asked[1]


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])



def test_a_move_cancelled_before_the_switch_leaves_the_library_local_and_the_database_empty(
        host: LibraryHost, tmp_path: Path, postgres_database: str, sources: Path) -> None:
    """The rows are copied in one transaction, committed only at the switch: a cancel at
    any batch (here the first) rolls it back and takes `studio.json` away again."""
    from library.errors import CANCELLED, LibraryError
    from library.worker.rows import assetrows
    from library.worker.store.database import connect
    from library.worker.studio.move_in import move_rows

    made = host.create(tmp_path, "Refs").result(TIMEOUT)
    make_images(sources, 2)
    call(host, made["libraryId"], "file.import", {"sourcePaths": [str(sources)]})
    host.close(made["libraryId"]).result(TIMEOUT)
    root = Path(made["path"])
    source = connect(root / "library.sqlite")
    assetrows.register_functions(source)
    copied: list[str] = []

    def cancel(table: str, rows: int) -> None:
        copied.append(table)
        assert (root / "studio.json").is_file() is False  # written only at the switch
        raise LibraryError(CANCELLED, "cancelled")

    try:
        with pytest.raises(LibraryError) as cancelled:
            move_rows(source, root, postgres_database, "alpha", "tsk_none", cancel)
    finally:
        source.close()
    assert cancelled.value.code == CANCELLED and copied
    assert not (root / "studio.json").exists()
    with psycopg.connect(postgres_database) as check:
        assert check.execute("SELECT count(*) FROM pg_tables WHERE schemaname = "
                             "current_schema()").fetchone() == (0,)
    reopened = host.open(root).result(TIMEOUT)  # as it was: a local library
    assert call(host, reopened["libraryId"], "library.info", {})["assetCount"] == 2
    assert (root / "library.sqlite").is_file()


def test_a_move_whose_worker_died_before_its_commit_leaves_the_local_library(
        host: LibraryHost, tmp_path: Path, postgres_database: str, sources: Path) -> None:
    """Killed between writing `studio.json` and the commit: the folder holds both files and
    the database no library. Opening it opens the local library, as it was."""
    from library.worker.studio import studiofile

    made = host.create(tmp_path, "Refs").result(TIMEOUT)
    make_images(sources, 1)
    call(host, made["libraryId"], "file.import", {"sourcePaths": [str(sources)]})
    host.close(made["libraryId"]).result(TIMEOUT)
    root = Path(made["path"])
    studiofile.write(root / "studio.json", postgres_database, made["libraryId"])
    reopened = host.open(root).result(TIMEOUT)
    assert reopened["libraryId"] == made["libraryId"]
    assert not (root / "studio.json").exists() and (root / "library.sqlite").is_file()
    assert call(host, made["libraryId"], "library.info", {})["assetCount"] == 1
