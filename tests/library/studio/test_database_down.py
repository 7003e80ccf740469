"""A studio library whose PostgreSQL server is down when it opens, or when its worker starts
again after a crash (docs/studio.md "When the server is down"): it opens all the same, every
call answers DATABASE_UNAVAILABLE (retryable, naming the server), and it connects by itself
once the server is back; the writes a killed worker had in flight are then made, once.
Real workers on two "machines" (two hosts) and a real PostgreSQL of this module's own
(tests/postgres: it is stopped and started again)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from library.client import LibraryHost
from library.errors import DATABASE_UNAVAILABLE, LibraryError
from library.events import DatabaseStatus, LibraryClosed, WorkerRestarted
from tests.library.factories import TIMEOUT, EventLog, call, call_error
from tests.postgres import PostgresServer
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    """A server of this module's own: its tests stop it (each starts it again)."""
    own = PostgresServer.start()
    try:
        yield own
    finally:
        own.stop()


@pytest.fixture
def outage(server: PostgresServer) -> Iterator[PostgresServer]:
    """The server, started again at the end of the test if the test left it down."""
    down = {"now": False}
    stop, start = server.outage, server.back

    def stopping() -> None:
        stop()
        down["now"] = True

    def starting() -> None:
        start()
        down["now"] = False

    server.outage, server.back = stopping, starting  # type: ignore[method-assign]
    try:
        yield server
    finally:
        server.outage, server.back = stop, start  # type: ignore[method-assign]
        if down["now"]:
            start()


@pytest.fixture
def other_events() -> EventLog:
    return EventLog()


@pytest.fixture
def alpha(events: EventLog) -> Iterator[LibraryHost]:
    host = LibraryHost(on_event=events, machine="alpha")
    try:
        yield host
    finally:
        host.shutdown()


@pytest.fixture
def beta(other_events: EventLog) -> Iterator[LibraryHost]:
    host = LibraryHost(on_event=other_events, machine="beta")
    try:
        yield host
    finally:
        host.shutdown()


def made(host: LibraryHost, outage: PostgresServer, tmp_path: Path) -> dict[str, Any]:
    shared = tmp_path / "shared drive"
    shared.mkdir()
    return host.create(shared, "Refs", database=outage.new_database("down")).result(TIMEOUT)


def unavailable(host: LibraryHost, library_id: str, command: str,
                args: dict[str, Any] | None = None) -> LibraryError:
    error = call_error(host, library_id, command, args)
    assert error.code == DATABASE_UNAVAILABLE and error.retryable, error
    return error


def until_ok(host: LibraryHost, library_id: str, command: str,
             args: dict[str, Any] | None = None) -> dict[str, Any]:
    """The call's answer once the host reconnected (DATABASE_UNAVAILABLE until then)."""
    def answered() -> dict[str, Any] | None:
        try:
            return call(host, library_id, command, args)
        except LibraryError as error:
            assert error.code == DATABASE_UNAVAILABLE, error
            return None
    return wait_until(answered, f"{command} answered once the server is back")


def test_opened_while_the_server_is_down_it_connects_by_itself_once_it_is_back(
        alpha: LibraryHost, events: EventLog, outage: PostgresServer,
        tmp_path: Path) -> None:
    library = made(alpha, outage, tmp_path)
    library_id = library["libraryId"]
    call(alpha, library_id, "folder.create", {"name": "Before"})
    alpha.close(library_id).result(TIMEOUT)
    events.wait_for(lambda e: isinstance(e, LibraryClosed))
    closed_before = len(events.events)

    outage.outage()
    ref = alpha.open(library["path"]).result(TIMEOUT)
    # open all the same: the same library, listed, its id from the folder's studio.json
    assert ref == {**library, "open": True}
    assert alpha.list_open() == [ref]
    assert alpha.open(library["path"]).result(TIMEOUT) == ref  # opened once
    away = events.wait_for(lambda e: isinstance(e, DatabaseStatus) and not e.reachable)
    server = f"127.0.0.1:{outage.port}/{_database(library)}"
    assert away.library_id == library_id and server in away.message
    for command, args in (("folder.list", {}), ("folder.create", {"name": "While down"}),
                          ("library.info", {})):
        error = unavailable(alpha, library_id, command, args)
        assert server in error.message and "nothing was changed" in error.message

    outage.back()
    events.wait_for(lambda e: isinstance(e, DatabaseStatus) and e.reachable)
    assert [f["name"] for f in call(alpha, library_id, "folder.list")["items"]] == ["Before"]
    call(alpha, library_id, "folder.create", {"name": "After"})
    assert call(alpha, library_id, "library.info")["name"] == "Refs"
    assert not [e for e in events.events[closed_before:] if isinstance(e, LibraryClosed)]


def test_made_while_the_server_is_down_nothing_is_made(alpha: LibraryHost,
                                                      outage: PostgresServer,
                                                      tmp_path: Path) -> None:
    uri = outage.new_database("never")
    shared = tmp_path / "shared drive"
    shared.mkdir()
    outage.outage()
    with pytest.raises(LibraryError) as refused:
        alpha.create(shared, "Refs", database=uri).result(TIMEOUT)
    assert refused.value.code == DATABASE_UNAVAILABLE and refused.value.retryable
    assert f"127.0.0.1:{outage.port}/{uri.rsplit('/', 1)[1]}" in refused.value.message
    assert list(shared.iterdir()) == [] and alpha.list_open() == []
    outage.back()
    assert alpha.create(shared, "Refs", database=uri).result(TIMEOUT)["name"] == "Refs"


def test_closed_while_it_waits_for_the_server(alpha: LibraryHost, outage: PostgresServer,
                                              tmp_path: Path) -> None:
    library = made(alpha, outage, tmp_path)
    library_id = library["libraryId"]
    alpha.close(library_id).result(TIMEOUT)
    outage.outage()
    alpha.open(library["path"]).result(TIMEOUT)
    alpha.close(library_id).result(TIMEOUT)  # its waiting worker stops, letting go
    assert alpha.list_open() == []
    outage.back()
    assert alpha.open(library["path"]).result(TIMEOUT)["libraryId"] == library_id
    assert call(alpha, library_id, "folder.list")["items"] == []


def test_a_worker_killed_while_the_server_is_down_waits_and_makes_its_write_once(
        alpha: LibraryHost, beta: LibraryHost, events: EventLog, other_events: EventLog,
        outage: PostgresServer, tmp_path: Path) -> None:
    """Machine alpha's worker is inside a write (held at its commit) when the server goes
    down and the worker is killed (kill -9). The restarted worker cannot connect: it waits,
    calls answer DATABASE_UNAVAILABLE, the library stays open. Once the server is back the
    write it had in flight is made, once, and machine beta carries on too."""
    library = made(alpha, outage, tmp_path)
    library_id = library["libraryId"]
    assert beta.open(library["path"]).result(TIMEOUT)["libraryId"] == library_id
    uri = _uri(library)
    spy = psycopg.connect(uri)  # holds alpha at its commit, inside its transaction
    try:
        spy.execute("SELECT * FROM library_state FOR UPDATE")
        pending = alpha.call(library_id, "folder.create", {"name": "Sent again"})
        wait_until(lambda: spy.execute(
            "SELECT 1 FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid WHERE "
            "l.locktype = 'advisory' AND l.granted AND s.application_name = "
            "'Serpent alpha' AND s.wait_event_type = 'Lock'").fetchone(),
                   "alpha inside its write")
        killed = alpha.worker_pid(library_id) or 0
        os.kill(killed, signal.SIGSTOP)  # frozen inside its write while the server goes
        outage.outage()
        os.kill(killed, signal.SIGKILL)
    finally:
        with contextlib.suppress(psycopg.Error):
            spy.close()

    away = events.wait_for(lambda e: isinstance(e, DatabaseStatus) and not e.reachable
                           and alpha.worker_pid(library_id) != killed)
    assert away.library_id == library_id
    unavailable(alpha, library_id, "folder.list")
    unavailable(alpha, library_id, "folder.create", {"name": "Not while down"})
    assert not pending.done()  # it waits for a worker that can tell what became of it
    assert [ref["libraryId"] for ref in alpha.list_open()] == [library_id]

    outage.back()
    assert pending.result(TIMEOUT)["name"] == "Sent again"
    restarted = events.wait_for(lambda e: isinstance(e, WorkerRestarted))
    assert restarted.resent == 1
    names = until_ok(beta, library_id, "folder.list")
    assert [f["name"] for f in names["items"]] == ["Sent again"]  # made once
    assert until_ok(beta, library_id, "folder.create", {"name": "Beta after"})
    assert sorted(f["name"] for f in call(alpha, library_id, "folder.list")["items"]) == \
        ["Beta after", "Sent again"]
    assert not [e for e in events.events + other_events.events
                if isinstance(e, LibraryClosed)]


def _uri(library: dict[str, Any]) -> str:
    import json

    return str(json.loads((Path(library["path"]) / "studio.json").read_text())["database"])


def _database(library: dict[str, Any]) -> str:
    return _uri(library).rsplit("/", 1)[1]
