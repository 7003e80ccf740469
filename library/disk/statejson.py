"""Parsing the JSON of a small state file (settings, credentials, endpoint, plugin status,
import keys) so that whatever is in it fails as one `ValueError`, never as a crash.

Thread-safe (pure functions); imported by both processes. `json.loads` raises RecursionError
for `"[" * 200000`, and a value nested a few hundred deep parses but breaks later code that
walks it (pydantic, `repr`); so a document nested deeper than `MAX_DEPTH` is refused too.
No state file of Serpent's nests deeper than 6.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32


class StateFileDamaged(ValueError):
    """The text is not a JSON document a state file can hold; the message says why."""


def loads(text: str | bytes) -> Any:
    """The JSON value of `text` (bytes are read as UTF-8, a BOM allowed), or
    StateFileDamaged: bad UTF-8, bad JSON, numbers too long, nesting too deep."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8-sig")
        value = json.loads(text)
    except RecursionError:
        raise StateFileDamaged("it is nested too deeply") from None
    except MemoryError:
        raise StateFileDamaged("it is too big to read") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, too many digits
        raise StateFileDamaged(_first_line(error)) from None
    if depth_beyond(value, MAX_DEPTH):
        raise StateFileDamaged(f"it is nested deeper than {MAX_DEPTH} levels")
    return value


def depth_beyond(value: Any, limit: int) -> bool:
    """Whether lists and objects in `value` nest deeper than `limit` (no recursion)."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children
                       if isinstance(child, dict | list))
    return False


def _first_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__
