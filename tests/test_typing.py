"""The code stays as docs/style.md asks: the boundaries between the parts fully typed (mypy
--strict on the protocol, the client, the command schemas, the automation gateway, the MCP
layer and the stores of settings and credentials), and the whole tree lint-clean (ruff)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TYPED = ["library/protocol.py", "library/errors.py", "library/events.py", "library/client.py",
         "library/catalogue.py", "library/library_folder.py", "library/disk",
         "library/worker_handle.py",
         "library/schemas", "serpent_tk/automation", "serpent_tk/mcp",
         "serpent_tk/credentials.py", "serpent_tk/settings.py", "serpent_tk/paths.py",
         "serpent_tk/plugins"]


def test_the_boundaries_pass_mypy_strict(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary", *TYPED],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_tree_is_lint_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
