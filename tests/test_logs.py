from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

from serpent_tk.logs import redact, register_secret, setup_logging


def test_log_file_is_written_and_secrets_are_scrubbed(tmp_path: Path) -> None:
    log_file = setup_logging(tmp_path / "logs")
    secret = "Zq3vX9_kLmNoPqRsTuVwXyZ0123456789abcdefGHIJ"
    register_secret(secret)
    logger = logging.getLogger("serpent.test")
    logger.warning("client used %s", secret)
    logger.warning("Authorization: Bearer abcdefghijklmnop1234")
    logger.warning('payload {"token": "qwertyuiopasdfgh"}')
    try:
        raise ValueError(f"bad token {secret}")
    except ValueError:
        logger.exception("failure")
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text()
    assert "client used [redacted]" in text
    assert secret not in text
    assert "abcdefghijklmnop1234" not in text
    assert "qwertyuiopasdfgh" not in text
    assert "ValueError" in text


def test_redact_leaves_ordinary_text_alone() -> None:
    assert redact("imported 3 assets into My Library") == "imported 3 assets into My Library"


def test_logging_works_without_stdout_or_stderr(tmp_path: Path) -> None:
    """A windowed build has sys.stdout and sys.stderr set to None."""
    code = (
        "import sys, logging; sys.stdout = None; sys.stderr = None\n"
        "from pathlib import Path\n"
        "from serpent_tk.logs import setup_logging\n"
        f"f = setup_logging(Path({str(tmp_path)!r}))\n"
        "logging.getLogger('x').error('windowed ok')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert "windowed ok" in (tmp_path / "serpent.log").read_text()
