"""Fixtures for library tests: a real `LibraryHost` (worker subprocesses) and a fresh library.

Every test gets its own host, shut down afterwards, and libraries under its tmp_path. A
module marked `both_kinds` (`pytestmark = pytest.mark.both_kinds`) runs each of its tests
on both kinds of library: a local one (SQLite) and a studio one (PostgreSQL, a fresh
database of the session's server, tests/postgres): the same `library` fixture,
parametrised by `library_kind`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from library.client import LibraryHost
from tests.library.factories import TIMEOUT, EventLog


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def host(events: EventLog) -> Iterator[LibraryHost]:
    library_host = LibraryHost(on_event=events)
    try:
        yield library_host
    finally:
        library_host.shutdown()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_kinds") and \
            "library_kind" in metafunc.fixturenames:
        metafunc.parametrize("library_kind", ["local", "studio"], indirect=True)


@pytest.fixture
def library_kind(request: pytest.FixtureRequest) -> str:
    """"local" (SQLite), or "studio" (PostgreSQL) in a `both_kinds` module."""
    return str(getattr(request, "param", "local"))


@pytest.fixture
def library(host: LibraryHost, tmp_path: Path, library_kind: str,
            request: pytest.FixtureRequest) -> dict[str, Any]:
    """A new, open library: its LibraryRef dict (libraryId, name, path)."""
    parent = tmp_path / "libraries" if _mk(tmp_path / "libraries") else tmp_path
    database = None
    if library_kind == "studio":
        database = request.getfixturevalue("postgres_database")
        request.addfinalizer(host.shutdown)  # the workers go before their database
    return host.create(parent, "Test Library", database=database).result(TIMEOUT)


@pytest.fixture
def library_id(library: dict[str, Any]) -> str:
    return str(library["libraryId"])


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    folder = tmp_path / "sources"
    folder.mkdir()
    return folder


def _mk(path: Path) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    return True
