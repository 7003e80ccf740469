"""The response envelope of docs/contracts.md §2: its one type, and built here and nowhere else.

Thread-safe (pure). Every gateway answer is one `Envelope`: an `OkEnvelope` (with `libraryId`
and `libraryChangeSequence` for library-level commands), an `ErrorEnvelope` (its `ErrorBody`:
`retryable` only when true, `currentVersion` only for version conflicts, `libraryId` whenever a
library was targeted) or a `ConfirmationEnvelope` (a dangerous command's first call). They are
TypedDicts, so at run time an envelope is the plain dict the wire carries; readers narrow on
`envelope["status"]` or use the accessors below (`error_code`, `error_of`, `result_of`).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast

from library.errors import ErrorCode, LibraryError
from serpent_tk.automation.errors import excerpt, public_details

Status = Literal["ok", "error", "confirmation_required"]


class OkEnvelope(TypedDict):
    """A command's answer. `result` is the command's output model, as JSON (command-specific;
    a list result has `items`, `nextCursor` and `truncated`)."""

    status: Literal["ok"]
    libraryId: NotRequired[str]  # library-level commands only
    libraryChangeSequence: NotRequired[int]  # with libraryId, when the library is still open
    result: dict[str, Any]


class ErrorBody(TypedDict):
    """What went wrong (docs/contracts.md §3): the code, words for people, and the details a
    caller may see (`automation.errors.PUBLIC_DETAIL_KEYS`), each only when it applies."""

    code: ErrorCode  # a `StrEnum`: on the wire (and from a plugin's process) the plain string
    message: str
    retryable: NotRequired[Literal[True]]  # present only for transient failures
    currentVersion: NotRequired[int]  # VERSION_CONFLICT only
    libraryId: NotRequired[str]  # whenever a library was targeted
    field: NotRequired[str]  # INVALID_ARGUMENT: the camelCase argument
    incidentId: NotRequired[str]  # INTERNAL: the log line's id
    missing: NotRequired[list[str]]  # PERMISSION_DENIED: the capabilities the caller lacks
    reason: NotRequired[str]  # e.g. "veto" (a plugin's check), PLUGIN_FAILED's cause
    outcome: NotRequired[str]  # WORKER_UNAVAILABLE: "not-saved", "partial" or "unknown"
    hint: NotRequired[str]
    command: NotRequired[str]
    freeBytes: NotRequired[int]  # DISK_FULL
    neededBytes: NotRequired[int]  # DISK_FULL
    # the other public details: JSON scalars or lists, read only where a caller knows them
    ids: NotRequired[object]
    notFound: NotRequired[object]
    existing: NotRequired[object]
    offenders: NotRequired[object]
    assetId: NotRequired[object]
    folderId: NotRequired[object]
    collectionId: NotRequired[object]
    historyId: NotRequired[object]
    expectedHistoryId: NotRequired[object]
    entityIds: NotRequired[object]


class ErrorEnvelope(TypedDict):
    """A failure (MCP `isError: true`); nothing else beside `status`."""

    status: Literal["error"]
    error: ErrorBody


class Challenge(TypedDict):
    """What a dangerous command's second call repeats (`confirmChallenge` = `id`)."""

    id: str
    expiresAt: str  # ISO 8601
    command: str  # the dotted command name


class ConfirmationEnvelope(TypedDict):
    """A dangerous command's first call: nothing changed yet. `riskReport` is the plan's
    (`summary`, `targets`, `irreversible`, `targetsTruncated`, command-specific fields)."""

    status: Literal["confirmation_required"]
    challenge: Challenge
    riskReport: dict[str, Any]
    libraryId: NotRequired[str]


Envelope = OkEnvelope | ErrorEnvelope | ConfirmationEnvelope


def ok(result: dict[str, Any], library_id: str | None = None,
       change_sequence: int | None = None) -> OkEnvelope:
    if library_id is None:
        return {"status": "ok", "result": result}
    if change_sequence is None:
        return {"status": "ok", "libraryId": library_id, "result": result}
    return {"status": "ok", "libraryId": library_id, "libraryChangeSequence": change_sequence,
            "result": result}


MAX_MESSAGE = 1000  # characters; a message for people is never longer
MAX_DETAIL = 200  # characters of any string among an error's details


def error(failure: LibraryError, library_id: str | None = None) -> ErrorEnvelope:
    """An error answer. Its strings are cut (`MAX_MESSAGE`, `MAX_DETAIL`): whatever a caller
    sent, an error never repeats more than a short excerpt of it."""
    body: ErrorBody = {"code": failure.code, "message": excerpt(failure.message, MAX_MESSAGE)}
    if failure.retryable:
        body["retryable"] = True
    details = {key: _cut(value) for key, value in public_details(failure).items()}
    # public_details keeps only PUBLIC_DETAIL_KEYS and currentVersion: ErrorBody's keys
    body.update(cast(ErrorBody, details))
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
                          risk_report: dict[str, Any],
                          library_id: str | None) -> ConfirmationEnvelope:
    envelope: ConfirmationEnvelope = {
        "status": "confirmation_required",
        "challenge": {"id": challenge_id, "expiresAt": expires_at, "command": command},
        "riskReport": risk_report,
    }
    if library_id is not None:
        envelope["libraryId"] = library_id
    return envelope


def failed(code: ErrorCode, message: str) -> ErrorEnvelope:
    """An error answer made by a caller itself (a cancelled or broken future), not from a
    `LibraryError`: only the code and the words."""
    return {"status": "error", "error": {"code": code, "message": message}}


def error_of(envelope: Envelope) -> ErrorBody | None:
    """The error of an error answer, else None."""
    return envelope["error"] if envelope["status"] == "error" else None


def error_code(envelope: Envelope) -> ErrorCode | None:
    """The code of an error answer, else None."""
    return envelope["error"]["code"] if envelope["status"] == "error" else None


def result_of(envelope: Envelope) -> dict[str, Any] | None:
    """The result of an ok answer, else None."""
    return envelope["result"] if envelope["status"] == "ok" else None


def as_json(envelope: Envelope) -> dict[str, Any]:
    """The envelope as the JSON object it is at run time, for what takes any JSON object (MCP's
    `structuredContent`, `json.dumps`, a size estimate); nothing is copied."""
    return cast(dict[str, Any], envelope)


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
