"""Reusable test helpers for anything that drives a real library worker.

Importable by other test packages (`from tests.library.factories import ...`): an image
generator (real JPEG/PNG files Pillow can read), a `call` helper that waits for a worker
future, an event recorder, a read-only folder context manager that works as root too, and
`writes_held` (another connection holds a library's write lock: a write waits, uncommitted).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from library.client import LibraryHost
from library.errors import LibraryError
from library.protocol import CallMeta
from tests.waiting import Deadline

TIMEOUT = 60


def make_image(path: Path, size: tuple[int, int] = (64, 48), *, seed: int = 0,
               fmt: str | None = None) -> Path:
    """A real image with content unique to `seed` (so hashes differ), format from the suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    image = Image.new("RGB", size, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    for _ in range(8):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        image.putpixel((x, y), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    image.save(path, format=fmt)
    return path


def make_images(folder: Path, count: int, *, start: int = 0, size: tuple[int, int] = (64, 48),
                ext: str = "png") -> list[Path]:
    return [make_image(folder / f"image {start + i:04d}.{ext}", size, seed=start + i)
            for i in range(count)]


def make_file(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def call(host: LibraryHost, library_id: str, command: str, args: dict[str, Any] | None = None,
         meta: CallMeta | None = None, *, plan: bool = False) -> dict[str, Any]:
    """Run one command and wait for its result (raises LibraryError on failure)."""
    return host.call(library_id, command, args or {}, meta, plan=plan).result(TIMEOUT)


def call_error(host: LibraryHost, library_id: str, command: str,
               args: dict[str, Any] | None = None, meta: CallMeta | None = None, *,
               plan: bool = False) -> LibraryError:
    """Run a command that must fail; returns its LibraryError."""
    future = host.call(library_id, command, args or {}, meta, plan=plan)
    error = future.exception(TIMEOUT)
    assert isinstance(error, LibraryError), f"expected a LibraryError, got {error!r} " \
        f"(result {None if error else future.result()})"
    return error


class EventLog:
    """Collects `library.events` from a host's reader threads; wait for one with `wait_for`."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._changed = threading.Condition()

    def __call__(self, event: Any) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def of(self, kind: type) -> list[Any]:
        with self._changed:
            return [e for e in self.events if isinstance(e, kind)]

    def wait_for(self, predicate: Callable[[Any], bool], timeout: float = TIMEOUT) -> Any:
        deadline = Deadline(timeout)
        with self._changed:
            while True:
                for event in self.events:
                    if predicate(event):
                        return event
                remaining = deadline.remaining()
                if remaining <= 0:
                    raise AssertionError("the expected event did not arrive")
                self._changed.wait(remaining)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder` read-only for the duration, for a root user too (a read-only bind mount)."""
    if os.geteuid() != 0:
        modes = {}
        for path in [folder, *folder.rglob("*")]:
            modes[path] = path.stat().st_mode
            path.chmod(stat.S_IMODE(modes[path]) & ~0o222)
        try:
            yield
        finally:
            for path, mode in modes.items():
                path.chmod(stat.S_IMODE(mode))
        return
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("running as root without mount(8): cannot make a folder read-only")
    bind = subprocess.run([mount, "--bind", str(folder), str(folder)], capture_output=True)
    if bind.returncode != 0:
        pytest.skip(f"running as root and cannot bind-mount: {bind.stderr.decode().strip()}")
    try:
        remount = subprocess.run([mount, "-o", "remount,bind,ro", str(folder)],
                                 capture_output=True)
        if remount.returncode != 0:
            pytest.skip(f"cannot remount read-only: {remount.stderr.decode().strip()}")
        yield
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)


def stored_files(library_path: Path) -> set[str]:
    """Names of the files in a library's content store."""
    return {p.name for p in (library_path / "files").rglob("*") if p.is_file()}


@contextlib.contextmanager
def writes_held(library: Path) -> Iterator[Callable[[], None]]:
    """Another connection holds the library's write lock: an import copies its files but
    cannot record them until the lock is let go (the returned function; at the latest on
    leaving). Reads go on. What the tests hold a long import with, not its size."""
    blocker = sqlite3.connect(library / "library.sqlite", isolation_level=None, timeout=30)
    blocker.execute("BEGIN IMMEDIATE")
    held = [True]

    def release() -> None:
        if held[0]:
            blocker.execute("ROLLBACK")
            held[0] = False
    try:
        yield release
    finally:
        release()
        blocker.close()
