"""What the duplicates review knows: every group `asset.find-duplicates` finds (paged
through with its cursor to the last one, none dropped), which member to keep in each (the
suggested `keep` until the person picks another), which groups are included, and analysis
when images were not analysed yet. Tk thread only; no widgets (the window draws it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from serpent_tk.ui.language.translate import _
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error

PAGE = 100                  # groups per asset.find-duplicates call
TRASH_BATCH = 1000          # asset.trash takes at most this many ids (one undo step each)
POLL_MS = 500               # how often a running analysis is asked about
FINISHED = {"done", "failed", "cancelled", "interrupted"}


@dataclass
class Group:
    """One group of near-identical images (an `asset.find-duplicates` item)."""

    asset_ids: list[str]
    members: list[dict[str, Any]]
    suggested: str | None
    keep_reason: str
    keep: str | None = None            # the person's choice (the suggested one at first)
    included: bool = True              # "Trash the others" acts on this group

    @property
    def others(self) -> list[str]:
        return [m["assetId"] for m in self.members if m["assetId"] != self.keep]


@dataclass
class ReviewState:
    groups: list[Group] = field(default_factory=list)
    loading: bool = False
    total: int = 0
    analysed: int = 0
    not_analysed: int = 0
    error: str = ""
    analysing: bool = False            # analysis.run asked from here is still running
    analysis_done: int = 0
    analysis_total: int = 0


class DuplicateReview:
    def __init__(self, commands: Commands, library_id: str,
                 on_changed: Callable[[], None]) -> None:
        self.commands = commands
        self.library_id = library_id
        self.on_changed = on_changed
        self.state = ReviewState()
        self._generation = 0
        self._after: Callable[[int, Callable[[], None]], Any] | None = None

    # loading -----------------------------------------------------------------------------
    def load(self) -> None:
        """Find every group again (choices are kept for groups that are still the same)."""
        self._generation += 1
        generation = self._generation
        kept = {tuple(g.asset_ids): (g.keep, g.included) for g in self.state.groups}
        state = self.state
        state.loading, state.error = True, ""
        found: list[Group] = []
        self.on_changed()

        def page(reply: Reply) -> None:
            if generation != self._generation:
                return
            if not reply.ok:
                state.loading, state.error = False, describe_error(
                    reply, _("find duplicates"))
                state.groups = found
                self.on_changed()
                return
            result = reply.result
            for item in result.get("items", []):
                group = Group(list(item["assetIds"]), list(item.get("members", [])),
                              item.get("keep"), str(item.get("keepReason") or ""))
                group.keep, group.included = kept.get(tuple(group.asset_ids),
                                                      (group.suggested, True))
                if group.keep not in group.asset_ids:
                    group.keep = group.suggested
                found.append(group)
            state.total = int(result.get("total", len(found)))
            state.analysed = int(result.get("analysed", 0))
            state.not_analysed = int(result.get("notAnalysed", 0))
            cursor = result.get("nextCursor")
            if cursor:
                self._ask(cursor, page)
                return
            state.groups, state.loading = found, False
            self.on_changed()

        self._ask(None, page)

    def _ask(self, cursor: str | None, then: Callable[[Reply], None]) -> None:
        args: dict[str, Any] = {"libraryId": self.library_id, "limit": PAGE}
        if cursor:
            args["cursor"] = cursor
        self.commands.call("asset.find-duplicates", args, then)

    # choosing ----------------------------------------------------------------------------
    def keep(self, group: Group, asset_id: str) -> None:
        if asset_id in group.asset_ids:
            group.keep = asset_id
            self.on_changed()

    def include(self, group: Group, included: bool) -> None:
        group.included = included
        self.on_changed()

    def include_all(self, included: bool) -> None:
        for group in self.state.groups:
            group.included = included
        self.on_changed()

    def to_trash(self) -> list[str]:
        """Every member but the kept one, of every included group."""
        return [asset_id for g in self.state.groups if g.included for asset_id in g.others]

    # analysing ---------------------------------------------------------------------------
    def analyse(self, after: Callable[[int, Callable[[], None]], Any]) -> None:
        """Run `analysis.run` on what is not analysed yet, follow it, then look again.
        `after(ms, fn)` schedules on the Tk thread."""
        self._after = after
        state = self.state
        state.analysing, state.error = True, ""
        state.analysis_done, state.analysis_total = 0, state.not_analysed
        self.on_changed()

        def started(reply: Reply) -> None:
            if not reply.ok:
                state.analysing, state.error = False, describe_error(reply, _("analyse"))
                self.on_changed()
                return
            self._follow(str(reply.result["task"]["id"]))

        self.commands.call("analysis.run", {"libraryId": self.library_id}, started)

    def _follow(self, task_id: str) -> None:
        state = self.state

        def answered(reply: Reply) -> None:
            if reply.ok and reply.result.get("status") not in FINISHED:
                state.analysis_done = int(reply.result.get("done") or 0)
                state.analysis_total = int(reply.result.get("total") or 0)
                self.on_changed()
                if self._after is not None:
                    self._after(POLL_MS, lambda: self._follow(task_id))
                return
            state.analysing = False
            if not reply.ok or reply.result.get("status") == "failed":
                state.error = describe_error(reply, _("analyse")) if not reply.ok else \
                    _("The analysis stopped: {why}.").format(
                        why=reply.result.get("message") or _("an error"))
            self.load()

        self.commands.call("task.get", {"libraryId": self.library_id, "taskId": task_id},
                           answered)

    def stop(self) -> None:
        """The window closed: answers still on their way change nothing."""
        self._generation += 1
        self._after = None
