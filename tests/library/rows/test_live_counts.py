"""Smart-collection and search counts stay exact across changes (`rows.livecounts`): after
each step of a long random run of edits, trash, undo, redo, tags, renames, imports and
permanent deletes, every count `collection.list` and `asset.search` answer (free-text
searches included, alone and with a filter) equals a fresh count made here from the
library's file.

The run length is `SERPENT_LIVE_COUNT_OPS` (default 120 operations).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from library.errors import LibraryError
from tests.library.database import reading
from tests.library.factories import call, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library

OPS = int(os.environ.get("SERPENT_LIVE_COUNT_OPS", "120"))
NAMES = ["sky", "Sky", "red", "forest"]
SMART = {
    "rated": ({"match": "all", "rules": [{"field": "rating", "op": "gte", "value": 3}]},
              lambda a: a["rating"] >= 3),
    "ones": ({"match": "all", "rules": [{"field": "name", "op": "contains", "value": "1"}]},
             lambda a: "1" in a["name"].casefold()),
    "sky": ({"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]},
            lambda a: "sky" in a["tags"]),
    "five or red": ({"match": "any", "rules": [{"field": "rating", "op": "is", "value": 5},
                                               {"field": "tag", "op": "is", "value": "red"}]},
                    lambda a: a["rating"] == 5 or "red" in a["tags"]),
}
SEARCHES = {
    "rating at least 2": ({"ratingMin": 2}, lambda a: a["rating"] >= 2),
    "tagged forest": ({"tags": ["forest"]}, lambda a: "forest" in a["tags"]),
    "text renamed": ({"text": "RENAMED"}, lambda a: "renamed" in a["text"]),
    "text ky, rated 2+": ({"text": "ky", "ratingMin": 2},
                          lambda a: "ky" in a["text"] and a["rating"] >= 2),
    "text image 1, sky": ({"text": "image 1", "tags": ["sky"]},
                          lambda a: "image" in a["text"] and "1" in a["text"]
                          and "sky" in a["tags"]),
}


def fresh_assets(root: Path) -> list[dict]:
    with reading(root) as db:
        tags: dict[str, set[str]] = {}
        for asset_id, name in db.execute("SELECT at.asset_id, t.name FROM asset_tags at "
                                         "JOIN tags t ON t.id = at.tag_id"):
            tags.setdefault(asset_id, set()).add(name.casefold())
        return [{"id": i, "name": n, "rating": r, "tags": tags.get(i, set()), "text": t}
                for i, n, r, t in db.execute("SELECT id, name, rating, search_text FROM "
                                             "assets WHERE trashed = 0")]


def check(host, library_id: str, database: Path, ids: dict[str, str], step: str) -> None:
    assets = fresh_assets(database)
    listed = {c["name"]: c["assetCount"]
              for c in call(host, library_id, "collection.list")["items"]}
    for name, (_rules, matches) in SMART.items():
        assert listed[name] == sum(1 for a in assets if matches(a)), f"{name} after {step}"
        ran = call(host, library_id, "collection.run-rules", {"collectionId": ids[name],
                                                             "limit": 1})
        assert ran["total"] == listed[name], f"{name} (run-rules) after {step}"
    for name, (args, matches) in SEARCHES.items():
        total = call(host, library_id, "asset.search", {**args, "limit": 1})["total"]
        assert total == sum(1 for a in assets if matches(a)), f"{name} after {step}"


def test_counts_match_a_fresh_count_after_every_change(host, library, sources):
    library_id, database = library["libraryId"], Path(library["path"])
    rng = random.Random(15)
    made = 0

    def import_some(count: int) -> None:
        nonlocal made
        folder = sources / f"batch {made}"
        make_images(folder, count, start=made)
        made += count
        call(host, library_id, "file.import", {"sourcePaths": [str(folder)],
                                               "keepFolderTree": rng.random() < 0.5,
                                               "tags": rng.sample(NAMES, rng.randrange(2))})

    def assets(trashed: bool) -> list[str]:
        page = call(host, library_id, "asset.search", {"trashed": trashed, "limit": 500})
        return [item["id"] for item in page["items"]]

    def some(ids: list[str]) -> list[str]:
        return rng.sample(ids, rng.randint(1, min(5, len(ids)))) if ids else []

    import_some(16)
    ids = {name: call(host, library_id, "collection.create",
                      {"name": name, "rules": rules})["id"]
           for name, (rules, _matches) in SMART.items()}
    done: list[str] = []
    for step in range(OPS):
        live, trashed = assets(False), assets(True)
        roll = rng.random()
        try:
            if roll < 0.3 and live:
                op = "asset.update"
                call(host, library_id, op, {"assetId": rng.choice(live),
                                            "rating": rng.randrange(6)})
            elif roll < 0.4 and live:
                op = "asset.update, many"
                call(host, library_id, "asset.update", {"assetIds": some(live),
                                                        "rating": rng.randrange(6)})
            elif roll < 0.47 and live:
                op = "asset.rename-batch"
                call(host, library_id, "asset.rename-batch", {"items": [
                    {"assetId": a, "name": f"renamed {rng.randrange(30)}"}
                    for a in some(live)]})
            elif roll < 0.55 and live:
                op = "asset.tag"
                call(host, library_id, op, {"assetIds": some(live),
                                            "tags": rng.sample(NAMES, rng.randint(1, 2))})
            elif roll < 0.6 and live:
                op = "asset.untag"
                call(host, library_id, op, {"assetIds": some(live), "tags": ["sky", "red"]})
            elif roll < 0.67 and live:
                op = "asset.trash"
                call(host, library_id, op, {"assetIds": some(live)})
            elif roll < 0.72 and trashed:
                op = "asset.restore"
                call(host, library_id, op, {"assetIds": some(trashed)})
            elif roll < 0.75 and live + trashed:
                op = "asset.delete-permanently"
                call(host, library_id, op, {"assetIds": some(live + trashed)[:2]})
            elif roll < 0.85:
                op = "history.undo"
                call(host, library_id, op)
            elif roll < 0.93:
                op = "history.redo"
                call(host, library_id, op)
            else:
                op = "file.import"
                import_some(rng.randint(1, 3))
        except LibraryError as error:  # nothing to undo or redo, a step that conflicts...
            assert error.code in {"HISTORY_EMPTY", "HISTORY_CONFLICT", "HISTORY_IRREVERSIBLE",
                                  "INVALID_ARGUMENT", "NOT_FOUND", "CHALLENGE_REQUIRED"}, error
            op = f"{op} ({error.code})"
        done.append(op)
        check(host, library_id, database, ids, f"step {step}: {op}")
    ran = {op.split(" (")[0] for op in done}
    assert {"asset.update", "asset.update, many", "asset.trash", "history.undo",
            "history.redo", "file.import"} <= ran
