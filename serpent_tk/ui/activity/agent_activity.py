"""Toasts for changes an AI client makes: one updating toast per client, not one per call.

Tk thread only. "Claude via MCP tagged 3 assets" — and when the same client keeps working,
the same toast updates, merging only changes of the same kind and naming each kind ("…
tagged 5 assets and moved 2 assets") instead of "and 4 more changes". The toast offers
Undo for the client's latest change (run only while it is still the library's latest).
Library lifecycle changes (close, rename, delete, import) are left out: the gateway raises
its own toast for those.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from serpent_tk.ui.shell.humanize import describe_change

QUIET_S = 8.0   # after this long without changes a client's count starts again
UPDATE_S = 0.3  # a client's toast text changes at most this often
MAX_KINDS = 3   # kinds named in one toast; the rest are counted
LIFECYCLE_COMMANDS = {"file.import", "library.rename", "library.close",
                      "library.delete-from-disk", "library.import-exported"}
AGENT_SOURCES = {"mcp", "plugin", "cli"}
NOT_UNDOABLE = {"history.undo", "history.redo"}


@dataclass
class _Kind:
    entities: set[str] = field(default_factory=set)
    times: int = 0


@dataclass
class _Run:
    last: float
    kinds: dict[str, _Kind] = field(default_factory=dict)   # by command, first seen first
    shown: float = 0.0
    latest_sequence: int | None = None
    latest_command: str = ""


def describe_run(kinds: dict[str, _Kind]) -> str:
    """"tagged 5 assets, moved 2 assets and created a folder (2 times)"."""
    parts = []
    for command, kind in kinds.items():
        per_asset = describe_change(command, 1) != describe_change(command, 2)
        if per_asset:
            parts.append(describe_change(command, len(kind.entities) or kind.times))
        else:
            phrase = describe_change(command, kind.times)
            parts.append(phrase + (f" ({kind.times} times)" if kind.times > 1 else ""))
    if len(parts) > MAX_KINDS:
        rest = len(parts) - MAX_KINDS + 1
        parts = parts[:MAX_KINDS - 1] + [f"{rest} other kinds of change"]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


class AgentActivity:
    def __init__(self, show: Callable[..., None],
                 undo: Callable[[int | None], None] | None = None,
                 after: Callable[[int, Callable[[], None]], Any] | None = None) -> None:
        self.show = show
        self.undo = undo           # AssetActions.undo_change (None: no Undo button)
        self.after = after         # Tk's after: a held-back update is shown a moment later
        self._runs: dict[str, _Run] = {}
        self._held: set[str] = set()

    def library_changed(self, event: Any) -> None:
        if event.source not in AGENT_SOURCES or event.command in LIFECYCLE_COMMANDS:
            return
        now = time.monotonic()
        run = self._runs.get(event.actor_label)
        if run is None or now - run.last > QUIET_S:
            run = self._runs[event.actor_label] = _Run(now)
        kind = run.kinds.setdefault(event.command, _Kind())
        kind.entities.update(event.entity_ids)
        kind.times += 1
        run.last = now
        run.latest_sequence = getattr(event, "change_sequence", None)
        run.latest_command = event.command
        if sum(k.times for k in run.kinds.values()) > 1 and now - run.shown < UPDATE_S:
            if self.after is not None and event.actor_label not in self._held:
                self._held.add(event.actor_label)      # counted; shown in a moment
                self.after(int(UPDATE_S * 1000), lambda a=event.actor_label: self._flush(a))
            return
        self._show(event.actor_label, run)

    def _flush(self, actor: str) -> None:
        self._held.discard(actor)
        run = self._runs.get(actor)
        if run is not None:
            self._show(actor, run)

    def _show(self, actor: str, run: _Run) -> None:
        run.shown = time.monotonic()
        text, level, options = self.toast_for(actor, run)
        self.show(text, level, **options)

    def toast_for(self, actor: str, run: _Run) -> tuple[str, str, dict[str, Any]]:
        """What `show` gets for `actor`'s run so far: text, level, options."""
        text = f"{actor} {describe_run(run.kinds)}."
        action = None
        if self.undo is not None and run.latest_command not in NOT_UNDOABLE:
            sequence, undo = run.latest_sequence, self.undo
            label = "Undo the last one" if sum(k.times for k in run.kinds.values()) > 1 \
                else "Undo"
            action = (label, lambda: undo(sequence))
        return text, "info", {"key": f"agent:{actor}", "action": action}
