"""Fixtures for library tests: a real `LibraryHost` (worker subprocesses) and a fresh library.

Every test gets its own host, shut down afterwards, and libraries under its tmp_path.
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


@pytest.fixture
def library(host: LibraryHost, tmp_path: Path) -> dict[str, Any]:
    """A new, open library: its LibraryRef dict (libraryId, name, path)."""
    return host.create(tmp_path / "libraries" if _mk(tmp_path / "libraries") else tmp_path,
                       "Test Library").result(TIMEOUT)


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
