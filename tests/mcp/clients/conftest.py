"""Fixtures for the real AI clients (Claude Code, Gemini CLI, Codex, mcp-remote) against a
running Serpent: a library with one picture, the model stand-in, and a private home folder per
client with its telemetry and update checks off. The clients come from npm with locked
versions (tests/node/<client>/package-lock.json, installed by the README's test command)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.clients.model_api import ModelApi
from tests.mcp.conftest import Server
from tests.mcp.test_ts_client import prepared_library
from tests.nodejs import node_executable

RUN_S = 90  # one client command; a client that waits on a blocked network fails, not hangs
STARTS = 40  # client starts in a row that must never lock the credential out
AT_ONCE = 2
# 40 real starts cost 1-2.5 s of CPU each (Gemini CLI the most): ~1 min on two idle cores,
# several on a machine shared with others; each start keeps its own RUN_S deadline
STARTS_TIMEOUT = pytest.mark.timeout(STARTS * 15)


@pytest.fixture
def library(server: Server, tmp_path: Path) -> dict[str, Any]:
    """A library "Refs" with one picture whose preview is ready: libraryId, assetId."""
    return prepared_library(server, tmp_path)


@pytest.fixture
def model_api() -> Iterator[ModelApi]:
    api = ModelApi()
    yield api
    api.close()


def essentials(server: Server) -> set[str]:
    """The tool names an essentials credential in auto mode sees (a new credential's)."""
    return {spec.tool_name for spec in server.service.catalogue.specs("auto", "essentials")}


def client_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of one client: its own home and XDG folders under `home`, Node on
    PATH, no proxy for 127.0.0.1, and nothing of the real user's configuration."""
    for sub in ("config", "cache", "data", "state"):
        (home / f".{sub}").mkdir(parents=True, exist_ok=True)
    keep = {k: v for k, v in os.environ.items()
            if k in ("LANG", "LC_ALL", "TZ", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP")}
    return {**keep, "HOME": str(home), "USERPROFILE": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".data"), "XDG_STATE_HOME": str(home / ".state"),
            "PATH": os.pathsep.join([str(node_executable().parent), "/usr/bin", "/bin"]),
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "NODE_COMPILE_CACHE": str(home / ".cache" / "node-compile"),  # ~30 % per start
            "CI": "1", "NO_COLOR": "1", "TERM": "dumb", **dict(extra or {})}


def run_client(command: list[str], env: Mapping[str, str], cwd: Path,
               stdin: str | None = None, timeout: float = RUN_S
               ) -> subprocess.CompletedProcess[str]:
    """Run one client command; fails the test (with its output) unless it exits 0."""
    done = subprocess.run(command, env=dict(env), cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (f"{command[:3]} exited {done.returncode}\n"
                                  f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}")
    return done


def start_many(start: Callable[[int], None], count: int, at_once: int = AT_ONCE) -> None:
    """`count` client starts, `at_once` at a time (what the CI's two cores take); each one
    leaves its session behind, as a person's scripted loop would."""
    with ThreadPoolExecutor(at_once) as pool:
        for _ in pool.map(start, range(count)):
            pass


class Stopwatch:
    """How long the client's starts took (printed with -s: the CI budget, never judged)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.started = time.monotonic()

    def report(self, count: int) -> None:
        spent = time.monotonic() - self.started
        print(f"\n{self.what}: {count} in {spent:.1f} s ({spent / max(count, 1):.2f} s each)")
