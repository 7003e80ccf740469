"""Lock files keep other processes out, wait a bounded time, and die with their holder."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import portalocker
import pytest

from library.disk.locks import LockBusy, lock_now, locked, unlock

HOLD = """
import sys
from library.disk.locks import lock_now
handle = open(sys.argv[1], "a")
lock_now(handle)
print("held", flush=True)
sys.stdin.read()
"""


def test_a_held_lock_file_makes_the_next_one_wait_then_say_busy(tmp_path: Path) -> None:
    path = tmp_path / "settings.json.lock"
    with locked(path, timeout=1):
        started = time.monotonic()
        with pytest.raises(LockBusy, match="still locked"), locked(path, timeout=0.2):
            pass
        assert time.monotonic() - started >= 0.2
    with locked(path, timeout=0):  # given back at the end of the block
        pass


def test_portalockers_lock_and_ours_keep_each_other_out(tmp_path: Path) -> None:
    """A Serpent that still locks with portalocker and one that does not share files."""
    path = tmp_path / "credentials.json.lock"
    with (portalocker.Lock(path, mode="a", timeout=1), pytest.raises(LockBusy),
          locked(path, timeout=0)):
        pass
    with (locked(path, timeout=0), pytest.raises(portalocker.LockException),
          portalocker.Lock(path, mode="a", timeout=0)):
        pass


def test_a_lock_is_given_back_by_unlock_and_when_its_process_dies(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with open(path, "a") as first, open(path, "a") as second:
        lock_now(first)
        with pytest.raises(LockBusy):
            lock_now(second)
        unlock(first)
        lock_now(second)
    with subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(LockBusy), locked(path, timeout=0):
                pass
        finally:
            holder.kill()
    with locked(path, timeout=5):  # the OS let go when the holder was killed
        pass
