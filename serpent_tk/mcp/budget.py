"""The output budget (CONTRACTS.md §5): every tool response stays under a byte budget.

Thread-safe (pure functions). A tool response carries the envelope twice (as
`structuredContent` and as the same JSON in a text block), so the envelope may use a little
under half the budget. An envelope that does not fit is cut at an item boundary of its largest
list, marked `"truncated": true`; paged list commands are asked again with a `limit` that fits,
so their `nextCursor` continues exactly after the last item shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from library.errors import INVALID_ARGUMENT

KIB = 1024
FRAMING_BYTES = 2 * KIB  # JSON-RPC frame, content wrappers, SSE framing, headroom
CURSOR_ALLOWANCE = 600  # room kept for a `nextCursor` the re-asked page may carry


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

    def fits(self, envelope: dict[str, Any]) -> bool:
        return encoded_size(envelope) <= self.envelope_bytes


def _largest_list(envelope: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The (container, key) of the biggest list in the result or the risk report."""
    best: tuple[int, dict[str, Any], str] | None = None
    for section in ("result", "riskReport"):
        container = envelope.get(section)
        if not isinstance(container, dict):
            continue
        for key, value in container.items():
            if isinstance(value, list) and value:
                size = encoded_size(value)
                if best is None or size > best[0]:
                    best = (size, container, key)
    return (best[1], best[2]) if best else None


def items_that_fit(envelope: dict[str, Any], limit_bytes: int,
                   reserve: int = CURSOR_ALLOWANCE) -> int | None:
    """How many leading items of the largest list fit, or None when there is no list."""
    found = _largest_list(envelope)
    if found is None:
        return None
    container, key = found
    items = container[key]
    container[key] = []
    had_truncated = "truncated" in container
    previous = container.get("truncated")
    container["truncated"] = True
    try:
        room = limit_bytes - encoded_size(envelope) - reserve
    finally:
        container[key] = items
        if had_truncated:
            container["truncated"] = previous
        else:
            del container["truncated"]
    count = 0
    for item in items:
        room -= encoded_size(item) + 1
        if room < 0:
            break
        count += 1
    return count


def cut(envelope: dict[str, Any], keep: int) -> dict[str, Any]:
    """A copy of `envelope` whose largest list keeps `keep` items, marked truncated."""
    copied: dict[str, Any] = json.loads(dumps(envelope))
    found = _largest_list(copied)
    if found is None:
        return copied
    container, key = found
    container[key] = container[key][:keep]
    container["truncated"] = True
    if "nextCursor" in container and key == "items":
        container["nextCursor"] = None  # a locally cut page cannot be continued exactly
    return copied


def too_large(envelope: dict[str, Any], budget: Budget) -> dict[str, Any]:
    """The error an agent gets when even one item is over the budget."""
    error: dict[str, Any] = {
        "code": INVALID_ARGUMENT,
        "message": f"The answer is larger than the MCP output budget "
                   f"({budget.total_bytes // KIB} KiB). Ask for less: a smaller limit or "
                   "fewer ids.",
        "field": "limit"}
    if "libraryId" in envelope:
        error["libraryId"] = envelope["libraryId"]
    return {"status": "error", "error": error}


def fit_locally(envelope: dict[str, Any], budget: Budget) -> dict[str, Any]:
    """Cut `envelope` to the budget without asking the library again."""
    if budget.fits(envelope):
        return envelope
    keep = items_that_fit(envelope, budget.envelope_bytes, reserve=0)
    if not keep:
        return too_large(envelope, budget)
    trimmed = cut(envelope, keep)
    while keep > 1 and not budget.fits(trimmed):  # defensive: sizes are estimates
        keep -= 1
        trimmed = cut(envelope, keep)
    return trimmed if budget.fits(trimmed) else too_large(envelope, budget)
