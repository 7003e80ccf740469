"""Logging set-up: a rotating file in the log dir; every record scrubbed and kept on its line.

Thread-safe. Works in a windowed build where `sys.stdout`/`sys.stderr` are None (the console
handler is only added when a stream exists). Every record passes `RedactSecrets`, which
removes bearer tokens, `token=`/`"token": ...` values and any secret registered with
`register_secret()` (the credential store registers every token it knows), then escapes what
a caller could use to forge or hide log lines: line breaks, NUL, ESC and every other C0/C1
control, Unicode line separators and bidi overrides become `\n`, `\x1b`, `\u2028`...
A record is one line; a traceback follows it on lines that start with `    | `, so no text
a caller controls can start a line that looks like a record (the audit trail included).
"""

from __future__ import annotations

import logging
import logging.handlers
import re
import sys
import threading
from pathlib import Path

LOG_FILE_NAME = "serpent.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUP_COUNT = 5
FORMAT = "%(asctime)s %(levelname)-7s %(process)d %(threadName)s %(name)s: %(message)s"
REDACTED = "[redacted]"
CONTINUATION = "    | "  # starts every traceback line under its record

_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_NAMED_CONTROLS = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_PATTERNS = [
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"),
    re.compile(r"(?i)((?:\"|')?(?:token|authorization|secret)(?:\"|')?\s*[:=]\s*(?:\"|')?)"
               r"[A-Za-z0-9._~+/=-]{8,}"),
]
_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def register_secret(secret: str) -> None:
    """Make sure `secret` never appears in a log line. Thread-safe."""
    if len(secret) >= 8:
        with _secrets_lock:
            _secrets.add(secret)


def redact(text: str) -> str:
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    with _secrets_lock:
        secrets = list(_secrets)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def escape_controls(text: str) -> str:
    """`text` on one line, every control and invisible direction change spelled out."""
    return _CONTROLS.sub(_spelled, text)


def _spelled(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED_CONTROLS.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _continuation(text: str) -> str:
    """A traceback (or stack) under its record: each line escaped and marked."""
    return "\n".join(CONTINUATION + escape_controls(line) for line in text.splitlines())


class RedactSecrets(logging.Filter):
    """Renders the message once, scrubbed and escaped, so no handler ever formats the raw
    arguments. Runs once per record, however many handlers it passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_serpent_clean", False):
            return True
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the record
            message = f"{record.msg!r} {record.args!r}"
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = escape_controls(redact(message)), None
        if record.exc_text:
            record.exc_text = _continuation(redact(record.exc_text))
        if record.stack_info:
            record.stack_info = _continuation(redact(record.stack_info))
        record._serpent_clean = True
        return True


_configured_file: Path | None = None


def setup_logging(log_dir: Path, level: int = logging.INFO, console: bool = True) -> Path:
    """Configure the root logger once per process; returns the log file path."""
    global _configured_file
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = log_dir / LOG_FILE_NAME
    root = logging.getLogger()
    if _configured_file == log_file:
        return log_file
    for handler in list(root.handlers):
        if getattr(handler, "_serpent", False):
            root.removeHandler(handler)
            handler.close()
    redactor = RedactSecrets()
    formatter = logging.Formatter(FORMAT)
    file_handler = logging.handlers.RotatingFileHandler(
        log_file, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8", delay=True)
    handlers: list[logging.Handler] = [file_handler]
    if console and sys.stderr is not None:
        stream = logging.StreamHandler(sys.stderr)
        stream.setLevel(logging.WARNING)
        handlers.append(stream)
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(redactor)
        handler._serpent = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    _configured_file = log_file
    return log_file
