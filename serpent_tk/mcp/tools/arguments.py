"""What the MCP layer checks in a tool call's arguments before the gateway sees them: how deep
they nest, and whether a `cursor` was made for these very arguments.

Thread-safe (pure functions). Every `nextCursor` an MCP answer gives carries a tag of the
other arguments of the call that made it (`~` and a hash of them, without `cursor`, `limit`,
`idempotencyKey` and `confirmChallenge`, which may change from page to page). A cursor sent
back with other arguments is refused with `INVALID_ARGUMENT`, so an import of new files can
never be answered with the rest of an older import, nor a search with new filters with a
page of the old one. A cursor without a tag (the gateway's own, from the CLI) passes as it
is: the command behind it checks what it can.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from library.errors import INVALID_ARGUMENT
from serpent_tk.automation.envelope import ErrorBody, ErrorEnvelope

MAX_DEPTH = 32  # levels one argument may nest (a smart collection's rules need about 10)
MAX_LIBRARY_ID = 64  # characters: longer is no library id (and is never repeated)
TAG_SEPARATOR = "~"  # never in a cursor of the library ("cut:", base64url, digits)
TAG_CHARS = 12
UNBOUND = frozenset({"cursor", "limit", "idempotencyKey", "confirmChallenge"})


def library_named(args: dict[str, Any]) -> str | None:
    """The `libraryId` of the call when it may be one (an error answer names it)."""
    named = args.get("libraryId")
    return named if isinstance(named, str) and 0 < len(named) <= MAX_LIBRARY_ID else None


def nested_too_deep(args: dict[str, Any]) -> str | None:
    """The name of the first argument nesting deeper than `MAX_DEPTH`, or None."""
    for name, value in args.items():
        stack: list[tuple[Any, int]] = [(value, 0)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, (list, dict)):
                if depth >= MAX_DEPTH:
                    return name
                children = node.values() if isinstance(node, dict) else node
                stack.extend((child, depth + 1) for child in children)
    return None


def too_deep(name: str, library_id: str | None) -> ErrorEnvelope:
    """The answer to arguments nested deeper than `MAX_DEPTH`."""
    return _invalid(name[:40], f"{name[:40]}: nested more than {MAX_DEPTH} levels deep; "
                    f"Serpent takes at most {MAX_DEPTH}.", library_id)


def tag_of(args: dict[str, Any]) -> str:
    """A short hash of the arguments a cursor is bound to."""
    bound = {k: v for k, v in args.items() if k not in UNBOUND}
    text = json.dumps(bound, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:TAG_CHARS]


def bind(cursor: str, args: dict[str, Any]) -> str:
    """`cursor` tagged with the arguments of the call that made it."""
    return f"{cursor}{TAG_SEPARATOR}{tag_of(args)}"


def unbind(given: str, args: dict[str, Any]) -> str | None:
    """The cursor inside `given` if it was made for `args` (an untagged cursor as it is);
    None when it was made for other arguments."""
    if TAG_SEPARATOR not in given:
        return given
    cursor, _, tag = given.rpartition(TAG_SEPARATOR)
    return cursor if tag == tag_of(args) else None


def other_arguments(library_id: str | None) -> ErrorEnvelope:
    """The answer to a cursor sent with other arguments than the call that made it."""
    return _invalid("cursor", "cursor: it belongs to a call with other arguments. Send the "
                    "very arguments of the call that gave it (only cursor changes, and "
                    "limit may), or leave cursor out to start anew.", library_id)


def _invalid(field: str, message: str, library_id: str | None) -> ErrorEnvelope:
    error: ErrorBody = {"code": INVALID_ARGUMENT, "message": message, "field": field}
    if library_id is not None:
        error["libraryId"] = library_id
    return {"status": "error", "error": error}
