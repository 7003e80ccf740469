"""Toasts for changes an AI client makes: one updating toast per client, not one per call.

Tk thread only. "Claude via MCP tagged 3 assets" — and when the same client keeps working,
the same toast updates, merging only changes of the same kind and naming each kind ("…
tagged 5 assets and moved 2 assets") instead of "and 4 more changes". The toast offers
Undo for the client's latest change (run only while it is still the library's latest).
Library lifecycle changes (close, rename, delete, import) are left out: the gateway raises
its own toast for those.

Fed either by `LibraryChanged` (`library_changed`: the words come from the command and how
many assets it touched) or by a gateway receipt that carries its own words (`change_made`:
an event with `text`, `undoable` and `lifecycle`); the merging is the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

QUIET_S = 8.0   # after this long without changes a client's count starts again
UPDATE_S = 0.3  # a client's toast text changes at most this often
MAX_KINDS = 3   # kinds named in one toast; the rest are counted
LIFECYCLE_COMMANDS = {"file.import", "library.rename", "library.close",
                      "library.delete-from-disk", "library.import-exported"}
AGENT_SOURCES = {"mcp", "plugin", "cli"}
NOT_UNDOABLE = {"history.undo", "history.redo"}


def _phrase(command: str, entity_count: int) -> str:
    """The words for a change that came without any ("tagged 3 assets")."""
    try:
        from serpent_tk.ui.shell.humanize import describe_change
    except ImportError:              # the words come with the events (`change_made`)
        return "changed the library"
    return describe_change(command, entity_count)


@dataclass
class _Kind:
    entities: set[str] = field(default_factory=set)
    times: int = 0
    text: str = ""            # the latest change's own words, when it brought some


@dataclass
class _Run:
    last: float
    kinds: dict[str, _Kind] = field(default_factory=dict)   # by command, first seen first
    shown: float = 0.0
    latest_sequence: int | None = None
    latest_undoable: bool = False

    @property
    def changes(self) -> int:
        return sum(k.times for k in self.kinds.values())


def describe_kind(command: str, kind: _Kind) -> str:
    if kind.text:                                # its own words: the latest, and how many
        more = kind.times - 1
        return kind.text + (f" (and {more} more like it)" if more else "")
    per_asset = _phrase(command, 1) != _phrase(command, 2)
    if per_asset:
        return _phrase(command, len(kind.entities) or kind.times)
    phrase = _phrase(command, kind.times)
    return phrase + (f" ({kind.times} times)" if kind.times > 1 else "")


def describe_run(kinds: dict[str, _Kind]) -> str:
    """"tagged 5 assets, moved 2 assets and created a folder (2 times)"."""
    parts = [describe_kind(command, kind) for command, kind in kinds.items()]
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
        """A gateway `LibraryChanged` (any source)."""
        if event.command in LIFECYCLE_COMMANDS:
            return
        self._record(event, tuple(event.entity_ids), "",
                     event.command not in NOT_UNDOABLE)

    def change_made(self, event: Any) -> None:
        """A gateway receipt with its own words (`text`, `undoable`, `lifecycle`)."""
        if getattr(event, "lifecycle", None) is not None:
            return
        self._record(event, (), str(event.text), bool(getattr(event, "undoable", True)))

    def _record(self, event: Any, entity_ids: tuple[str, ...], text: str,
                undoable: bool) -> None:
        if event.source not in AGENT_SOURCES:
            return
        now = time.monotonic()
        actor = event.actor_label
        run = self._runs.get(actor)
        if run is None or now - run.last > QUIET_S:
            run = self._runs[actor] = _Run(now)
        kind = run.kinds.setdefault(event.command, _Kind())
        kind.entities.update(entity_ids)
        kind.times += 1
        kind.text = text
        run.last = now
        run.latest_sequence = getattr(event, "change_sequence", None)
        run.latest_undoable = undoable
        if run.changes > 1 and now - run.shown < UPDATE_S:
            if self.after is not None and actor not in self._held:
                self._held.add(actor)                  # counted; shown in a moment
                self.after(int(UPDATE_S * 1000), lambda: self._flush(actor))
            return
        self._show(actor, run)

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
        if self.undo is not None and run.latest_undoable:
            sequence, undo = run.latest_sequence, self.undo
            label = "Undo the last one" if run.changes > 1 else "Undo"
            action = (label, lambda: undo(sequence))
        return text, "info", {"key": f"agent:{actor}", "action": action}
