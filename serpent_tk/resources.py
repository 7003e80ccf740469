"""Finds files shipped with the app (icons, ...) from a source checkout or a frozen build.

Thread-safe (pure functions). The one helper every module uses for bundled resources:
PyInstaller unpacks data under `sys._MEIPASS`; a source checkout has them at the repo root.
"""

from __future__ import annotations

import sys
from pathlib import Path


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def resource_root() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    return Path(__file__).resolve().parent.parent


def resource_path(relative: str) -> Path:
    """`resource_path("icons/serpent-256.png")` -> an existing path or FileNotFoundError."""
    path = resource_root() / relative
    if not path.exists():
        raise FileNotFoundError(f"bundled resource missing: {relative}")
    return path


def icon_path(size: int) -> Path:
    return resource_path(f"icons/serpent-{size}.png")


BRIDGE_EXECUTABLE = "serpent-tk-bridge"


def bridge_command() -> list[str]:
    """The command a stdio-only MCP client runs to reach Serpent (`mcp-bridge`).

    Packaged: the console `serpent-tk-bridge` beside the app executable (it runs
    `mcp-bridge` when given no command; the windowed `Serpent.exe` has no stdin/stdout).
    From source or pip: this Python with `-m serpent_tk mcp-bridge`.
    """
    if is_frozen():
        suffix = ".exe" if sys.platform == "win32" else ""
        return [str(Path(sys.executable).with_name(BRIDGE_EXECUTABLE + suffix))]
    return [sys.executable, "-m", "serpent_tk", "mcp-bridge"]


def cli_command(*args: str) -> list[str]:
    """The command line that runs `serpent-tk ARGS` from this installation, with a console.

    Packaged, that is the console bridge executable (it takes every `serpent-tk` command);
    from source or pip, this Python with `-m serpent_tk`.
    """
    if is_frozen():
        return [*bridge_command(), *args]
    return [sys.executable, "-m", "serpent_tk", *args]
