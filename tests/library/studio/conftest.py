"""Fixtures of the studio tests: two "machines" (two library hosts with their own machine
names, as two computers have) and a studio library made on one and opened on the other, on
the session's real PostgreSQL (tests/postgres)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from library.client import LibraryHost
from tests.library.factories import TIMEOUT, EventLog


@pytest.fixture
def other_events() -> EventLog:
    return EventLog()


@pytest.fixture
def machines(events: EventLog, other_events: EventLog) -> Iterator[tuple[LibraryHost,
                                                                          LibraryHost]]:
    alpha = LibraryHost(on_event=events, machine="alpha")
    beta = LibraryHost(on_event=other_events, machine="beta")
    try:
        yield alpha, beta
    finally:
        alpha.shutdown()
        beta.shutdown()


@pytest.fixture
def studio(machines: tuple[LibraryHost, LibraryHost], tmp_path: Path,
           postgres_database: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """A studio library made on machine alpha and opened on machine beta."""
    alpha, beta = machines
    request.addfinalizer(alpha.shutdown)  # the workers go before their database
    request.addfinalizer(beta.shutdown)
    shared = tmp_path / "shared drive"
    shared.mkdir()
    made = alpha.create(shared, "Refs", database=postgres_database).result(TIMEOUT)
    opened = beta.open(made["path"]).result(TIMEOUT)
    return {"made": made, "opened": opened}
