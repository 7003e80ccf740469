"""Libraries written by earlier schema versions open, migrate and keep every piece of data.

Each `frozen/schema-v<N>/` was written once by `frozen/make_frozen_library.py` and is never
regenerated, so editing an old migration in place (instead of appending one) fails here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from library.client import LibraryHost
from library.worker.store.schema import LATEST
from tests.library.factories import call, make_images
from tests.waiting import wait_until

FROZEN = sorted((Path(__file__).parent / "frozen").glob("schema-v*/Frozen.serpent"))


def test_there_is_a_frozen_library_for_the_latest_schema() -> None:
    versions = {int(p.parent.name.removeprefix("schema-v")) for p in FROZEN}
    assert LATEST in versions, (
        f"schema {LATEST} has no frozen library: run "
        "`.venv/bin/python -m tests.library.store.frozen.make_frozen_library` and commit it")


@pytest.mark.parametrize("frozen", FROZEN, ids=lambda p: p.parent.name)
def test_a_frozen_library_opens_with_all_its_data(frozen: Path, host: LibraryHost,
                                                  tmp_path: Path) -> None:
    copy = tmp_path / frozen.name
    shutil.copytree(frozen, copy)  # never open the committed copy itself
    library = host.open(copy).result(60)["libraryId"]

    info = call(host, library, "library.info")
    assert info["schemaVersion"] == LATEST
    assert (info["assetCount"], info["trashedCount"], info["folderCount"]) == (3, 1, 1)
    assert info["collectionCount"] == 1

    tags = {t["name"]: t["count"] for t in call(host, library, "tag.list")["items"]}
    assert tags == {"Blue": 3, "sky": 3}
    noted = call(host, library, "asset.search", {"text": "frozen note"})
    assert noted["total"] == 1 and noted["items"][0]["rating"] == 4
    [folder] = call(host, library, "folder.list")["items"]
    assert folder["name"] == "Refs"
    assert call(host, library, "asset.search", {"folderId": folder["id"]})["total"] == 2

    some = call(host, library, "asset.search", {"limit": 1})["items"][0]["id"]
    call(host, library, "asset.tag", {"assetIds": [some], "tags": ["after migration"]})
    assert call(host, library, "asset.search", {"text": "after migration"})["total"] == 1
    thumbnail = call(host, library, "asset.thumbnail", {"assetId": noted["items"][0]["id"],
                                                        "size": 64})
    assert Path(thumbnail["path"]).is_file()

    # analysis brings what older libraries did not keep (migration 7 queued it)
    wait_until(lambda: not call(host, library, "task.list", {"status": ["queued",
                                                                       "running"]})["items"],
               "the analysis of the older assets")
    images = call(host, library, "asset.search", {"kind": ["image"]})["items"]
    got = call(host, library, "asset.get", {"assetIds": [a["id"] for a in images]})["items"]
    assert len(got) == 3 and all(a["palette"] and a["problem"] is None for a in got)
    assert all((a["width"], a["height"]) == (40, 30) for a in got)
    duplicates = call(host, library, "asset.find-duplicates")
    assert duplicates["notAnalysed"] == 0 and duplicates["analysed"] == 3

    # made before new libraries came with their 256 bucket folders: an import makes those it
    # needs, and the store holds exactly what the rows say
    assert len(list((copy / "files").iterdir())) < 256
    imported = call(host, library, "file.import",
                    {"sourcePaths": [str(p) for p in make_images(tmp_path / "new", 12)]})
    assert imported["imported"] == 12
    for item in call(host, library, "asset.get", {"assetIds": [
            i["assetId"] for i in imported["items"]]})["items"]:
        assert Path(item["filePath"]).is_file()
    refreshed = call(host, library, "library.refresh")
    assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0
