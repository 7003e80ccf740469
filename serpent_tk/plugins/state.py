"""What Settings → Plugins and `serpent-tk plugin list` show about each plugin, and the small
status file through which a running Serpent tells the CLI how its plugins are doing.

Thread-safe (immutable values; the file is written atomically). The status file holds no
secrets: ids, states and error sentences.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from library.disk import statejson
from library.disk.atomicfile import atomic_write_text, read_state_file

Status = Literal["off", "starting", "running", "failed", "broken", "incompatible"]
STATUS_FILE = "plugins-status.json"

SAID: dict[str, str] = {
    "off": "Off",
    "starting": "Starting…",
    "running": "Running",
    "failed": "Turned off after an error",
    "broken": "Cannot run",
    "incompatible": "Made for another Serpent version",
}


@dataclass(frozen=True)
class PluginState:
    id: str
    name: str
    version: str
    description: str
    origin: str  # "built-in", "folder", "entry point"
    location: str
    status: Status
    enabled: bool  # the settings' switch
    exposed: bool  # the settings' switch (its tools are MCP tools while it also runs)
    error: str | None = None  # why it failed, or why it cannot run
    commands: tuple[str, ...] = ()  # `plugin.<id>.<verb>`, from its manifest

    @property
    def status_text(self) -> str:
        return SAID[self.status]

    @property
    def can_enable(self) -> bool:
        return self.status not in ("broken", "incompatible")


def write_status_file(path: Path, states: list[PluginState]) -> None:
    """What a running Serpent reports to `serpent-tk plugin list`."""
    data = {"pid": os.getpid(), "updatedAt": datetime.now(UTC).isoformat(timespec="seconds"),
            "plugins": {s.id: {"status": s.status, "error": s.error} for s in states}}
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")


def read_status_file(path: Path) -> dict[str, Any] | None:
    try:
        data = statejson.loads(read_state_file(path))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("plugins"), dict) else None


def remove_status_file(path: Path, pid: int | None = None) -> None:
    """Remove it when this process wrote it (a clean shutdown)."""
    data = read_status_file(path)
    if data is not None and data.get("pid") == (pid if pid is not None else os.getpid()):
        with contextlib.suppress(OSError):
            path.unlink()


def as_json(state: PluginState) -> dict[str, Any]:
    return asdict(state)
