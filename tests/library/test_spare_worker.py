"""A spare worker (`library.spare_worker`): the next library opens in a process that did its
imports already, with the same recovery as a fresh worker; a dead spare is never used; a
crash of a library opened this way gets the full check; shutting the host down ends it.
Real worker subprocesses."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from library.client import LibraryHost
from library.events import WorkerRestarted
from library.spare_worker import SpareWorkers
from tests.library.factories import TIMEOUT, EventLog, call, make_images
from tests.waiting import wait_until


@pytest.fixture
def spares() -> Iterator[SpareWorkers]:
    pool = SpareWorkers(refill_after=0.2)
    try:
        yield pool
    finally:
        pool.shutdown()


@pytest.fixture
def spare_host(events: EventLog, spares: SpareWorkers) -> Iterator[LibraryHost]:
    host = LibraryHost(on_event=events, spares=spares)
    try:
        yield host
    finally:
        host.shutdown()


def made_library(tmp_path: Path, sources: Path, images: int = 3) -> str:
    """A closed library with `images` assets, made by a host of its own."""
    maker = LibraryHost()
    try:
        ref = maker.create(tmp_path, "Spare Test").result(TIMEOUT)
        make_images(sources, images)
        call(maker, ref["libraryId"], "file.import", {"sourcePaths": [str(sources)]})
        maker.close(ref["libraryId"]).result(TIMEOUT)
    finally:
        maker.shutdown()
    return str(ref["path"])


def spare_pid(spares: SpareWorkers) -> int:
    spares.start()
    assert spares.wait_ready(TIMEOUT)
    taken = spares._spare
    assert taken is not None
    return int(taken[0].pid)


def test_the_next_library_opens_in_the_spare_and_a_new_spare_follows(
        spare_host, spares, tmp_path, sources):
    path = made_library(tmp_path, sources)
    pid = spare_pid(spares)
    ref = spare_host.open(path).result(TIMEOUT)
    assert spare_host.worker_pid(ref["libraryId"]) == pid
    assert spare_host.recovery_report(ref["libraryId"])["check"] == "skipped-clean-close"
    assert call(spare_host, ref["libraryId"], "asset.search")["total"] == 3
    assert call(spare_host, ref["libraryId"], "tag.list")["items"] == []
    # the refill: another process, ready too
    wait_until(lambda: spares.wait_ready(0.1), "the refilled spare ready")
    assert spares._spare is not None and spares._spare[0].pid != pid


def test_a_dead_spare_is_passed_over(spare_host, spares, tmp_path, sources):
    path = made_library(tmp_path, sources, images=1)
    pid = spare_pid(spares)
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: spares._spare is not None and not spares._spare[0].is_alive(),
               "the spare dead")
    ref = spare_host.open(path).result(TIMEOUT)
    assert spare_host.worker_pid(ref["libraryId"]) != pid
    assert call(spare_host, ref["libraryId"], "asset.search")["total"] == 1


def test_a_crash_of_a_library_opened_in_the_spare_gets_the_full_check(
        spare_host, spares, events, tmp_path, sources):
    path = made_library(tmp_path, sources, images=2)
    spare_pid(spares)
    ref = spare_host.open(path).result(TIMEOUT)
    os.kill(spare_host.worker_pid(ref["libraryId"]), signal.SIGKILL)
    restarted = events.wait_for(lambda e: isinstance(e, WorkerRestarted))
    assert restarted.recovery["check"] == "integrity_check"
    assert call(spare_host, ref["libraryId"], "asset.search")["total"] == 2


def test_a_library_that_cannot_open_fails_in_the_spare_as_in_a_new_worker(
        spare_host, spares, tmp_path):
    spare_pid(spares)
    with pytest.raises(Exception) as failed:
        spare_host.open(tmp_path / "nothing here.serpent").result(TIMEOUT)
    assert getattr(failed.value, "code", None) == "PATH_NOT_FOUND"


def test_shutting_the_host_down_ends_the_spare(events, tmp_path):
    spares = SpareWorkers(refill_after=60)
    host = LibraryHost(on_event=events, spares=spares)
    pid = spare_pid(spares)
    process = spares._spare[0]  # type: ignore[index]
    host.shutdown()
    assert not process.is_alive()
    spares.start()  # shut: no new spare
    assert spares._spare is None
    assert pid
