"""The audit trail: one log line per gateway call.

Thread-safe (logging is). A line names the caller's label and credential name, the command,
the library, the duration and the outcome (`ok`, `confirmation_required`, or the error code).
Never a token, never argument values (they may hold paths or secrets).
"""

from __future__ import annotations

import json
import logging

from serpent_tk.automation.caller import Caller

log = logging.getLogger("serpent.audit")


def record(caller: Caller, command: str, library_id: str | None, duration_s: float,
           outcome: str) -> None:
    log.info("call label=%s credential=%s source=%s command=%s library=%s duration_ms=%.1f "
             "outcome=%s", json.dumps(caller.label, ensure_ascii=False),
             caller.credential or "-", caller.source, _short(command), library_id or "-",
             duration_s * 1000.0, outcome)


def _short(command: str) -> str:
    """An unknown command name comes from outside: bound it and keep it on one line."""
    cleaned = "".join(c if c.isprintable() and not c.isspace() else "?" for c in command)
    return cleaned[:100]
