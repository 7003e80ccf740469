"""Duplicates without a manual analysis step: a tool whose answer counts the assets it could
not compare (`notAnalysed`: `asset.find-duplicates`), asked while assets are not analysed yet,
waits for the analysis Serpent runs by itself after every import, then asks again, so an
agent whose toolset has no analysis tool (essentials) still gets every group.

Runs on the listener loop (submits as the calling credential). For up to `WAIT_S` (well below
the 60 s a TypeScript-SDK client waits for an answer): while an analysis task of the library is
queued or running (`task.list`), look again every `POLL_S`; when none is (it was cancelled, or
the import's analysis was never handed over), queue it once as the caller, as the import would
have. An answer that still cannot compare everything says how many assets are left and when
they should be ready (from the task's progress), naming no tool; a credential that may not
start analysis (read-only) is told where a person starts it in the window.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from serpent_tk.automation.envelope import Envelope
from serpent_tk.automation.registry import CommandSpec

WAIT_S = 25.0
POLL_S = 0.5
SETTLE_S = 1.0  # an import that just finished hands its analysis over within this
IN_WINDOW = "Library → Find duplicates… → Analyse them now"

Submit = Callable[[str, dict[str, Any]], Awaitable[Envelope]]


def waits_for_analysis(spec: CommandSpec) -> bool:
    """Does the command's answer count assets it could not compare, not analysed yet?"""
    return "not_analysed" in spec.output_model.model_fields


def not_analysed(envelope: Envelope) -> int:
    if envelope["status"] != "ok":
        return 0
    return int(envelope["result"].get("notAnalysed") or 0)


@dataclass
class Progress:
    """What the library's analysis tasks have done, seen over time."""

    seen: list[tuple[float, int, int]] = field(default_factory=list)  # (time, done, total)

    def add(self, at: float, tasks: list[dict[str, Any]]) -> None:
        self.seen.append((at, sum(int(t.get("done") or 0) for t in tasks),
                          sum(int(t.get("total") or 0) for t in tasks)))

    def seconds_left(self) -> int | None:
        """When the tasks should be done, rounded up to 5 s; None when not known."""
        if len(self.seen) < 2:
            return None
        (first_at, first_done, _), (last_at, last_done, total) = self.seen[0], self.seen[-1]
        if last_done <= first_done or last_at <= first_at or total <= last_done:
            return None
        rate = (last_done - first_done) / (last_at - first_at)
        return max(5, 5 * math.ceil((total - last_done) / rate / 5))

    def done_of_total(self) -> tuple[int, int] | None:
        return self.seen[-1][1:] if self.seen else None


def _assets(count: int) -> str:
    return f"{count} asset{'s are' if count != 1 else ' is'}"


def still_running(count: int, progress: Progress) -> str:
    counted = progress.done_of_total()
    so_far = f"; {counted[0]} of {counted[1]} done" if counted and counted[1] else ""
    left = progress.seconds_left()
    when = f"in about {left} seconds" if left is not None else "in a minute"
    return (f"{_assets(count)} still being analysed (Serpent does this by itself after every "
            f"import{so_far}), so they could not be compared yet. Ask again {when}.")


def cannot_start(count: int) -> str:
    return (f"{_assets(count)} not analysed yet, so they could not be compared. Serpent "
            "analyses every import by itself; these a person can have analysed in Serpent's "
            f"window: {IN_WINDOW}.")


async def active_analysis(submit: Submit, library_id: str) -> list[dict[str, Any]]:
    """The library's analysis tasks that are queued or running."""
    answer = await submit("task.list", {"libraryId": library_id,
                                        "status": ["queued", "running"]})
    items = answer["result"].get("items", []) if answer["status"] == "ok" else []
    return [t for t in items if isinstance(t, dict) and t.get("kind") == "analysis"]


async def settled(spec: CommandSpec, args: dict[str, Any], envelope: Envelope,
                  submit: Submit, *, wait_s: float = WAIT_S,
                  clock: Callable[[], float] = time.monotonic) -> Envelope:
    """`envelope` (the answer to `spec` with `args`), or a newer one once the assets it could
    not compare are analysed; with a note saying what is left when they are not yet."""
    if not waits_for_analysis(spec) or not not_analysed(envelope):
        return envelope
    name = spec.name
    library_id = str(args.get("libraryId"))
    started = clock()
    deadline = started + wait_s
    progress = Progress()
    latest, asked, refused = envelope, False, False
    while True:
        tasks = await active_analysis(submit, library_id)
        if tasks:
            progress.add(clock(), tasks)
        else:
            latest = await submit(name, args)
            if not not_analysed(latest) or asked:
                break  # all analysed, or analysed as far as analysis goes
            if clock() - started >= SETTLE_S:
                queued = await submit("analysis.run", {"libraryId": library_id})
                asked, refused = True, queued["status"] != "ok"
                if refused:
                    break
        if clock() + POLL_S > deadline:
            latest = await submit(name, args) if tasks else latest
            break
        await asyncio.sleep(POLL_S)
    count = not_analysed(latest)
    if not count or latest["status"] != "ok":
        return latest
    note = cannot_start(count) if refused else still_running(count, progress) \
        if progress.seen else latest["result"].get("note")
    return {**latest, "result": {**latest["result"], "note": note}}
