"""The output budget (docs/contracts.md §5): every tool response stays under a byte budget, and an
answer the budget cuts loses nothing.

Thread-safe (pure functions). A tool response carries the envelope twice (as
`structuredContent` and as the same JSON in a text block), so the envelope may use a little
under half the budget. An answer that does not fit is cut at an entry boundary of its largest
list (or of its `items` mapping, e.g. `asset.preview-status`): `page_of` builds the part that
fits, marked `"truncated": true` with a `nextCursor` for the rest (`continuations.py` keeps the
rest; paged list commands are asked again instead, see `handlers.py`). Only a risk report's
target list is cut without a continuation: its `count` and `stateToken` cover every target.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from library.errors import INVALID_ARGUMENT
from serpent_tk.automation.envelope import (
    ConfirmationEnvelope,
    Envelope,
    ErrorBody,
    ErrorEnvelope,
    OkEnvelope,
)

KIB = 1024
FRAMING_BYTES = 2 * KIB  # JSON-RPC frame, content wrappers, SSE framing, headroom
CURSOR_ALLOWANCE = 600  # room kept for a `nextCursor` the re-asked page may carry
LONGEST_CURSOR = 56  # room kept for a continuation cursor (`cut:<id>:<offset>~<tag>`)


def encoded_size(value: Any) -> int:
    return len(dumps(value).encode("utf-8"))


def dumps(value: Any) -> str:
    """The JSON of an envelope as it travels in the text content."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Budget:
    """How many bytes one tool response may take."""

    total_bytes: int

    @classmethod
    def from_kib(cls, kib: int) -> Budget:
        return cls(total_bytes=kib * KIB)

    @property
    def envelope_bytes(self) -> int:
        """What the envelope JSON may take (it travels twice)."""
        return max(1024, (self.total_bytes - FRAMING_BYTES) // 2)

    def fits(self, envelope: Mapping[str, object]) -> bool:
        return encoded_size(envelope) <= self.envelope_bytes


# -- which answers can be cut ----------------------------------------------------------------

def cuttable_fields(model: type[BaseModel]) -> list[str]:
    """The wire names of an output model's top-level lists (and of an `items` mapping): what
    the budget may cut, so what a continuation must be able to return."""
    names = []
    for name, info in model.model_fields.items():
        schema_type = getattr(info.annotation, "__origin__", info.annotation)
        if schema_type is list or (schema_type is dict and name == "items"):
            names.append(info.alias or name)
    return names


def cut_key(result: dict[str, Any]) -> str | None:
    """The key of the result's largest non-empty list (or `items` mapping), else None."""
    best: tuple[int, str] | None = None
    for key, value in result.items():
        if (isinstance(value, list) or (key == "items" and isinstance(value, dict))) and value:
            size = encoded_size(value)
            if best is None or size > best[0]:
                best = (size, key)
    return best[1] if best else None


def _entries(value: list[Any] | dict[str, Any]) -> list[Any]:
    return list(value.items()) if isinstance(value, dict) else list(value)


def _rebuilt(like: list[Any] | dict[str, Any], entries: list[Any]) -> list[Any] | dict[str, Any]:
    return dict(entries) if isinstance(like, dict) else entries


def _entry_size(entry: Any, mapping: bool) -> int:
    if mapping:
        key, value = entry
        return encoded_size(key) + 1 + encoded_size(value)
    return encoded_size(entry)


def page_of(envelope: OkEnvelope, key: str, start: int, budget: Budget,
            cursor_for: Callable[[int], str]) -> tuple[OkEnvelope, int] | None:
    """The envelope holding the entries `start:end` of `result[key]` that fit the budget, and
    `end`; None when not even one entry fits.

    A page that stops early is marked `truncated` with `nextCursor = cursor_for(end)`. The last
    page gets the answer's own `nextCursor` and `truncated` back (a paged list continues with
    its library cursor). Pages after the first leave the other lists empty: they were shown
    in full on the first page; counts and other fields stay on every page.
    """
    result = envelope["result"]
    whole = result[key]
    entries = _entries(whole)
    mapping = isinstance(whole, dict)
    skeleton_result = {k: (type(v)() if start and k != key and isinstance(v, list | dict)
                           else v) for k, v in result.items()}
    skeleton_result[key] = type(whole)()
    skeleton_result.update(truncated=True, nextCursor="x" * LONGEST_CURSOR)
    room = budget.envelope_bytes - encoded_size({**envelope, "result": skeleton_result})
    end = start
    for entry in entries[start:]:
        room -= _entry_size(entry, mapping) + 1
        if room < 0:
            break
        end += 1
    if end == start and start < len(entries):
        return None

    def build(stop: int) -> OkEnvelope:
        page_result = dict(skeleton_result)
        page_result[key] = _rebuilt(whole, entries[start:stop])
        if stop < len(entries):
            page_result.update(truncated=True, nextCursor=cursor_for(stop))
        else:
            page_result.update(truncated=bool(result.get("truncated", False)),
                               nextCursor=result.get("nextCursor"))
        return {**envelope, "result": page_result}

    page = build(end)
    while end > start + 1 and not budget.fits(page):  # defensive: sizes are estimates
        end -= 1
        page = build(end)
    return (page, end) if budget.fits(page) else None


def items_that_fit(envelope: OkEnvelope, limit_bytes: int,
                   reserve: int = CURSOR_ALLOWANCE) -> int | None:
    """How many leading items of the result's `items` list fit, or None without such a list
    (to ask a paged list command again for a page that fits)."""
    result = envelope["result"]
    if not isinstance(result.get("items"), list):
        return None
    items = result["items"]
    skeleton = {**envelope, "result": {**result, "items": [], "truncated": True}}
    room = limit_bytes - encoded_size(skeleton) - reserve
    count = 0
    for item in items:
        room -= encoded_size(item) + 1
        if room < 0:
            break
        count += 1
    return count


def too_large(envelope: Envelope, budget: Budget) -> ErrorEnvelope:
    """The error an agent gets when even one entry is over the budget."""
    error: ErrorBody = {
        "code": INVALID_ARGUMENT,
        "message": f"The answer is larger than the MCP output budget "
                   f"({budget.total_bytes // KIB} KiB). Ask for less: a smaller limit or "
                   "fewer ids.",
        "field": "limit"}
    if envelope["status"] != "error" and "libraryId" in envelope:
        error["libraryId"] = envelope["libraryId"]
    return {"status": "error", "error": error}


def fit_risk_report(envelope: ConfirmationEnvelope, budget: Budget
                    ) -> ConfirmationEnvelope | ErrorEnvelope:
    """A `confirmation_required` envelope whose risk report lists only the targets that fit
    (`targetsTruncated`: its `count`, `totalBytes` and `stateToken` still cover them all)."""
    if budget.fits(envelope):
        return envelope
    report = envelope["riskReport"]
    if not isinstance(report.get("targets"), list):
        return too_large(envelope, budget)
    targets = report["targets"]

    def trimmed(keep: int) -> ConfirmationEnvelope:
        return {**envelope, "riskReport": {**report, "targets": targets[:keep],
                                           "targetsTruncated": True, "truncated": True}}

    room = budget.envelope_bytes - encoded_size(trimmed(0))
    keep = 0
    for target in targets:
        room -= encoded_size(target) + 1
        if room < 0:
            break
        keep += 1
    while keep > 0 and not budget.fits(trimmed(keep)):  # defensive: sizes are estimates
        keep -= 1
    return trimmed(keep) if budget.fits(trimmed(keep)) else too_large(envelope, budget)
