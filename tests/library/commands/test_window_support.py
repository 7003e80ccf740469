"""What the window needs from the worker: where an asset's file is (`filePath`, so the
window never builds the store layout itself, and no error message shows internal paths),
and a hand-picked collection paged in its members' order (`sort: collection-order`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from library.schemas import AssetGetOut, AssetSearchOut
from tests.library.factories import call, call_error, make_images
from tests.library.pictures import previews_made


@pytest.fixture
def five(host, library_id, sources) -> list[str]:
    make_images(sources, 5)
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    return sorted(item["assetId"] for item in result["items"])


def test_asset_get_and_update_name_the_stored_file(host, library, library_id, five):
    got = AssetGetOut.model_validate(call(host, library_id, "asset.get", {"assetIds": five}))
    for asset in got.items:
        assert asset.file_path is not None
        stored = Path(asset.file_path)
        assert stored.is_absolute() and stored.is_file()
        assert stored.is_relative_to(Path(library["path"]))
        assert stored.read_bytes()[:4] == b"\x89PNG"
    updated = call(host, library_id, "asset.update", {"assetId": five[0], "rating": 3})
    assert updated["item"]["filePath"] == got.items[0].file_path
    # a summary (search, grid) stays small: the path is only in the full record
    page = call(host, library_id, "asset.search", {"limit": 5})
    assert all("filePath" not in item for item in page["items"])


def test_errors_about_stored_files_never_show_the_library_path(host, library, library_id,
                                                               five):
    got = call(host, library_id, "asset.get", {"assetIds": [five[0]]})
    previews_made(host, library_id)
    Path(got["items"][0]["filePath"]).unlink()     # the file vanished behind our back
    sha = got["items"][0]["sha256"]
    for made in (Path(library["path"]) / "thumbs" / sha[:2]).glob(f"{sha}_*"):
        made.unlink()                              # and no preview of it was left
    errors = [call_error(host, library_id, "asset.thumbnail", {"assetId": five[0]}),
              call_error(host, library_id, "asset.get", {"assetIds": ["not an id"]}),
              call_error(host, library_id, "asset.thumbnail", {"assetId": "ast_0000000000"})]
    for error in errors:
        shown = error.message + json.dumps(error.details, default=str)
        assert library["path"] not in shown
        assert "files/" not in shown and "files\\" not in shown


def test_collection_order_pages_a_hand_picked_collection_in_member_order(host, library_id,
                                                                         five):
    picks = call(host, library_id, "collection.create", {"name": "Picks"})
    order = [five[3], five[0], five[4], five[1]]
    call(host, library_id, "collection.members", {"collectionId": picks["id"], "add": order})

    def page(**extra) -> AssetSearchOut:
        return AssetSearchOut.model_validate(call(host, library_id, "asset.search", {
            "collectionId": picks["id"], "sort": "collection-order", **extra}))

    assert [i.id for i in page(limit=10).items] == order
    assert [i.id for i in page(limit=2, offset=2).items] == order[2:]
    seen, cursor = [], None
    while True:
        out = page(limit=1, **({"cursor": cursor} if cursor else {}))
        assert out.total == 4
        seen += [i.id for i in out.items]
        cursor = out.next_cursor
        if cursor is None:
            break
    assert seen == order
    # removing one and adding it again puts it at the end
    call(host, library_id, "collection.members", {"collectionId": picks["id"],
                                                  "remove": [five[0]]})
    call(host, library_id, "collection.members", {"collectionId": picks["id"],
                                                  "add": [five[0]]})
    assert [i.id for i in page(limit=10).items] == [five[3], five[4], five[1], five[0]]
    # trashed members leave the page, and come back in their place when restored
    call(host, library_id, "asset.trash", {"assetIds": [five[4]]})
    assert [i.id for i in page(limit=10).items] == [five[3], five[1], five[0]]


def test_collection_order_needs_a_hand_picked_collection(host, library_id, five):
    smart = call(host, library_id, "collection.create", {"name": "All PNG", "rules": {
        "rules": [{"field": "ext", "op": "is", "value": "png"}]}})
    for args in ({"sort": "collection-order"},
                 {"sort": "collection-order", "collectionId": smart["id"]}):
        error = call_error(host, library_id, "asset.search", args)
        assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "sort"
