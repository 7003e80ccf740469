"""Tag names fold case with full Unicode case folding, through a real worker: "été", "Été"
and "ÉTÉ" are one tag everywhere tags are compared (tagging, import, search, rules, rename,
merge, prefix lists), and opening a library that kept such spellings apart merges them."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.library.factories import call, make_images

FROZEN_V5 = Path(__file__).parents[1] / "store" / "frozen" / "schema-v5" / "Frozen.serpent"


@pytest.mark.both_kinds
def test_one_tag_whatever_the_case(host, library_id, sources):
    ids = [i["assetId"] for i in call(host, library_id, "file.import", {
        "sourcePaths": [str(p) for p in make_images(sources, 3)], "tags": ["Été"]})["items"]]
    call(host, library_id, "asset.tag", {"assetIds": ids[1:], "tags": ["ÉTÉ", "straße"]})
    call(host, library_id, "asset.tag", {"assetIds": ids[:1], "tags": ["STRASSE"]})
    tags = {t["name"]: t["count"] for t in call(host, library_id, "tag.list")["items"]}
    assert tags == {"Été": 3, "straße": 3}  # the first spelling stays; ß folds to ss
    assert call(host, library_id, "asset.search", {"tags": ["été"]})["total"] == 3
    assert call(host, library_id, "asset.search", {"tags": ["Strasse"]})["total"] == 3
    rules = {"rules": [{"field": "tag", "op": "is", "value": "ÉTÉ"}]}
    assert call(host, library_id, "collection.run-rules", {"rules": rules})["total"] == 3
    contains = {"rules": [{"field": "tag", "op": "contains", "value": "TÉ"}]}
    assert call(host, library_id, "collection.run-rules", {"rules": contains})["total"] == 3
    assert [t["name"] for t in call(host, library_id, "tag.list",
                                    {"prefix": "ÉT"})["items"]] == ["Été"]
    call(host, library_id, "asset.untag", {"assetIds": ids[:1], "tags": ["ÉTÉ"]})
    assert call(host, library_id, "asset.search", {"tags": ["été"]})["total"] == 2

    renamed = call(host, library_id, "tag.rename", {"tag": "été", "newName": "ÉTÉ"})
    assert renamed["target"] == "ÉTÉ"  # a case-only rename, not a clash
    assert {t["name"] for t in call(host, library_id, "tag.list")["items"]} == {"ÉTÉ",
                                                                               "straße"}
    merged = call(host, library_id, "tag.merge", {"sources": ["STRASSE"], "target": "été"})
    assert merged["target"] == "ÉTÉ" and merged["tags"] == ["straße"]
    assert call(host, library_id, "tag.cooccurrence", {"tag": "Été"})["tag"] == "ÉTÉ"


def test_spellings_an_older_library_kept_apart_are_merged(host, tmp_path):
    copy = tmp_path / FROZEN_V5.name
    shutil.copytree(FROZEN_V5, copy)
    db = sqlite3.connect(copy / "library.sqlite")
    try:  # what NOCASE allowed: the same word with different non-ASCII case, twice
        asset_ids = [r[0] for r in db.execute("SELECT id FROM assets ORDER BY id")]
        for name in ("été", "ÉTÉ"):
            tag_id = db.execute("INSERT INTO tags (name, version, created_at) VALUES "
                                "(?, 1, '2026-01-01T00:00:00.000000Z') RETURNING id",
                                (name,)).fetchone()[0]
            carriers = asset_ids[:2] if name == "été" else asset_ids[1:3]
            db.executemany("INSERT INTO asset_tags (asset_id, tag_id) VALUES (?, ?)",
                           [(a, tag_id) for a in carriers])
            db.executemany("UPDATE assets SET search_text = search_text || ? WHERE id = ?",
                           [(" " + name.casefold(), a) for a in carriers])
        db.commit()
    finally:
        db.close()
    library_id = host.open(copy).result(60)["libraryId"]
    tags = {t["name"]: t["count"] for t in call(host, library_id, "tag.list")["items"]}
    assert tags.get("été") == 3 and "ÉTÉ" not in tags  # the older spelling, all its assets
    assert call(host, library_id, "asset.search", {"text": "ÉTÉ"})["total"] == 3
