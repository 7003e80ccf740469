"""`asset.search`, `asset.get` and `tag.list` through a real worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from library.schemas import AssetSearchOut, TagListOut
from tests.library.factories import call, call_error, make_file, make_images

pytestmark = pytest.mark.both_kinds  # a local and a studio library


@pytest.fixture
def stocked(host, library_id, sources):
    """12 images + 2 documents, tags, ratings and folders."""
    images = make_images(sources / "img", 12)
    make_file(sources / "doc" / "brief.pdf", b"%PDF brief")
    make_file(sources / "doc" / "Moodboard notes.txt", b"sunset palette")
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)],
                                                   "keepFolderTree": False})
    ids = {item["sourcePath"].rsplit("/", 1)[-1]: item["assetId"] for item in result["items"]}
    image_ids = [ids[p.name] for p in images]
    call(host, library_id, "asset.tag", {"assetIds": image_ids[:6], "tags": ["sky"]})
    call(host, library_id, "asset.tag", {"assetIds": image_ids[3:8], "tags": ["Sunset"]})
    for n, asset_id in enumerate(image_ids[:5]):
        call(host, library_id, "asset.update", {"assetId": asset_id, "rating": n + 1})
    parent = call(host, library_id, "folder.create", {"name": "Trips"})
    child = call(host, library_id, "folder.create", {"name": "Alps", "parentId": parent["id"]})
    call(host, library_id, "asset.move", {"assetIds": image_ids[:2], "folderId": parent["id"]})
    call(host, library_id, "asset.move", {"assetIds": image_ids[2:4], "folderId": child["id"]})
    call(host, library_id, "asset.update", {"assetId": ids["brief.pdf"],
                                            "notes": "Client wants warm SUNSET tones"})
    return {"ids": ids, "images": image_ids, "parent": parent["id"], "child": child["id"]}


def search(host, library_id, **args):
    return AssetSearchOut.model_validate(call(host, library_id, "asset.search", args))


def names(page) -> set[str]:
    return {item.name for item in page.items}


def test_filters(host, library_id, stocked):
    images = stocked["images"]
    assert search(host, library_id).total == 14
    assert search(host, library_id, tags=["SKY"]).total == 6  # tags match case-insensitively
    assert search(host, library_id, tags=["sky", "sunset"]).total == 3
    assert search(host, library_id, tags=["no such tag"]).total == 0
    assert search(host, library_id, untagged=True).total == 14 - 8
    assert search(host, library_id, kind=["document"]).total == 2
    assert search(host, library_id, ext=["PDF", ".txt"]).total == 2
    assert search(host, library_id, ratingMin=3).total == 3
    assert search(host, library_id, ratingMin=2, ratingMax=3).total == 2
    assert search(host, library_id, folderId=stocked["parent"]).total == 2
    assert search(host, library_id, folderId=stocked["parent"],
                  includeSubfolders=True).total == 4
    assert search(host, library_id, unfiled=True).total == 10
    # text matches names, notes and tags, word by word, case-insensitively
    assert "brief" in names(search(host, library_id, text="sunset"))
    assert search(host, library_id, text="sunset").total == 5 + 1  # tags + the pdf's notes
    assert names(search(host, library_id, text="moodBOARD")) == {"Moodboard notes"}
    assert search(host, library_id, text="warm tones").total == 1
    assert search(host, library_id, text="100%_").total == 0  # wildcards are literal
    now = datetime.now(UTC)
    assert search(host, library_id, addedAfter=(now - timedelta(hours=1)).isoformat()).total \
        == 14
    assert search(host, library_id, addedBefore=(now - timedelta(hours=1)).isoformat()).total \
        == 0
    by_rating = search(host, library_id, sort="rating-desc", limit=3)
    assert [i.rating for i in by_rating.items] == [5, 4, 3]
    assert by_rating.items[0].id == images[4]
    error = call_error(host, library_id, "asset.search", {"folderId": "fld_0000000000"})
    assert error.code == "NOT_FOUND"


@pytest.mark.parametrize("sort", ["added-desc", "added-asc", "name-asc", "name-desc",
                                  "rating-desc", "size-desc", "modified-desc"])
def test_cursor_pages_cover_everything_once_in_a_stable_order(host, library_id, stocked,
                                                              sort):
    whole = search(host, library_id, sort=sort, limit=500)
    seen, cursor = [], None
    while True:
        args = {"sort": sort, "limit": 4}
        if cursor:
            args["cursor"] = cursor
        page = search(host, library_id, **args)
        assert page.total == 14
        seen += [item.id for item in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [item.id for item in whole.items]
    assert len(set(seen)) == 14
    offset_page = search(host, library_id, sort=sort, limit=4, offset=8)
    assert [i.id for i in offset_page.items] == seen[8:12]


def test_assets_imported_together_keep_their_import_order(host, library_id, sources):
    # one import shares one addedAt: ties fall back to import order, not to the ids' random part
    first = make_images(sources / "first", 5)
    together = make_images(sources / "together", 40, start=100)
    given = [*together[::2], *together[1::2]]  # not in name order: import order is as given
    call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in first]})
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in given]})
    imported = [item["assetId"] for item in result["items"]]
    assert [item["sourcePath"] for item in result["items"]] == [str(p) for p in given]
    earlier = [item.id for item in search(host, library_id, sort="added-asc").items[:5]]
    newest = search(host, library_id, limit=500).items
    assert len({item.added_at for item in newest[:40]}) == 1  # really one tie
    assert [item.id for item in newest] == [*imported[::-1], *earlier[::-1]]
    oldest = search(host, library_id, sort="added-asc", limit=500).items
    assert [item.id for item in oldest] == [*earlier, *imported]
    for sort, expected in (("added-desc", [*imported[::-1], *earlier[::-1]]),
                           ("added-asc", [*earlier, *imported])):
        seen, cursor = [], None
        while True:  # pages of 7 cross the tie: each asset once, in the same order
            page = search(host, library_id, sort=sort, limit=7,
                          **({"cursor": cursor} if cursor else {}))
            seen += [item.id for item in page.items]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert seen == expected, sort
        assert [i.id for i in search(host, library_id, sort=sort, limit=7, offset=14).items] \
            == expected[14:21]


def test_bad_cursors_and_cursor_with_offset(host, library_id, stocked):
    page = search(host, library_id, limit=2)
    error = call_error(host, library_id, "asset.search", {"cursor": "garbage!"})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "cursor"
    error = call_error(host, library_id, "asset.search",
                       {"cursor": page.next_cursor, "sort": "name-asc"})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "cursor"
    error = call_error(host, library_id, "asset.search",
                       {"cursor": page.next_cursor, "offset": 2, "limit": 2})
    assert error.code == "INVALID_ARGUMENT"
    error = call_error(host, library_id, "asset.search", {"limit": 501})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "limit"


def test_get_reports_not_found_ids(host, library_id, stocked):
    asset_id = stocked["images"][0]
    got = call(host, library_id, "asset.get",
               {"assetIds": [asset_id, "ast_00000000000000"]})
    assert [i["id"] for i in got["items"]] == [asset_id]
    assert got["notFound"] == ["ast_00000000000000"]


def test_tag_list_counts_sorts_prefix_and_pages(host, library_id, stocked):
    tags = TagListOut.model_validate(call(host, library_id, "tag.list"))
    assert [(t.name, t.count) for t in tags.items] == [("sky", 6), ("Sunset", 5)]
    by_count = call(host, library_id, "tag.list", {"sort": "count"})
    assert [t["name"] for t in by_count["items"]] == ["sky", "Sunset"]
    assert [t["name"] for t in call(host, library_id, "tag.list", {"prefix": "SU"})["items"]] \
        == ["Sunset"]
    first = call(host, library_id, "tag.list", {"limit": 1})
    assert first["total"] == 2 and first["nextCursor"]
    second = call(host, library_id, "tag.list", {"limit": 1, "cursor": first["nextCursor"]})
    assert [t["name"] for t in second["items"]] == ["Sunset"] and second["nextCursor"] is None
    # the trash does not count
    call(host, library_id, "asset.trash", {"assetIds": stocked["images"][:2]})
    counts = {t["name"]: t["count"] for t in call(host, library_id, "tag.list")["items"]}
    assert counts == {"sky": 4, "Sunset": 5}
