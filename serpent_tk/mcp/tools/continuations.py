"""The rest of answers the output budget cut (docs/contracts.md §5): nothing a cut drops is lost.

Thread-safe. When an answer is too large for one response (`asset.get` of 100 assets with long
notes, `file.import` of 500 files, ...), the whole answer is kept here for a while and the part
that fits goes out with `"truncated": true` and `nextCursor: "cut:<id>:<offset>"`. The same tool
called with that `cursor` returns the next part of the very same answer: nothing runs again
(an import is never repeated), and a retried cursor returns the same part again. Each kept
answer belongs to the credential and tool that got it (and its library); others cannot read it.
Kept answers expire after `KEEP_S` or when more than `MAX_ANSWERS` / `MAX_BYTES` are kept,
oldest first.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from library.errors import INVALID_ARGUMENT
from serpent_tk.automation.envelope import ErrorBody, ErrorEnvelope, OkEnvelope
from serpent_tk.mcp.tools.budget import Budget, cut_key, encoded_size, page_of, too_large

CURSOR_PREFIX = "cut:"  # ':' is never in a library cursor (base64url or digits)
KEEP_S = 30 * 60.0
MAX_ANSWERS = 64
MAX_BYTES = 64 * 1024 * 1024
_CURSOR = re.compile(r"^cut:([0-9a-z]{16}):(\d{1,9})$")


@dataclass(frozen=True)
class Owner:
    """Who may continue an answer: the credential, the tool, and the library it was about."""

    credential: str
    tool: str
    library_id: str | None


@dataclass
class _Kept:
    owner: Owner
    envelope: OkEnvelope
    key: str
    size: int
    expires: float


def is_continuation(cursor: object) -> bool:
    return isinstance(cursor, str) and cursor.startswith(CURSOR_PREFIX)


def expired(owner: Owner) -> ErrorEnvelope:
    """The answer to a continuation cursor that is unknown, expired or someone else's."""
    error: ErrorBody = {
        "code": INVALID_ARGUMENT, "field": "cursor",
        "message": "cursor: this is not a cursor of this tool's answers, or the rest of that "
                   f"answer is no longer kept ({int(KEEP_S // 60)} minutes). Ask again; after "
                   "an import, serpent_asset_search (newest first) lists the new assets."}
    if owner.library_id is not None:
        error["libraryId"] = owner.library_id
    return {"status": "error", "error": error}


class Continuations:
    """Kept answers by id. Thread-safe."""

    def __init__(self, keep_s: float = KEEP_S, max_answers: int = MAX_ANSWERS,
                 max_bytes: int = MAX_BYTES, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._keep_s, self._max_answers, self._max_bytes = keep_s, max_answers, max_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self._bytes = 0

    def first_page(self, envelope: OkEnvelope, owner: Owner,
                   budget: Budget) -> OkEnvelope | ErrorEnvelope | None:
        """The part of an `ok` envelope that fits, keeping the rest; None when the answer has
        no list to cut (the caller then answers differently)."""
        key = cut_key(envelope["result"])
        if key is None:
            return None
        answer_id = secrets.token_hex(8)
        paged = page_of(envelope, key, 0, budget, lambda end: cursor(answer_id, end))
        if paged is None:
            return too_large(envelope, budget)
        page, _end = paged
        self._keep(answer_id, _Kept(owner=owner, envelope=envelope, key=key,
                                    size=encoded_size(envelope),
                                    expires=self._clock() + self._keep_s))
        return page

    def next_page(self, given: str, owner: Owner, budget: Budget
                  ) -> OkEnvelope | ErrorEnvelope:
        """The part of a kept answer that starts where `given` (a nextCursor) points."""
        match = _CURSOR.match(given)
        kept = None
        if match is not None:
            with self._lock:
                self._expire()
                kept = self._kept.get(match.group(1))
        if kept is None or match is None or kept.owner.credential != owner.credential \
                or kept.owner.tool != owner.tool or (
                    owner.library_id is not None and owner.library_id != kept.owner.library_id):
            return expired(owner)
        answer_id, start = match.group(1), int(match.group(2))
        if start > len(kept.envelope["result"][kept.key]):
            return expired(owner)
        paged = page_of(kept.envelope, kept.key, start, budget,
                        lambda end: cursor(answer_id, end))
        return paged[0] if paged is not None else too_large(kept.envelope, budget)

    def _keep(self, answer_id: str, kept: _Kept) -> None:
        with self._lock:
            self._expire()
            self._kept[answer_id] = kept
            self._bytes += kept.size
            while len(self._kept) > 1 and (len(self._kept) > self._max_answers
                                           or self._bytes > self._max_bytes):
                _gone, oldest = self._kept.popitem(last=False)
                self._bytes -= oldest.size

    def _expire(self) -> None:
        now = self._clock()
        for answer_id in [a for a, k in self._kept.items() if k.expires <= now]:
            self._bytes -= self._kept.pop(answer_id).size

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._kept)


def cursor(answer_id: str, offset: int) -> str:
    return f"{CURSOR_PREFIX}{answer_id}:{offset}"
