"""Two Serpents as two machines: `serpent-tk serve --port 0` processes, each with its own user
data folder (so its own machine name, credentials and MCP port), driven over MCP, sharing a
studio library on one PostgreSQL (tests/e2e/test_studio_machines.py)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from serpent_tk.credentials import CredentialStore
from serpent_tk.settings import SettingsStore
from tests.conftest import serpent_command
from tests.mcp.serve_process import LISTENING, stop


@dataclass(frozen=True)
class Machine:
    name: str
    url: str
    token: str
    process: subprocess.Popen[str]
    data: Path

    def worker_pids(self, library_folder: Path) -> list[int]:
        """The library worker(s) of this machine that hold `library_folder` open (its lock
        file in `.machines/`): children of the serve process, found in /proc."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                if parent != self.process.pid:
                    continue
                links = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
            except (OSError, ValueError, IndexError):
                continue
            if any(link.startswith(str(library_folder / ".machines")) for link in links):
                found.append(int(entry.name))
        return found


@contextmanager
def machine(root: Path, name: str, person: str = "") -> Iterator[Machine]:
    """A headless Serpent with its own user data folder under `root`, and a credential that
    sees every tool; `person`: the name in its Settings → General. Stopped with SIGTERM when
    the block ends."""
    data = root / name
    (data / "home").mkdir(parents=True)
    if person:
        SettingsStore(data / "config" / "settings.json").update(
            lambda settings: setattr(settings.ui, "person_name", person))
    token = CredentialStore(data / "config" / "credentials.json").create(
        f"Claude on {name}", "auto", "everything")[1]
    env = {**os.environ, "SERPENT_USER_DATA_PATH": str(data), "HOME": str(data / "home")}
    process = subprocess.Popen(serpent_command("serve", "--port", "0"), env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        found = LISTENING.match(line)
        assert found, f"{name} did not start: {line!r}"
        yield Machine(name, found.group(1), token, process, data)
    finally:
        stop(process)
