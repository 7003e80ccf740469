"""Undo per person on a studio library: two machines (two library hosts with their own
machine names) and two people at their windows, plus an AI client. Undo takes back the
caller's own last change even when others changed other things since, and answers
HISTORY_CONFLICT naming the entities, changing nothing, when someone else changed the same
ones since; redo likewise; a new change clears only its caller's redo. A window's change
reads "You" on its own machine and the person's name on the other. A local library keeps
one undo for everyone (its last change, whoever made it)."""

from __future__ import annotations

from typing import Any

from library.client import LibraryHost
from library.errors import HISTORY_CONFLICT, HISTORY_EMPTY
from library.events import LibraryChanged
from library.protocol import CallMeta
from tests.library.factories import EventLog, call, call_error, make_images

ANNA = CallMeta(source="ui", label="You", person="Anna")  # her window, on alpha
BEN = CallMeta(source="ui", label="You", person="Ben")  # his window, on beta
ANNAS_CLAUDE = CallMeta(source="mcp", credential="Claude", label="Anna's Claude via MCP",
                        person="Anna")  # on alpha


def asset(host: LibraryHost, library_id: str, asset_id: str) -> dict[str, Any]:
    return call(host, library_id, "asset.get", {"assetIds": [asset_id]})["items"][0]


def tags(host: LibraryHost, library_id: str, asset_id: str) -> list[str]:
    return sorted(asset(host, library_id, asset_id)["tags"])


def test_undo_takes_back_your_own_change_and_conflicts_on_what_others_changed(
        studio, machines, sources):
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 2)
    one, two = (i["assetId"] for i in call(alpha, library_id, "file.import",
                                            {"sourcePaths": [str(sources)]}, ANNA)["items"])
    call(alpha, library_id, "asset.tag", {"assetIds": [one], "tags": ["anna"]}, ANNA)
    call(beta, library_id, "asset.tag", {"assetIds": [two], "tags": ["ben"]}, BEN)

    # Anna's undo takes back her tag, not Ben's newer one; both machines see it so
    step = call(alpha, library_id, "history.undo", {}, ANNA)["entry"]
    assert (step["command"], step["undone"]) == ("asset.tag", True)
    assert step["actor"]["person"] == "Anna" and step["actor"]["label"] == "You"
    for host in (alpha, beta):
        assert (tags(host, library_id, one), tags(host, library_id, two)) == ([], ["ben"])
    # her AI client has nothing of its own to undo, nor has Ben anything to redo
    assert call_error(alpha, library_id, "history.undo", {}, ANNAS_CLAUDE).code == \
        HISTORY_EMPTY
    assert not call(alpha, library_id, "history.list", {}, ANNAS_CLAUDE)["canUndo"]
    assert call_error(beta, library_id, "history.redo", {}, BEN).code == HISTORY_EMPTY
    assert call(alpha, library_id, "history.list", {}, ANNA)["canRedo"]

    # Ben then changes asset one: Anna's redo would overwrite it, so it is refused whole
    call(beta, library_id, "asset.update", {"assetId": one, "rating": 4}, BEN)
    error = call_error(alpha, library_id, "history.redo", {}, ANNA)
    assert error.code == HISTORY_CONFLICT and error.details["entityIds"] == [one]
    assert error.details["changedBy"] == ["Ben"] and "by Ben" in error.message
    after = asset(alpha, library_id, one)
    assert (after["tags"], after["rating"]) == ([], 4)  # nothing changed
    # once Ben took his change back, Anna's redo fits again
    call(beta, library_id, "history.undo", {}, BEN)
    call(alpha, library_id, "history.redo", {}, ANNA)
    assert (tags(beta, library_id, one), asset(beta, library_id, one)["rating"]) == (
        ["anna"], 0)

    # the same for undo: Ben tags asset one too, so Anna's tag cannot be undone any more
    call(beta, library_id, "asset.tag", {"assetIds": [one], "tags": ["ben"]}, BEN)
    error = call_error(alpha, library_id, "history.undo", {}, ANNA)
    assert error.code == HISTORY_CONFLICT and error.details["entityIds"] == [one]
    assert tags(alpha, library_id, one) == ["anna", "ben"]


def test_a_new_change_clears_only_its_callers_redo(studio, machines, sources):
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 2)
    one, two = (i["assetId"] for i in call(alpha, library_id, "file.import",
                                            {"sourcePaths": [str(sources)]}, ANNA)["items"])
    call(alpha, library_id, "asset.update", {"assetId": one, "rating": 2}, ANNA)
    call(beta, library_id, "asset.update", {"assetId": two, "rating": 3}, BEN)
    call(alpha, library_id, "history.undo", {}, ANNA)
    call(beta, library_id, "history.undo", {}, BEN)
    call(beta, library_id, "asset.update", {"assetId": two, "rating": 5}, BEN)  # Ben's new
    assert call_error(beta, library_id, "history.redo", {}, BEN).code == HISTORY_EMPTY
    call(alpha, library_id, "history.redo", {}, ANNA)  # Anna's redo is still there
    assert asset(beta, library_id, one)["rating"] == 2


def test_who_changed_it_reads_you_at_home_and_the_persons_name_elsewhere(
        studio, machines, events: EventLog, sources):
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 1)
    (one,) = (i["assetId"] for i in call(alpha, library_id, "file.import",
                                          {"sourcePaths": [str(sources)]}, ANNA)["items"])
    call(beta, library_id, "asset.tag", {"assetIds": [one], "tags": ["ben"]}, BEN)
    heard = events.wait_for(lambda e: isinstance(e, LibraryChanged)
                            and e.command == "asset.tag")  # on alpha, from beta
    assert heard.actor.label == "Ben"
    on_alpha = call(alpha, library_id, "history.list", {}, ANNA)["items"][0]
    on_beta = call(beta, library_id, "history.list", {}, BEN)["items"][0]
    assert on_alpha["actor"] == {"source": "ui", "credential": None, "label": "Ben",
                                 "person": "Ben", "machine": "beta"}
    assert on_beta["actor"]["label"] == "You"
    assert asset(alpha, library_id, one)["modifiedBy"]["label"] == "Ben"
    assert asset(beta, library_id, one)["modifiedBy"]["label"] == "You"
    assert asset(beta, library_id, one)["addedBy"]["label"] == "Anna"


def test_a_local_library_keeps_one_undo_for_everyone(host, library_id, sources):
    make_images(sources, 1)
    (one,) = (i["assetId"] for i in call(host, library_id, "file.import",
                                          {"sourcePaths": [str(sources)]}, ANNA)["items"])
    call(host, library_id, "asset.tag", {"assetIds": [one], "tags": ["claude"]}, ANNAS_CLAUDE)
    step = call(host, library_id, "history.undo", {}, ANNA)["entry"]  # Claude's change
    assert step["actor"] == {"source": "mcp", "credential": "Claude",
                             "label": "Anna's Claude via MCP", "person": "Anna"}
    assert call(host, library_id, "history.list", {}, ANNAS_CLAUDE)["canRedo"]


def test_a_step_named_by_id_is_undone_when_it_is_the_latest_of_whoever_made_it(
        studio, machines, sources):
    alpha, beta = machines
    library_id = studio["made"]["libraryId"]
    make_images(sources, 2)
    one, two = (i["assetId"] for i in call(alpha, library_id, "file.import",
                                            {"sourcePaths": [str(sources)]}, ANNA)["items"])
    call(alpha, library_id, "asset.tag", {"assetIds": [one], "tags": ["first"]}, ANNAS_CLAUDE)
    call(alpha, library_id, "asset.tag", {"assetIds": [one], "tags": ["second"]}, ANNAS_CLAUDE)
    call(beta, library_id, "asset.tag", {"assetIds": [two], "tags": ["ben"]}, BEN)
    first, second = sorted(e["id"] for e in call(alpha, library_id, "history.list", {}, ANNA)[
        "items"] if e["actor"]["source"] == "mcp")
    # not the latest of Claude's: refused, nothing changed
    error = call_error(alpha, library_id, "history.undo", {"historyId": first}, ANNA)
    assert error.code == HISTORY_CONFLICT and error.details["historyId"] == second
    # Claude's latest, undone from Anna's window (its toast's Undo), Ben's newer one kept
    step = call(alpha, library_id, "history.undo", {"historyId": second}, ANNA)["entry"]
    assert step["id"] == second
    assert (tags(beta, library_id, one), tags(beta, library_id, two)) == (["first"], ["ben"])
