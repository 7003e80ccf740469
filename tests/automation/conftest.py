"""Fixtures for the automation tests: a real Gateway over a real LibraryHost and worker.

Every test gets its own user data dir (tests/conftest.py); libraries live in tmp_path.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from PIL import Image

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from tests.waiting import wait_until

T = TypeVar("T")
UI = Caller.ui()
CLAUDE = Caller.mcp("claude", "auto", "Claude Desktop")
READER = Caller.mcp("reader", "read-only", "Reader")
FULL = Caller.mcp("power", "full-access", "Power")
TIMEOUT = 60.0


def call(gateway: Gateway, name: str, args: dict[str, Any] | None = None,
         caller: Caller = UI) -> dict[str, Any]:
    return gateway.submit(name, {} if args is None else args, caller).result(TIMEOUT)


def ok(gateway: Gateway, name: str, args: dict[str, Any] | None = None,
       caller: Caller = UI) -> dict[str, Any]:
    answer = call(gateway, name, args, caller)
    assert answer["status"] == "ok", answer
    result: dict[str, Any] = answer["result"]
    return result


def code(answer: dict[str, Any]) -> str | None:
    return answer["error"]["code"] if answer["status"] == "error" else None


class Recorder:
    """Every gateway event, in order; waits for one without sleeping blindly."""

    def __init__(self, gateway: Gateway) -> None:
        self.events: list[object] = []
        self._changed = threading.Condition()
        self.unsubscribe = gateway.subscribe(self._on_event)

    def _on_event(self, event: object) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def of(self, kind: type[T]) -> list[T]:
        with self._changed:
            return [e for e in self.events if isinstance(e, kind)]

    def wait_for(self, kind: type[T], match: Callable[[T], bool] = lambda _e: True,
                 timeout: float = TIMEOUT) -> T:
        found: list[T] = []

        def seen() -> bool:
            found[:] = [e for e in self.events if isinstance(e, kind) and match(e)]
            return bool(found)

        with self._changed:
            if not self._changed.wait_for(seen, timeout):
                raise AssertionError(f"no {kind.__name__} event arrived; got {self.events}")
        return found[0]


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    gw = Gateway(SettingsStore(app_dirs().settings_file), strict_outputs=True)
    try:
        yield gw
    finally:
        gw.shutdown()


@pytest.fixture
def recorder(gateway: Gateway) -> Recorder:
    return Recorder(gateway)


@pytest.fixture
def library(gateway: Gateway, tmp_path: Path) -> str:
    parent = tmp_path / "libraries"
    parent.mkdir()
    result = ok(gateway, "library.create", {"selectedParentPath": str(parent),
                                            "name": "Moodboards"})
    library_id: str = result["libraryId"]
    return library_id


def make_images(folder: Path, count: int, prefix: str = "img") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"{prefix}-{index}.png"
        Image.new("RGB", (16 + index, 12), (index * 40 % 256, 90, 200)).save(path)
        paths.append(path)
    return paths


def import_images(gateway: Gateway, library_id: str, folder: Path, count: int = 3,
                  caller: Caller = UI, prefix: str = "img") -> list[str]:
    """Import `count` new images and wait until the analysis queued after the import has
    run (it writes to the library too: the tests then see a quiet library)."""
    before = analysis_tasks(gateway, library_id)
    paths = make_images(folder, count, prefix)
    result = ok(gateway, "file.import", {"libraryId": library_id,
                                         "sourcePaths": [str(p) for p in paths]}, caller)
    ids = [item["assetId"] for item in result["items"] if item["status"] == "imported"]
    assert len(ids) == count, result
    if ids and gateway.analysis_feeder.enabled:
        wait_until(lambda: analysis_tasks(gateway, library_id, finished=True) > before,
                   "the import's analysis to finish", TIMEOUT)
    return ids


def analysis_tasks(gateway: Gateway, library_id: str, *, finished: bool = False) -> int:
    """How many analysis tasks the library has (0 while any task is still busy, if
    `finished`)."""
    tasks = ok(gateway, "task.list", {"libraryId": library_id, "limit": 500})["items"]
    if finished and any(t["status"] in ("queued", "running") for t in tasks):
        return 0
    return sum(1 for t in tasks if t["kind"] == "analysis")
