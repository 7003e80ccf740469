"""The packaged app for the frozen smoke tests: built once per session (see frozen.py)."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.packaging import frozen
from tests.packaging.frozen import app, read_listening_url, run


@pytest.fixture(scope="session")
def app_folder() -> Path:
    folder = frozen.build_app()
    assert (folder / f"Serpent{frozen.SUFFIX}").is_file(), f"no build in {folder}"
    return folder


@pytest.fixture
def served(app_folder: Path, isolated_user_data: Path) -> Iterator[dict[str, Any]]:
    """`Serpent serve --port 0` from the build, with a full-access credential."""
    created = run(app(app_folder), "credential", "create", "smoke", "--mode", "full-access",
                  "--toolset", "everything")
    assert created.returncode == 0, created.stderr
    from serpent_tk.credentials import CredentialStore
    from serpent_tk.paths import app_dirs

    token = CredentialStore(app_dirs().credentials_file).token_for("smoke")
    process = subprocess.Popen([app(app_folder), "serve", "--port", "0"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        url = read_listening_url(process)
        yield {"url": url, "token": token, "process": process}
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()

