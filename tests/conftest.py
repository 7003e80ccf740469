"""Shared fixtures: every test gets its own SERPENT_USER_DATA_PATH and HOME; GUI tests get Xvfb.

Nothing a test does touches the real home folder or the real user data dir.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import PostgresServer, PostgresUnavailable

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def tool_results_match_their_schemas(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Every MCP tool result of the test is valid against its tool's outputSchema (see
    tests/tool_results.py); a test that produced an invalid one fails at teardown."""
    from tests.tool_results import ToolResultChecker

    checker = ToolResultChecker()
    checker.install(monkeypatch)
    yield checker
    if checker.violations:
        shown = "\n  ".join(checker.violations[:20])
        pytest.fail(f"{len(checker.violations)} tool result(s) break their outputSchema:\n"
                    f"  {shown}", pytrace=False)


@pytest.fixture(autouse=True)
def isolated_user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "serpent-user-data"
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("SERPENT_USER_DATA_PATH", str(data))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    return data


@pytest.fixture(scope="session")
def xvfb_display() -> Iterator[str]:
    """A private X display for the whole session (Xvfb), or the existing one on a desktop."""
    if sys.platform != "linux":
        yield os.environ.get("DISPLAY", "")
        return
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb is not installed: run the README's test command, or "
                    "apt install xvfb xauth fonts-dejavu-core")
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten",
         "tcp", "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        number = reader.readline().strip()
    if not number:
        process.kill()
        pytest.fail("Xvfb did not start")
    display = f":{number}"
    previous = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = display
    try:
        yield display
    finally:
        process.terminate()
        process.wait(10)
        if previous is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = previous


@pytest.fixture
def display(xvfb_display: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DISPLAY", xvfb_display)
    return xvfb_display


def serpent_command(*args: str) -> list[str]:
    """The command line of `serpent-tk ARGS` run from this checkout's Python."""
    return [sys.executable, "-m", "serpent_tk", *args]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's real PostgreSQL (tests/postgres), started on first use."""
    try:
        server = PostgresServer.start()
    except PostgresUnavailable as problem:
        pytest.fail(f"the test PostgreSQL could not start: {problem}. Run the README's test "
                    "command (it installs postgresql), or apt install postgresql")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A new, empty database of the session's server: its URI (no password)."""
    uri = postgres_server.new_database()
    try:
        yield uri
    finally:
        postgres_server.drop_database(uri)
