"""The per-tag counts `tag.list` shows are kept by triggers (schema migration 5); after a
long random run of everything that touches tags or the trash, undo and redo included, each
kept count equals a fresh count of the assets outside the trash carrying that tag.

The run length is `SERPENT_TAG_COUNT_OPS` (default 160 operations).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from library.errors import LibraryError
from tests.library.database import reading
from tests.library.factories import call, make_images

pytestmark = pytest.mark.both_kinds  # the kept counts are SQLite's and PostgreSQL's triggers

OPS = int(os.environ.get("SERPENT_TAG_COUNT_OPS", "160"))
NAMES = ["sky", "Sky", "blue", "forest", "night", "red", "todo", "ref", "SKETCH", "sketch"]
FRESH = ("SELECT t.name, t.live_count, (SELECT count(*) FROM asset_tags at JOIN assets a "
         "ON a.id = at.asset_id WHERE at.tag_id = t.id AND a.trashed = 0) FROM tags t")


def kept_and_fresh(root: Path) -> list[tuple[str, int, int]]:
    with reading(root) as db:
        return [tuple(row) for row in db.execute(FRESH).fetchall()]


def check(host, library_id: str, database: Path, step: str) -> None:
    rows = kept_and_fresh(database)
    wrong = [row for row in rows if row[1] != row[2]]
    assert not wrong, f"after {step}: (tag, kept, fresh) {wrong}"
    for sort in ("name", "count"):
        listed = call(host, library_id, "tag.list", {"limit": 500, "sort": sort})["items"]
        assert {t["name"]: t["count"] for t in listed} == {r[0]: r[2] for r in rows}, step
        if sort == "count":
            counts = [t["count"] for t in listed]
            assert counts == sorted(counts, reverse=True), step


def test_kept_tag_counts_match_a_fresh_count_after_random_operations(host, library,
                                                                     sources):
    library_id, database = library["libraryId"], Path(library["path"])
    rng = random.Random(11)
    made = 0

    def import_some(count: int) -> None:
        nonlocal made
        folder = sources / f"batch {made}"
        make_images(folder, count, start=made)
        made += count
        call(host, library_id, "file.import", {"sourcePaths": [str(folder)],
                                               "tags": rng.sample(NAMES, rng.randrange(3))})

    def assets(trashed: bool) -> list[str]:
        page = call(host, library_id, "asset.search", {"trashed": trashed, "limit": 500})
        return [item["id"] for item in page["items"]]

    def some(ids: list[str]) -> list[str]:
        return rng.sample(ids, rng.randint(1, min(4, len(ids)))) if ids else []

    def tag_names() -> list[str]:
        return [t["name"] for t in call(host, library_id, "tag.list", {"limit": 500})["items"]]

    import_some(12)
    done: list[str] = []
    counted = False
    for step in range(OPS):
        live, trashed, tags = assets(False), assets(True), tag_names()
        roll = rng.random()
        if done and done[-1] == "history.undo" and rng.random() < 0.5:
            roll = 0.85  # redo what was just undone
        try:
            if roll < 0.2 and live:
                op = "asset.tag"
                call(host, library_id, op, {"assetIds": some(live),
                                            "tags": rng.sample(NAMES, rng.randint(1, 3))})
            elif roll < 0.3 and live + trashed and tags:
                op = "asset.untag"
                call(host, library_id, op, {"assetIds": some(live + trashed),
                                            "tags": rng.sample(tags, min(2, len(tags)))})
            elif roll < 0.4 and live:
                op = "asset.trash"
                call(host, library_id, op, {"assetIds": some(live)})
            elif roll < 0.47 and trashed:
                op = "asset.restore"
                call(host, library_id, op, {"assetIds": some(trashed)})
            elif roll < 0.5 and live + trashed:
                op = "asset.delete-permanently"
                call(host, library_id, op, {"assetIds": some(live + trashed)[:2]})
            elif roll < 0.52:
                op = "trash.empty"
                call(host, library_id, op)
            elif roll < 0.58 and tags:
                op = "tag.rename"
                call(host, library_id, op, {"tag": rng.choice(tags),
                                            "newName": rng.choice(NAMES + ["renamed"])})
            elif roll < 0.63 and len(tags) > 1:
                op = "tag.merge"
                call(host, library_id, op, {"sources": rng.sample(tags, 2)[:rng.randint(1, 2)],
                                            "target": rng.choice(NAMES + ["merged"])})
            elif roll < 0.67 and tags:
                op = "tag.delete-batch"
                call(host, library_id, op, {"tags": rng.sample(tags, min(2, len(tags)))})
            elif roll < 0.8:
                op = "history.undo"
                call(host, library_id, op)
            elif roll < 0.9:
                op = "history.redo"
                call(host, library_id, op)
            elif roll < 0.95 and live:
                op = "asset.update"
                call(host, library_id, op, {"assetId": rng.choice(live),
                                            "rating": rng.randrange(6)})
            else:
                op = "file.import"
                import_some(rng.randint(1, 3))
        except LibraryError as error:  # nothing to undo, a rename onto another tag...
            assert error.code in {"HISTORY_EMPTY", "HISTORY_CONFLICT", "HISTORY_IRREVERSIBLE",
                                  "ALREADY_EXISTS", "INVALID_ARGUMENT", "NOT_FOUND"}, error
            op = f"{op} ({error.code})"
        done.append(op)
        if step % 20 == 0:
            check(host, library_id, database, f"step {step}: {op}")
            counted |= any(count > 0 for _name, count, _fresh in kept_and_fresh(database))
    check(host, library_id, database, "the last step")
    # the run really went through the paths the counts depend on
    assert {"asset.tag", "asset.trash", "asset.restore", "history.undo", "history.redo",
            "tag.merge", "asset.delete-permanently"} <= {op.split(" (")[0] for op in done}
    assert counted  # tags were counted, not only zeros (permanent deletes stop undo: the
    # walk may end with everything deleted)
