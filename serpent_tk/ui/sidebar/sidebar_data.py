"""Loading what the sidebar shows (counts, folders, tags, collections) without swamping the
library while agents write to it.

Tk thread only. Only the parts a change can have touched are reloaded (a rating change
touches none; a tag touches the tag counts), a part is never asked for again while its
previous answer is on the way, and after an answer it rests for twice as long as the answer
took (at least `MIN_GAP_S`), so a large library that answers slowly is asked less often.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from library.catalogue import task_kinds
from serpent_tk.automation.registry import CommandSpec
from serpent_tk.ui.shell.commands import Commands, Reply
from serpent_tk.ui.sidebar.sidebar import Sidebar

MIN_GAP_S = 0.4
PARTS = {"counts": "library.info", "folders": "folder.list", "tags": "tag.list",
         "collections": "collection.list"}


def parts_touched(kinds: Iterable[str], commands: Iterable[str],
                  spec: Callable[[str], CommandSpec | None],
                  background: Iterable[str] = ()) -> set[str]:
    """Which sidebar parts a batch of changes may have changed. A command whose spec says it
    moves assets between places (`recount`: imports, trash, undo, ...) may change every
    count, and so may background work that does (`task_kinds.MOVES_ASSETS`: a watched
    folder's sync); `spec` looks a command up in the registry, `background` are the task
    kinds of the changes no command made."""
    kinds, commands, background = set(kinds), set(commands) - {""}, set(background) - {""}
    recounts = {found.recount for found in map(spec, commands) if found is not None}
    if not (commands or background) or "everywhere" in recounts \
            or background & task_kinds.MOVES_ASSETS:
        return set(PARTS)
    parts = set()
    if "library" in kinds:
        parts.add("counts")
    if "tag" in kinds:
        parts.add("tags")
    if "folder" in kinds or "folders" in recounts:
        parts.add("folders")
    if "collection" in kinds or any(c.startswith("collection.") for c in commands):
        parts.add("collections")
    return parts


class SidebarData:
    def __init__(self, commands: Commands, sidebar: Sidebar,
                 on_tags: Callable[[list[dict[str, Any]]], None]) -> None:
        self.commands = commands
        self.sidebar = sidebar
        self.on_tags = on_tags
        self.library_id: str | None = None
        self._dirty: set[str] = set()
        self._in_flight: set[str] = set()
        self._rest_until: dict[str, float] = {}
        self._timer: str | None = None
        self._generation = 0

    def show_library(self, library_id: str | None) -> None:
        self.library_id = library_id
        self._generation += 1
        self._in_flight.clear()
        self._rest_until.clear()
        self._dirty = set(PARTS)
        self._pump()

    def reload(self, parts: Iterable[str] | None = None) -> None:
        self._dirty.update(PARTS if parts is None else parts)
        self._pump()

    def _pump(self) -> None:
        if self._timer is not None:
            self.sidebar.after_cancel(self._timer)
            self._timer = None
        if self.library_id is None:
            return
        now = time.monotonic()
        soonest: float | None = None
        for part in sorted(self._dirty):
            if not self.commands.available(PARTS[part]):
                self._dirty.discard(part)
            elif part in self._in_flight:
                continue                               # reloaded again when it answers
            elif self._rest_until.get(part, 0.0) > now:
                wake = self._rest_until[part]
                soonest = wake if soonest is None else min(soonest, wake)
            else:
                self._dirty.discard(part)
                self._start(part)
        if soonest is not None:
            self._timer = self.sidebar.after(max(1, int((soonest - now) * 1000)), self._pump)

    def _start(self, part: str) -> None:
        library_id, generation = self.library_id, self._generation
        args: dict[str, Any] = {"libraryId": library_id}
        if part == "tags":
            args.update(limit=500, sort="name")
        self._in_flight.add(part)
        started = time.monotonic()
        self.commands.call(PARTS[part], args,
                           lambda reply: self._answered(part, generation, started, reply))

    def _answered(self, part: str, generation: int, started: float, reply: Reply) -> None:
        if generation != self._generation:
            return
        self._in_flight.discard(part)
        took = time.monotonic() - started
        self._rest_until[part] = time.monotonic() + max(MIN_GAP_S, 2 * took)
        if reply.ok:
            result = reply.result
            items = list(result.get("items", []))
            if part == "counts":
                self.sidebar.show_counts(int(result.get("assetCount", 0)),
                                         int(result.get("trashedCount", 0)))
            elif part == "folders":
                self.sidebar.show_folders(items)
            elif part == "tags":
                self.on_tags(items)
            else:
                self.sidebar.show_collections(items)
        self._pump()
