"""Toasts for changes an AI client makes: one updating toast per client, not one per call.

Tk thread only. "Claude via MCP tagged 3 assets" — and when the same client keeps working,
the same toast updates, merging only changes of the same kind and naming each kind ("…
tagged 5 assets and moved 2 assets") instead of "and 4 more changes". The toast offers
Undo for the client's latest change (run only while it is still the library's latest).
Library lifecycle changes (close, rename, delete, import) are left out: the gateway raises
its own toast for those.

Fed by the gateway's `ChangeMade` receipts, whose text the command's spec words ("tagged 3
assets with “sky”"), with `undoable` and `lifecycle` from the spec too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from serpent_tk.ui.language import gateway_words
from serpent_tk.ui.language.translate import _, ngettext

QUIET_S = 8.0   # after this long without changes a client's count starts again
UPDATE_S = 0.3  # a client's toast text changes at most this often
MAX_KINDS = 3   # kinds named in one toast; the rest are counted (never a trash or a move)
AGENT_SOURCES = {"mcp", "plugin", "cli"}


@dataclass
class _Kind:
    times: int = 0
    latest: Any = None        # the latest change's receipt (its words are said when shown)
    moves: bool = False       # it moves assets between places (trash, restore, move, ...)

    @property
    def text(self) -> str:
        return gateway_words.change(self.latest) if self.latest is not None else ""


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


def describe_kind(kind: _Kind) -> str:
    """The latest change of a kind in its own words, and how many more there were."""
    more = kind.times - 1
    if not more:
        return kind.text
    return ngettext("{change} (and {n} more like it)", "{change} (and {n} more like them)",
                    more).format(change=kind.text, n=more)


def describe_run(kinds: dict[str, _Kind]) -> str:
    """"tagged 5 assets, moved 2 assets and created a folder (2 times)": at most `MAX_KINDS`
    named, the rest counted, except that a trash or a move is always named."""
    named = [kind for kind in kinds.values() if kind.moves]
    others = [kind for kind in kinds.values() if not kind.moves]
    room = max(0, MAX_KINDS - len(named))
    if len(others) > room:
        shown_others = others[:max(0, room - 1)]
        rest = len(others) - len(shown_others)
    else:
        shown_others, rest = others, 0
    shown = [k for k in kinds.values() if k in named or k in shown_others]
    parts = [describe_kind(kind) for kind in shown]
    if rest:
        parts.append(ngettext("{n} other kind of change", "{n} other kinds of change",
                              rest).format(n=rest))
    if len(parts) == 1:
        return parts[0]
    return _("{items} and {last}").format(items=gateway_words.listed(parts[:-1]),
                                          last=parts[-1])


class AgentActivity:
    def __init__(self, show: Callable[..., None],
                 undo: Callable[[int | None], None] | None = None,
                 after: Callable[[int, Callable[[], None]], Any] | None = None,
                 spec: Callable[[str], Any] | None = None) -> None:
        self.show = show
        self.undo = undo           # AssetActions.undo_change (None: no Undo button)
        self.after = after         # Tk's after: a held-back update is shown a moment later
        self.spec = spec           # the registry's spec of a command (what it moves)
        self._runs: dict[str, _Run] = {}
        self._held: set[str] = set()

    def change_made(self, event: Any) -> None:
        """A gateway `ChangeMade` for the library on show (any source; agents' are shown)."""
        if event.source not in AGENT_SOURCES or event.lifecycle is not None:
            return
        now = time.monotonic()
        actor = event.actor_label
        run = self._runs.get(actor)
        if run is None or now - run.last > QUIET_S:
            run = self._runs[actor] = _Run(now)
        kind = run.kinds.setdefault(event.command, _Kind(moves=self._moves(event.command)))
        kind.times += 1
        kind.latest = event
        run.last = now
        run.latest_sequence = event.change_sequence
        run.latest_undoable = bool(event.undoable)
        if run.changes > 1 and now - run.shown < UPDATE_S:
            if self.after is not None and actor not in self._held:
                self._held.add(actor)                  # counted; shown in a moment
                self.after(int(UPDATE_S * 1000), lambda: self._flush(actor))
            return
        self._show(actor, run)

    def _moves(self, command: str) -> bool:
        """Does `command` move assets between places (the registry's `recount`: trash,
        restore, move, import, delete...)? Those are never folded into a count."""
        spec = self.spec(command) if self.spec is not None else None
        return bool(getattr(spec, "recount", None))

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
        text = _("{actor} {changes}.").format(actor=gateway_words.actor_name(actor),
                                              changes=describe_run(run.kinds))
        action = None
        if self.undo is not None and run.latest_undoable:
            sequence, undo = run.latest_sequence, self.undo
            label = _("Undo the last one") if run.changes > 1 else _("Undo")
            action = (label, lambda: undo(sequence))
        return text, "info", {"key": f"agent:{actor}", "action": action}

    def forget_undone(self, change_sequence: int | None) -> None:
        """An undo took back `change_sequence`: a toast offering to undo it offers no more."""
        for run in self._runs.values():
            if run.latest_sequence == change_sequence:
                run.latest_undoable = False
