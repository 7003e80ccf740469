"""Ids and timestamps of library entities.

Runs in the worker process. Ids are `<prefix>_` + a millisecond time part + randomness, all
lowercase base32, so they sort roughly by creation and match the schemas' id patterns.
Timestamps are fixed-width UTC ISO strings, so they sort as text in SQLite.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lowercase


def _base32(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, digit = divmod(number, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def new_id(prefix: str) -> str:
    """`ast_01j9z3k4m5n6p7q8r9s0t1v2w3`-style id (26 characters after the prefix)."""
    return f"{prefix}_{_base32(time.time_ns() // 1_000_000, 10)}" \
           f"{_base32(secrets.randbits(80), 16)}"


def new_library_id() -> str:
    return f"lib_{_base32(secrets.randbits(80), 16)}"


def utc_now() -> str:
    """Now as `2026-11-29T19:11:52.123456Z` (always microseconds, so text order = time order)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_datetime(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def from_datetime(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
