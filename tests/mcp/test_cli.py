"""`serpent-tk serve` and `serpent-tk credential` as real processes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.endpoint import endpoint_file
from serpent_tk.paths import app_dirs
from tests.conftest import serpent_command
from tests.mcp.conftest import connect, ok, run
from tests.waiting import Deadline, wait_until

LISTENING = re.compile(r"^MCP server listening on (http://127\.0\.0\.1:(\d+)/mcp)$")


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(serpent_command(*args), capture_output=True, text=True, timeout=60,
                          check=check)


def test_credential_commands() -> None:
    created = cli("credential", "create", "Claude Desktop", "--mode", "read-only")
    token = created.stdout.strip().splitlines()[-1]
    store = CredentialStore(app_dirs().credentials_file)
    assert store.verify(token).mode == "read-only"  # type: ignore[union-attr]
    listed = cli("credential", "list").stdout
    assert "Claude Desktop" in listed and "read-only" in listed and token not in listed
    assert cli("credential", "mode", "Claude Desktop", "auto").returncode == 0
    assert store.verify(token).mode == "auto"  # type: ignore[union-attr]
    duplicate = cli("credential", "create", "claude desktop", check=False)
    assert duplicate.returncode == 1 and "already exists" in duplicate.stderr
    assert cli("credential", "revoke", "Claude Desktop").returncode == 0
    assert store.verify(token) is None
    missing = cli("credential", "revoke", "Claude Desktop", check=False)
    assert missing.returncode == 1 and "No credential" in missing.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_serve_runs_headless_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    token = CredentialStore(app_dirs().ensure().credentials_file).create("Headless")[1]
    process = subprocess.Popen(serpent_command("serve", "--port", "0"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        match = LISTENING.match(line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        url = match.group(1)
        assert endpoint_file().exists()

        async def use() -> list[str]:
            async with connect(url, token, "legacy") as client:
                listed = await ok(client, "serpent_library_list_open")
                return [item["name"] for item in listed["items"]]

        assert run(use()) == ["My Library"]  # the default library, created on first run
        assert app_dirs().default_library.is_dir()
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert not endpoint_file().exists()


def test_serve_refuses_a_taken_port_with_its_number() -> None:
    import socket

    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        done = cli("serve", "--port", str(port), check=False)
    assert done.returncode == 1
    assert f"Port {port}" in done.stderr and "already in use" in done.stderr


def first_answer_after_publishing(token: str, timeout: float = 60.0) -> list[str]:
    """Wait for the endpoint file, then make the very first MCP request: list-open."""
    from serpent_tk.mcp.endpoint import accepting, read_endpoint

    deadline = Deadline(timeout)
    endpoint = wait_until(read_endpoint, "Serpent to publish its endpoint", timeout,
                          interval=0.01)
    wait_until(lambda: accepting(endpoint.port, timeout=0.05),  # published just before it listens
               "Serpent to listen on the port it published", deadline.remaining(), interval=0)

    async def first_request() -> list[str]:
        async with connect(endpoint.url, token, "auto") as client:
            listed = await ok(client, "serpent_library_list_open")
            return [item["name"] for item in listed["items"]]

    return run(first_request())


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_serve_accepts_mcp_only_once_the_library_it_reopens_is_open() -> None:
    token = CredentialStore(app_dirs().ensure().credentials_file).create("Agent")[1]
    for _start in ("creates My Library", "reopens it"):
        process = subprocess.Popen(serpent_command("serve", "--port", "0"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert first_answer_after_publishing(token) == ["My Library"]
            os.kill(process.pid, signal.SIGTERM)
            assert process.wait(30) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
            if process.stderr is not None:
                process.stderr.close()
        assert not endpoint_file().exists()
