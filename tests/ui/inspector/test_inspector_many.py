"""The inspector for several assets: tags all of them carry as chips, tags only some carry as
partial chips ("sky · 3 of 5") that can be given to all or taken from all, and a rating that
rates them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.conftest import App, make_images

pytestmark = pytest.mark.gui


def tagged(app: App, library_id: str, tag: str) -> int:
    return int(app.gateway_call("asset.search", {"libraryId": library_id,
                                                 "tags": [tag]})["total"])


def test_partial_tags_and_rating_across_a_selection(app: App, tmp_path: Path) -> None:
    library_id = app.open_default()
    app.import_images(make_images(tmp_path / "refs", 6))
    window, inspector = app.window, app.window.inspector
    keys = [window.grid.source.cell(i).key for i in range(5)]  # type: ignore[union-attr]
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys,
                                   "tags": ["reference"]})
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys[:3],
                                   "tags": ["sky"]})
    app.gateway_call("asset.tag", {"libraryId": library_id, "assetIds": keys[:1],
                                   "tags": ["dusk"]})
    app.gateway_call("asset.update", {"libraryId": library_id, "assetId": keys[0],
                                      "rating": 2})
    app.pump(lambda: window.pages.items_for(keys[:1])[0]["tags"] == ["dusk", "reference",
                                                                      "sky"],
             "the tags in the grid's data")
    window.grid.select_keys(keys)
    tags = inspector.tags
    app.pump(lambda: tags.chip_names() == ["reference"] and
             set(tags.partial_chips()) == {"sky", "dusk"}, "shared and partial chips")
    assert list(tags.partial_chips()) == ["sky", "dusk"]         # most common first
    sky = tags.partial_chips()["sky"]
    texts = [w.cget("text") for w in sky.winfo_children()]
    assert texts[:2] == ["sky", "· 3 of 5"]
    assert inspector.rating.mixed
    app.screenshot("inspector-multi-partial-tags", window.inspector_holder)

    # + gives the tag to every selected asset
    sky.add_button.event_generate("<Button-1>")  # type: ignore[attr-defined]
    app.pump(lambda: tags.chip_names() == ["reference", "sky"] and
             list(tags.partial_chips()) == ["dusk"], "sky on all five")
    assert tagged(app, library_id, "sky") == 5

    # ✕ on a partial chip takes it from all of them
    tags.partial_chips()["dusk"].remove_button.event_generate(  # type: ignore[attr-defined]
        "<Button-1>")
    app.pump(lambda: not tags.partial_chips(), "dusk gone")
    assert tagged(app, library_id, "dusk") == 0

    # a change from elsewhere (an agent) shows in the open multi-selection, which keeps
    # its picture
    app.pump(lambda: inspector.has_preview, "the selection's picture")
    app.gateway_call("asset.untag", {"libraryId": library_id, "assetIds": keys[3:],
                                     "tags": ["sky"]})
    app.pump(lambda: list(tags.partial_chips()) == ["sky"], "sky partial again")
    app.settle(0.3)
    assert inspector.has_preview

    # a star rates them all; the stars stop being mixed
    inspector.rating._choose(4)
    app.pump(lambda: app.gateway_call("asset.search", {"libraryId": library_id,
                                                       "ratingMin": 4})["total"] == 5,
             "all five rated 4")
    app.pump(lambda: not inspector.rating.mixed and inspector.rating.value == 4,
             "the rating shown for all")
    # the sixth asset, not selected, kept its rating and tags
    other = window.grid.source.cell(5).key  # type: ignore[union-attr]
    stored = app.gateway_call("asset.get", {"libraryId": library_id, "assetIds": [other]})
    assert stored["items"][0]["rating"] == 0 and stored["items"][0]["tags"] == []
