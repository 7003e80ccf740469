"""The response envelope of docs/contracts.md §2: built here and nowhere else.

Thread-safe (pure). Every gateway answer is one of: `ok` (with `libraryId` and
`libraryChangeSequence` for library-level commands), `error` (`retryable` only when true,
`currentVersion` only for version conflicts, `libraryId` whenever a library was targeted),
or `confirmation_required` (a dangerous command's first call).
"""

from __future__ import annotations

from typing import Any, Literal

from library.errors import LibraryError
from serpent_tk.automation.errors import excerpt, public_details

Envelope = dict[str, Any]
Status = Literal["ok", "error", "confirmation_required"]


def ok(result: dict[str, Any], library_id: str | None = None,
       change_sequence: int | None = None) -> Envelope:
    envelope: Envelope = {"status": "ok"}
    if library_id is not None:
        envelope["libraryId"] = library_id
        if change_sequence is not None:
            envelope["libraryChangeSequence"] = change_sequence
    envelope["result"] = result
    return envelope


MAX_MESSAGE = 1000  # characters; a message for people is never longer
MAX_DETAIL = 200  # characters of any string among an error's details


def error(failure: LibraryError, library_id: str | None = None) -> Envelope:
    """An error answer. Its strings are cut (`MAX_MESSAGE`, `MAX_DETAIL`): whatever a caller
    sent, an error never repeats more than a short excerpt of it."""
    body: dict[str, Any] = {"code": failure.code, "message": excerpt(failure.message,
                                                                     MAX_MESSAGE)}
    if failure.retryable:
        body["retryable"] = True
    body.update({key: _cut(value) for key, value in public_details(failure).items()})
    if library_id is not None:
        body["libraryId"] = library_id
    return {"status": "error", "error": body}


def _cut(value: Any) -> Any:
    if isinstance(value, str):
        return excerpt(value, MAX_DETAIL)
    if isinstance(value, list):
        return [_cut(item) for item in value]
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    return value


def confirmation_required(challenge_id: str, expires_at: str, command: str,
                          risk_report: dict[str, Any], library_id: str | None) -> Envelope:
    envelope: Envelope = {
        "status": "confirmation_required",
        "challenge": {"id": challenge_id, "expiresAt": expires_at, "command": command},
        "riskReport": risk_report,
    }
    if library_id is not None:
        envelope["libraryId"] = library_id
    return envelope


def error_code(envelope: Envelope) -> str | None:
    return envelope["error"]["code"] if envelope.get("status") == "error" else None


def page(items: list[Any], next_cursor: str | None = None, truncated: bool = False,
         **extra: Any) -> dict[str, Any]:
    """The one shape of a list result: `items`, `nextCursor`, `truncated` (+ extra fields)."""
    return {"items": items, "nextCursor": next_cursor, "truncated": truncated, **extra}


def normalize_page(result: dict[str, Any]) -> dict[str, Any]:
    """Give any result holding `items` the list keys `nextCursor` and `truncated`."""
    if isinstance(result.get("items"), list):
        result.setdefault("nextCursor", None)
        result.setdefault("truncated", False)
    return result
