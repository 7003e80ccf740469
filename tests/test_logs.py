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


def test_every_record_stays_on_its_line_whatever_it_carries(tmp_path: Path) -> None:
    """Line breaks, NUL, ESC, C1 controls, Unicode separators and bidi overrides in a record's
    arguments or its exception are spelled out; a traceback's lines are marked as such."""
    log_file = setup_logging(tmp_path / "logs")
    logger = logging.getLogger("serpent.test")
    forged = "x\n2026-01-01 00:00:00,000 INFO    1 MainThread serpent.audit: call forged"
    logger.warning("library %s and %r", forged, "\x00\x1b[2J\x85\u2028\u202e\r")
    try:
        raise ValueError(forged)
    except ValueError:
        logger.exception("failed with %s", "\x1b]0;title\x07")
    for handler in logging.getLogger().handlers:
        handler.flush()
    raw = log_file.read_bytes()
    assert not any(byte in raw for byte in (b"\x00", b"\x1b", b"\x07", b"\r"))
    lines = raw.decode("utf-8").splitlines()
    records = [line for line in lines if not line.startswith("    | ")]
    assert len(records) == 2, lines
    assert all(line[:4].isdigit() for line in records)
    assert "\\n2026-01-01" in records[0] and "\\x1b[2J" in records[0] and "\\u202e" in records[0]
    continuation = [line for line in lines if line.startswith("    | ")]
    assert continuation[0] == "    | Traceback (most recent call last):"
    assert any("ValueError: x" in line for line in continuation)
    assert any("2026-01-01 00:00:00,000" in line for line in continuation)  # under the mark
