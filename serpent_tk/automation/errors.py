"""Anything that goes wrong in a call becomes a `LibraryError` with a stable code, here.

Thread-safe. One of the three places errors are translated (docs/style.md): validation errors
name the field; an unknown, unavailable or hidden command answers exactly like an unknown
tool; an unexpected exception becomes `INTERNAL` with an incident id that is in the log and
nothing else of it reaches the caller (no traceback, no internal path).
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

from pydantic import ValidationError

from library.errors import (
    INTERNAL,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PERMISSION_DENIED,
    ErrorCode,
    LibraryError,
)

log = logging.getLogger("serpent.automation")


EXCERPT = 40  # characters of a caller's value an error may repeat (names, keys, ids)


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` cut to `limit` characters ("…" when cut): how an error names what a caller sent,
    so no answer echoes a huge argument."""
    return text if len(text) <= limit else text[:limit] + "…"


def unknown_command(name: str) -> LibraryError:
    """The one answer for an unknown tool, an unavailable command and a hidden plugin tool."""
    return LibraryError(NOT_FOUND, f"Unknown tool: {excerpt(name, 100)}", field="name")


def invalid_argument(field: str, message: str) -> LibraryError:
    """`field` is the camelCase path of the bad argument ("" when the arguments as a whole
    are wrong, e.g. nothing to change)."""
    return LibraryError(INVALID_ARGUMENT, f"{field}: {message}" if field else message,
                        field=field or None)


# "assetIds: required unless tagsByAsset is given" (a model-level check naming its field)
FIELD_FIRST = re.compile(r"^([a-z][A-Za-z0-9]*): ")


def from_validation(error: ValidationError, prefix: tuple[str | int, ...] = ()) -> LibraryError:
    """Name the first offending field (camelCase, dotted: `assetIds.2`), then say what is wrong.
    A part of the path the caller chose (an unknown argument's name, a key) is cut short."""
    first = error.errors(include_url=False, include_input=False)[0]
    location = [*prefix, *first.get("loc", ())]
    field = ".".join(excerpt(str(part)) for part in location)
    message = first.get("msg", "invalid value").removeprefix("Value error, ")
    named = FIELD_FIRST.match(message) if not first.get("loc") else None
    if named:  # a check of several arguments together names the one to fix first
        field = ".".join(str(part) for part in [*prefix, named.group(1)])
        message = message[named.end():]
    kind = first.get("type", "")
    if kind == "extra_forbidden":
        message = "not an argument of this command"
    elif kind == "missing":
        message = "required"
    count = error.error_count()
    if count > 1:
        message += f" (and {count - 1} more problem{'s' if count > 2 else ''})"
    return invalid_argument(field, message)


def permission_denied(command: str, mode: str, missing: list[str]) -> LibraryError:
    return LibraryError(PERMISSION_DENIED,
                        f"{command} needs {', '.join(missing)}, which {mode} mode does not allow.",
                        missing=missing)


def internal(error: BaseException, context: str) -> LibraryError:
    """Log `error` with a fresh incident id; return what the caller may see."""
    incident = "inc_" + secrets.token_hex(6)
    log.error("incident %s during %s: %s", incident, context, type(error).__name__,
              exc_info=(type(error), error, error.__traceback__))
    return LibraryError(INTERNAL, f"Something went wrong inside Serpent (incident {incident}). "
                        "The problem was logged.", incidentId=incident)


def as_library_error(error: BaseException, context: str) -> LibraryError:
    if isinstance(error, LibraryError):
        return error
    return internal(error, context)


# Keys of `LibraryError.details` a caller may see: stable sub-codes and ids that help an agent
# correct its call. Paths and anything internal stay in the worker's log.
PUBLIC_DETAIL_KEYS = ("field", "incidentId", "missing", "ids", "command", "reason", "notFound",
                      "existing", "hint", "offenders", "assetId", "folderId", "collectionId",
                      "freeBytes", "neededBytes", "historyId", "expectedHistoryId",
                      "entityIds", "outcome")


def public_details(error: LibraryError) -> dict[str, Any]:
    """The details a caller may see. Anything else stays in the worker's log."""
    details: dict[str, Any] = {}
    for key in PUBLIC_DETAIL_KEYS:
        value = error.details.get(key)
        if value is not None and _json_scalar_or_list(value):
            details[key] = value
    if error.code == ErrorCode.VERSION_CONFLICT:
        current = error.details.get("currentVersion", error.details.get("current_version"))
        if isinstance(current, int):
            details["currentVersion"] = current
    return details


def _json_scalar_or_list(value: Any) -> bool:
    """Scalars, lists of scalars, and lists of flat records (`offenders`) only."""
    if isinstance(value, (str, int, float, bool)):
        return True
    if not isinstance(value, list):
        return False
    return all(isinstance(v, (str, int)) or (isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(x, (str, int, float, bool, type(None)))
        for k, x in v.items())) for v in value)
