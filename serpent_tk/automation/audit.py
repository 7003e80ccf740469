"""The audit trail: one log line per gateway call.

Thread-safe (logging is). A line names the caller's label and credential name, the command,
the library, the duration and the outcome (`ok`, `confirmation_required`, or the error code).
Never a token, never argument values (they may hold paths or secrets). Every field a caller
can choose (command name, libraryId, credential name, label) is bounded and written as a bare
word only when it is one; anything else is JSON-quoted, so no caller can add a field or a line
(the log's filter escapes line breaks and controls besides, see `serpent_tk.logs`).
"""

from __future__ import annotations

import json
import logging
import re

from serpent_tk.automation.caller import Caller

log = logging.getLogger("serpent.audit")

MAX_FIELD = 100
_BARE = re.compile(r"^[A-Za-z0-9_.:@+-]{1,100}$")


def record(caller: Caller, command: str, library_id: str | None, duration_s: float,
           outcome: str) -> None:
    log.info("call label=%s credential=%s source=%s command=%s library=%s duration_ms=%.1f "
             "outcome=%s", json.dumps(caller.label[:MAX_FIELD], ensure_ascii=False),
             field(caller.credential), field(caller.source), field(command), field(library_id),
             duration_s * 1000.0, field(outcome))


def field(value: object) -> str:
    """One audit field: `-` when empty, a bare word when it is one, else a JSON string."""
    if value is None or value == "":
        return "-"
    text = value if isinstance(value, str) else repr(value)
    if _BARE.fullmatch(text):
        return text
    return json.dumps(text[:MAX_FIELD], ensure_ascii=False)
