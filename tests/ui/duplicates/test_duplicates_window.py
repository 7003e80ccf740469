"""The duplicates review window on a planted near-duplicate set: it says when nothing was
analysed yet and analyses on request, lists every group (paged through to the last one) with
each member's picture, name, dimensions and size and the suggested keeper marked, keeps what
the person picks, trashes all the others in one asset.trash, and Edit → Undo brings them all
back in one step."""

from __future__ import annotations

from pathlib import Path

import pytest

from serpent_tk.ui.duplicates import review
from serpent_tk.ui.menus.action_table import Target
from tests.library.planted import write
from tests.ui.conftest import App

pytestmark = pytest.mark.gui

GROUPS = 3          # planted groups: an original and its copies each


def trashed(app: App, library_id: str) -> set[str]:
    return {i["id"] for i in app.gateway_call("trash.list", {"libraryId": library_id,
                                                            "limit": 500})["items"]}


def test_review_keep_trash_the_others_and_undo(app: App, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review, "PAGE", 2)       # three groups come in two pages
    app.services.gateway.analysis_feeder.stop()  # imported, not analysed yet (as an old library)
    library_id = app.open_default()
    window = app.window
    planted = write(tmp_path / "planted", groups=GROUPS, decoys=2)
    app.import_images([p.path for p in planted])

    action = next(a for a in window.action_table if a.name == "library.find-duplicates")
    assert action.menu == "Library" and action.accelerator == "Ctrl+Shift+D"
    action.run(Target())
    dup = app.pump(lambda: window.finding.duplicates, "the duplicates window")
    app.pump(lambda: not dup.review.state.loading and dup.analysis.winfo_manager(),
             "the not-analysed note")
    assert dup.review.state.groups == []
    assert f"{len(planted)} assets are not analysed yet" in str(dup.analysis_text.cget("text"))

    dup.analyse_button.invoke()
    assert dup.review.state.analysing
    app.pump(lambda: not dup.review.state.analysing and not dup.review.state.loading and
             dup.cards, "the groups after analysing", timeout=120)
    state = dup.review.state
    assert len(state.groups) == GROUPS == len(dup.cards)        # none dropped between pages
    assert not dup.analysis.winfo_manager()
    names = {str(p.path.stem): p for p in planted}
    size = sum(p.group == "g00" for p in planted)               # resized, cropped, turned ...
    for card in dup.cards:
        group = card.group
        assert len(group.members) == size
        assert {names[m["name"]].group for m in group.members} == {
            names[group.members[0]["name"]].group}              # copies of one picture
        assert group.keep == group.suggested == group.members[0]["assetId"]
        assert names[group.members[0]["name"]].variant == "original"
        accent = dup.theme.palette.accent
        assert card.tiles[group.keep].cget("highlightbackground") == accent
        assert sum(t.cget("highlightbackground") == accent for t in card.tiles.values()) == 1
    first = dup.cards[0]
    assert "480 × 360" in first.facts_text(first.group.keep)
    app.pump(lambda: all(card._photos for card in dup.cards), "the pictures")
    app.shot(tmp_path, "duplicates-window", dup)

    # keep the half-size copy in the first group instead; leave the third group out
    half = next(m["assetId"] for m in first.group.members
                if names[m["name"]].variant == "half")
    first.choose(half)
    assert first.group.keep == half
    assert first.tiles[half].cget("highlightbackground") == dup.theme.palette.accent
    dup.cards[2].check.invoke()
    assert not dup.cards[2].group.included
    expected = set(dup.review.to_trash())
    assert len(expected) == 2 * (size - 1) and half not in expected
    assert f"({len(expected)})" in str(dup.trash_button.cget("text"))

    sent = app.spy_on_commands()
    dup.trash_button.invoke()
    app.pump(lambda: trashed(app, library_id) == expected, "the others in the Trash")
    assert sent.count("asset.trash") == 1                      # one call, one undo step
    app.pump(lambda: not dup.review.state.loading and len(dup.cards) == 1,
             "the review looked again: one group left")
    assert any(f"Moved {len(expected)} assets to the Trash." in t
               for t in window.toasts.texts())

    window.actions.undo()                                       # Edit → Undo
    app.pump(lambda: not trashed(app, library_id), "everything back from the Trash")
    app.pump(lambda: not dup.review.state.loading and len(dup.cards) == GROUPS,
             "the groups back in the review")
    info = app.gateway_call("library.info", {"libraryId": library_id})
    assert (info["assetCount"], info["trashedCount"]) == (len(planted), 0)
    dup.close()
    assert not dup.winfo_exists()


def test_nothing_to_review_says_so(app: App, tmp_path: Path) -> None:
    app.open_default()
    window = app.window
    window.finding.open_duplicates()
    dup = window.finding.duplicates
    assert dup is not None
    app.pump(lambda: not dup.review.state.loading, "the answer")
    assert dup.status_text() == "No images have been analysed yet."
    assert dup.trash_button.instate(["disabled"])
    window.finding.open_duplicates()                 # asked again: the same window, in front
    assert window.finding.duplicates is dup
    dup.close()
