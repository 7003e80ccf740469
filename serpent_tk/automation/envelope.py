"""The response envelope of docs/contracts.md §2: built here and nowhere else.

Thread-safe (pure). Every gateway answer is one of: `ok` (with `libraryId` and
`libraryChangeSequence` for library-level commands), `error` (`retryable` only when true,
`currentVersion` only for version conflicts, `libraryId` whenever a library was targeted),
or `confirmation_required` (a dangerous command's first call).
"""

from __future__ import annotations

from typing import Any, Literal

from library.errors import LibraryError
from serpent_tk.automation.errors import public_details

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


def error(failure: LibraryError, library_id: str | None = None) -> Envelope:
    body: dict[str, Any] = {"code": failure.code, "message": failure.message}
    if failure.retryable:
        body["retryable"] = True
    body.update(public_details(failure))
    if library_id is not None:
        body["libraryId"] = library_id
    return {"status": "error", "error": body}


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
