"""Writes a small library at today's schema into tests/library/store/frozen/schema-v<N>/.

Run once per schema version, from the repo root, and commit the result:
    .venv/bin/python -m tests.library.store.frozen.make_frozen_library
The frozen copies are never regenerated: `test_frozen_libraries.py` opens every one with the
current code, so a migration edited in place (instead of a new one appended) or a change
that forgets old libraries fails the suite.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from library.client import LibraryHost
from library.worker.store.schema import LATEST
from tests.library.factories import call, make_file, make_images
from tests.waiting import wait_until

HERE = Path(__file__).resolve().parent


def main() -> None:
    target = HERE / f"schema-v{LATEST}"
    if target.exists():
        raise SystemExit(f"{target} exists: frozen libraries are never rewritten")
    with tempfile.TemporaryDirectory() as scratch:
        sources = Path(scratch) / "sources"
        images = make_images(sources, 3, size=(40, 30))
        make_file(sources / "notes.txt", b"a text asset")
        host = LibraryHost()
        try:
            ref = host.create(Path(scratch), "Frozen").result(60)
            library = ref["libraryId"]
            imported = call(host, library, "file.import", {"sourcePaths": [str(sources)],
                                                           "keepFolderTree": False})
            by_source = {Path(i["sourcePath"]).name: i["assetId"] for i in imported["items"]}
            # the three images, then the text file (ids alone do not keep the import order)
            ids = [by_source[p.name] for p in images] + [by_source["notes.txt"]]
            folder = call(host, library, "folder.create", {"name": "Refs"})
            call(host, library, "asset.move", {"assetIds": ids[:2], "folderId": folder["id"]})
            call(host, library, "asset.tag", {"assetIds": ids[:3], "tags": ["sky", "Blue"]})
            call(host, library, "asset.update", {"assetId": ids[0], "rating": 4,
                                                 "notes": "frozen note"})
            call(host, library, "collection.create", {"name": "Picks"})
            task = call(host, library, "analysis.run", {})["task"]  # palettes, signatures
            wait_until(lambda: call(host, library, "task.get", {"taskId": task["id"]})[
                "status"] not in ("queued", "running"), "the analysis")
            call(host, library, "asset.trash", {"assetIds": ids[3:]})
            host.close(library).result(60)
        finally:
            host.shutdown()
        shutil.copytree(Path(scratch) / "Frozen.serpent", target / "Frozen.serpent")
    print(f"wrote {target} ({len(images)} images)")


if __name__ == "__main__":
    main()
