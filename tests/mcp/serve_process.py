"""`serpent-tk serve --port 0` as a real process, for the tests that start Serpent while a
client is already connected (and for the real clients). Its state is the test's own
SERPENT_USER_DATA_PATH (tests/conftest.py); the endpoint file it publishes is how the bridge
finds it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tests.conftest import serpent_command

LISTENING = re.compile(r"^MCP server listening on (http://127\.0\.0\.1:(\d+)/mcp)$")
STOP_S = 30


@dataclass(frozen=True)
class Served:
    url: str
    port: int
    process: subprocess.Popen[str]


@contextmanager
def serving() -> Iterator[Served]:
    """A headless Serpent until the block ends (stopped with SIGTERM, as a person would)."""
    process = subprocess.Popen(serpent_command("serve", "--port", "0"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline().strip()  # the first line, once it listens
        match = LISTENING.match(line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        yield Served(match.group(1), int(match.group(2)), process)
    finally:
        stop(process)


def stop(process: subprocess.Popen[str]) -> None:
    """End a `serve` as a person would (SIGTERM; killed if it has not stopped in `STOP_S`)
    and close its pipes."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM if os.name == "posix" else signal.SIGINT)
        try:
            process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_S)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()
