"""Exactly once (issue 25), case by case: what the host does with a write whose worker died
under it (sends it again with its request id; asks only for its outcome after a second
death or a cancel; says the outcome is unknown when no worker comes back), each made to
happen deterministically (a write held at the library's write lock, a task's progress).
The kill test at random points is `test_exactly_once`.
"""

from __future__ import annotations

from pathlib import Path

from library.errors import LibraryError
from library.events import LibraryClosed, TaskProgress
from library.protocol import CallMeta
from tests.library.factories import TIMEOUT, call, make_images, writes_held
from tests.library.store.test_crash import check_library, kill_worker, wait_restarted


def test_a_call_sent_again_with_its_request_id_is_answered_not_run_again(host, library_id,
                                                                        sources):
    """What the host does after a worker died between commit and answer, done by hand."""
    make_images(sources, 3)
    assets = [i["assetId"] for i in call(host, library_id, "file.import",
                                         {"sourcePaths": [str(sources)]})["items"]]
    cases = [("asset.tag", {"assetIds": assets[:1], "tags": ["once"]}, {"tags": ["other"]}),
             ("folder.create", {"name": "Once"}, {"name": "Other"}),
             ("history.undo", {}, {"historyId": 1}),
             ("file.import", {"sourcePaths": [str(sources)]}, {"tags": ["other"]})]
    for number, (name, args, change) in enumerate(cases):
        meta = CallMeta(source="mcp", label="agent", request_id=f"req_test{number}")
        first = call(host, library_id, name, args, meta)
        sequence = call(host, library_id, "library.change-sequence")
        assert call(host, library_id, name, args, meta) == first, name
        assert call(host, library_id, "library.change-sequence") == sequence, name
        refused = host.call(library_id, name, {**args, **change}, meta).exception(TIMEOUT)
        assert isinstance(refused, LibraryError) and refused.code == "INVALID_ARGUMENT", name
    history = call(host, library_id, "history.list")["items"]
    assert [e["command"] for e in history] == ["folder.create", "asset.tag", "file.import"]
    assert [e["undone"] for e in history] == [True, False, False]  # undone once, not twice


def test_a_lookup_answers_the_outcome_and_never_runs_the_call(host, library_id):
    meta = CallMeta(source="ui", label="You", request_id="req_lookup")
    lost = host.call(library_id, "folder.create", {"name": "Never"}, meta,
                     lookup=True).exception(TIMEOUT)
    assert isinstance(lost, LibraryError) and lost.code == "WORKER_UNAVAILABLE"
    assert lost.details["outcome"] == "not-saved" and lost.retryable
    assert call(host, library_id, "folder.list")["items"] == []
    made = call(host, library_id, "folder.create", {"name": "Once"}, meta)
    assert host.call(library_id, "folder.create", {"name": "Once"}, meta,
                     lookup=True).result(TIMEOUT) == made


def test_a_write_in_flight_is_sent_to_the_restarted_worker_and_applied_once(host, library,
                                                                           events, sources):
    """Deterministic: the write waits for the library's write lock, uncommitted, when its
    worker is killed; the host sends it to the next worker, which makes it once."""
    library_id, root = library["libraryId"], Path(library["path"])
    make_images(sources, 1)
    [asset] = [i["assetId"] for i in call(host, library_id, "file.import",
                                          {"sourcePaths": [str(sources)]})["items"]]
    with writes_held(root) as release:
        future = host.call(library_id, "asset.tag", {"assetIds": [asset], "tags": ["once"]})
        kill_worker(host, library_id)
        release()
        result = future.result(TIMEOUT)
    assert wait_restarted(events, 1).resent == 1
    assert result["items"][0]["id"] == asset
    steps = [e for e in call(host, library_id, "history.list")["items"]
             if e["command"] == "asset.tag"]
    assert len(steps) == 1 and steps[0]["summary"] == "Tagged 1 asset with once"


def test_a_write_whose_library_closes_before_its_worker_is_back_says_the_outcome_is_unknown(
        host, library, events, sources):
    """No worker is left to tell whether the write was saved: the answer says so, and how to
    find out; it is not retryable."""
    library_id, root = library["libraryId"], Path(library["path"])
    make_images(sources, 1)
    [asset] = [i["assetId"] for i in call(host, library_id, "file.import",
                                          {"sourcePaths": [str(sources)]})["items"]]
    with writes_held(root) as release:
        future = host.call(library_id, "asset.tag", {"assetIds": [asset], "tags": ["maybe"]})
        kill_worker(host, library_id)
        closing = host.close(library_id)  # before a new worker could be asked
        release()  # nothing can save it now: its worker is dead, no other will get it
        error = future.exception(TIMEOUT)
    closing.result(TIMEOUT)
    assert isinstance(error, LibraryError), error
    assert error.details["outcome"] == "unknown" and not error.retryable
    assert "history.list" in error.message and "idempotencyKey" in error.message
    events.wait_for(lambda e: isinstance(e, LibraryClosed))
    host.open(root).result(TIMEOUT)
    assert [e["command"] for e in call(host, library_id, "history.list")["items"]] == \
        ["file.import"]  # (it had not been saved: the kill came while it waited)


def test_a_task_killed_twice_part_way_says_what_it_saved(host, library, events, sources):
    """The second death while the call was sent again: the host asks only for the outcome.
    An import that stopped part-way twice says so (not retryable as such): what it saved
    stays, once; a retry imports the rest and finds the rest as duplicates."""
    library_id = library["libraryId"]
    make_images(sources, 300, size=(24, 24))
    future = host.call(library_id, "file.import", {"sourcePaths": [str(sources)]})
    events.wait_for(lambda e: isinstance(e, TaskProgress) and e.done >= 140)  # 1 batch saved
    kill_worker(host, library_id)
    assert wait_restarted(events, 1).resent == 1
    seen = len(events.of(TaskProgress))
    events.wait_for(lambda e: isinstance(e, TaskProgress) and
                    events.of(TaskProgress).index(e) >= seen)  # the call runs again
    kill_worker(host, library_id)
    error = future.exception(TIMEOUT)
    assert isinstance(error, LibraryError) and error.code == "WORKER_UNAVAILABLE", error
    assert error.details["outcome"] == "partial" and not error.retryable
    [step] = [e for e in call(host, library_id, "history.list")["items"]
              if e["command"] == "file.import"]
    assert error.details["historyId"] == step["id"] and f"historyId {step['id']}" in error.message
    saved = call(host, library_id, "asset.search", {"limit": 1})["total"]
    assert 0 < saved <= 300
    again = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    assert again["imported"] + again["duplicates"] == 300
    assert call(host, library_id, "asset.search", {"limit": 1})["total"] == 300
    check_library(Path(library["path"]))
    # the retry is a step of its own when it imported something (on a crowded machine the
    # call sent again may have saved every file before the second kill: nothing is left)
    assert len([e for e in call(host, library_id, "history.list")["items"]
                if e["command"] == "file.import"]) == (2 if again["imported"] else 1)
    assert again["imported"] == 300 - saved


def test_a_keyed_task_stopped_part_way_goes_on_with_its_key(host, library, events, sources):
    """The same import killed twice, then sent again with its idempotencyKey: it goes on
    where it stopped, in the same history step, and imports each file once."""
    library_id = library["libraryId"]
    make_images(sources, 300, size=(24, 24))
    meta = CallMeta(source="mcp", label="agent", idempotency_key="import-once")
    args = {"sourcePaths": [str(sources)]}
    future = host.call(library_id, "file.import", args, meta)
    events.wait_for(lambda e: isinstance(e, TaskProgress) and e.done >= 140)
    kill_worker(host, library_id)
    wait_restarted(events, 1)
    seen = len(events.of(TaskProgress))
    events.wait_for(lambda e: isinstance(e, TaskProgress) and
                    events.of(TaskProgress).index(e) >= seen)
    kill_worker(host, library_id)
    error = future.exception(TIMEOUT)
    assert isinstance(error, LibraryError) and error.details["outcome"] == "partial", error
    assert "same idempotencyKey" in error.message
    again = call(host, library_id, "file.import", args, meta)
    assert again["imported"] == 300 and again["duplicates"] == 0
    assert call(host, library_id, "file.import", args, meta) == again  # answered, not run
    [step] = [e for e in call(host, library_id, "history.list")["items"]
              if e["command"] == "file.import"]
    assert step["summary"] == "Imported 300 files"
    check_library(Path(library["path"]))
