"""`library.repair` through real workers: a damaged library (garbage pages, a garbage header)
becomes a new library beside it holding every row SQLite can still read and every stored
file (those whose record was lost come back as "Recovered …" assets); the damaged library is
left byte for byte as it was; an intact one is carried over whole."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path
from typing import Any

from library.client import LibraryHost
from tests.library.factories import TIMEOUT, call, make_images

COUNT = 40


def fill(host: LibraryHost, library: dict[str, Any], sources: Path) -> list[str]:
    """Pictures with tags, a folder and a collection; the library is closed afterwards."""
    library_id = library["libraryId"]
    make_images(sources, COUNT)
    ids = [item["assetId"] for item in call(host, library_id, "file.import", {
        "sourcePaths": [str(sources)], "tags": ["sky"]})["items"]]
    folder = call(host, library_id, "folder.create", {"name": "Moodboard"})["id"]
    call(host, library_id, "asset.move", {"assetIds": ids[:10], "folderId": folder})
    collection = call(host, library_id, "collection.create", {"name": "Best"})["id"]
    call(host, library_id, "collection.members", {"collectionId": collection,
                                                  "add": ids[:5]})
    call(host, library_id, "asset.update", {"assetId": ids[0], "notes": "the good one",
                                            "rating": 5})
    host.close(library_id).result(TIMEOUT)
    return ids


def snapshot(folder: Path) -> dict[str, str]:
    found = {}
    for directory, _, files in os.walk(folder):
        for name in files:
            path = Path(directory, name)
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def damage(database: Path, how: str) -> None:
    data = bytearray(database.read_bytes())
    noise = random.Random(11)
    if how == "header":
        data[:100] = bytes(noise.randrange(256) for _ in range(100))
    else:  # every third page past the first few, as a failing disk would
        for offset in range(6 * 4096, len(data), 3 * 4096):
            data[offset + 8: offset + 2000] = bytes(noise.randrange(256) for _ in range(1992))
    database.write_bytes(bytes(data))


def repaired(host: LibraryHost, root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    ref = host.repair(root).result(TIMEOUT)
    return ref, host.recovery_report(ref["libraryId"])["repair"]


def test_an_intact_library_is_carried_over_whole(host, library, sources):
    root = Path(library["path"])
    ids = fill(host, library, sources)
    before = snapshot(root)
    ref, report = repaired(host, root)
    assert Path(ref["path"]) == root.parent / "Test Library (recovered).serpent"
    assert ref["name"] == "Test Library (recovered)" and ref["libraryId"] != library["libraryId"]
    assert report["complete"], [(t, r) for t, r in report["tables"].items() if r["dropped"]]
    assert report["filesAdopted"] == 0 and report["rowsDropped"] == 0
    found = call(host, ref["libraryId"], "asset.search", {"limit": 500})
    assert sorted(a["id"] for a in found["items"]) == sorted(ids)
    first = call(host, ref["libraryId"], "asset.get", {"assetIds": [ids[0]]})["items"][0]
    assert first["notes"] == "the good one" and first["tags"] == ["sky"]
    assert call(host, ref["libraryId"], "tag.list")["items"][0]["count"] == COUNT
    assert sorted(f["name"] for f in call(host, ref["libraryId"], "folder.list")["items"]) == \
        ["Moodboard", "sources"]  # the import's folder tree, and the one made
    refreshed = call(host, ref["libraryId"], "library.refresh")
    assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0
    assert snapshot(root) == before, "the original is not touched"
    again = host.repair(root).result(TIMEOUT)
    assert Path(again["path"]).name == "Test Library (recovered 2).serpent"


def test_garbage_pages_lose_only_what_was_on_them_and_no_picture(host, library, sources):
    root = Path(library["path"])
    ids = fill(host, library, sources)
    damage(root / "library.sqlite", "pages")
    (root / ".clean-close").unlink(missing_ok=True)
    assert host.open(root).exception(TIMEOUT).code == "LIBRARY_DAMAGED"
    before = snapshot(root)
    ref, report = repaired(host, root)
    assert snapshot(root) == before, "the damaged library is left as it was"
    assert not report["complete"] and report["tablesWithLosses"], report
    assert report["tables"]["assets"]["recovered"] > 0, report
    found = call(host, ref["libraryId"], "asset.search", {"limit": 500})
    assert found["total"] == COUNT, "every stored picture is an asset of the new library"
    kept = {a["id"] for a in found["items"]} & set(ids)
    assert len(kept) == report["tables"]["assets"]["recovered"]
    assert report["filesAdopted"] == COUNT - len(kept)
    refreshed = call(host, ref["libraryId"], "library.refresh")
    assert refreshed["integrity"] == "ok" and refreshed["missingFiles"] == 0


def test_a_garbage_header_is_read_page_by_page(host, library, sources):
    root = Path(library["path"])
    ids = fill(host, library, sources)
    damage(root / "library.sqlite", "header")
    before = snapshot(root)
    ref, report = repaired(host, root)
    assert snapshot(root) == before
    assert report["stateRecovered"] and report["complete"], report["tablesWithLosses"]
    found = call(host, ref["libraryId"], "asset.search", {"limit": 500})
    assert sorted(a["id"] for a in found["items"]) == sorted(ids)
    first = call(host, ref["libraryId"], "asset.get", {"assetIds": [ids[0]]})["items"][0]
    assert first["notes"] == "the good one" and first["tags"] == ["sky"]
    assert first["folderIds"] and call(host, ref["libraryId"], "collection.list")["items"]


def test_files_whose_records_are_lost_come_back_as_assets(host, library, sources):
    root = Path(library["path"])
    fill(host, library, sources)
    database = root / "library.sqlite"
    database.write_bytes(os.urandom(database.stat().st_size))  # nothing readable at all
    ref, report = repaired(host, root)
    assert not report["stateRecovered"] and report["filesAdopted"] == COUNT
    assert report["tables"]["assets"]["unreadable"]
    folders = call(host, ref["libraryId"], "folder.list")["items"]
    assert [f["name"] for f in folders] == ["Recovered files"]  # nothing else was readable
    found = call(host, ref["libraryId"], "asset.search", {"folderId": folders[0]["id"],
                                                          "limit": 500})
    assert found["total"] == COUNT
    assert all(a["name"].startswith("Recovered ") for a in found["items"])
    shown = call(host, ref["libraryId"], "asset.thumbnail", {"assetId": found["items"][0]["id"]})
    assert Path(shown["path"]).is_file(), "the recovered picture is shown"
