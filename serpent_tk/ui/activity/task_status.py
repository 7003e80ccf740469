"""Background tasks in the status bar: "Analysing 120 / 2,000" with a small bar, gone when
the task ends; clicking it offers Cancel (`task.cancel`).

Tk thread only. Fed by the gateway's `TaskProgress` events (those that name a task: analysis
after an import, `library.refresh`, exports, an AI client's long import) and `LibraryChanged`
events of kind `task`
(how a task's end shows). A task that ended is confirmed with `task.get` before it leaves,
and one that has gone quiet is asked about, so the indicator never stays behind. The
previews made after an import ("Making previews 120 / 1,000"; a task of kind `previews`,
told by the event's `kind`) are asked about with `asset.preview-status` (its `making`:
done / total), the library's own count of them.
The window's own imports have their own progress bar (`importing`).
"""

from __future__ import annotations

import time
import tkinter as tk
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from tkinter import ttk
from typing import Any

from library.catalogue.task_kinds import PREVIEWS
from library.errors import ErrorCode
from serpent_tk.ui.language.formats import number
from serpent_tk.ui.language.translate import _, known
from serpent_tk.ui.shell.commands import Commands, Reply, describe_error
from serpent_tk.ui.shell.theme import Theme

SHOW_AFTER_MS = 400        # a task over sooner than this never appears
CHECK_MS = 2000            # how often quiet tasks are asked about
QUIET_S = 4.0              # a task without news this long is asked about (task.get)
FINISHED = {"done", "failed", "cancelled", "interrupted"}
REMEMBER_ENDED = 64        # ended tasks whose late events are ignored


@dataclass
class RunningTask:
    task_id: str
    command: str
    done: int
    total: int
    message: str
    seen: float                    # time.monotonic() of the last news
    cancelling: bool = False
    asking: bool = False           # a task.get is on its way
    doing: str = ""                # its command's words for it running: "Analysing"
    kind: str = ""                 # the task's kind (library.catalogue.task_kinds)


def describe(task: RunningTask) -> str:
    """'Analysing 120 / 2,000' ('Cancelling…' once asked to stop)."""
    if task.doing:
        verb = known(task.doing)             # a command's words (in the catalogue)
    elif task.kind == PREVIEWS:
        verb = _("Making previews")
    else:
        verb = _("Working")
    if task.cancelling:
        return _("Cancelling: {doing}…").format(doing=verb)
    if task.total > 0:
        return _("{doing} {done} / {total}").format(
            doing=verb, done=number(min(task.done, task.total)), total=number(task.total))
    return _("{doing}…").format(doing=verb)


class TaskStatus(ttk.Frame):
    def __init__(self, master: tk.Misc, theme: Theme, commands: Commands,
                 toast: Callable[..., None],
                 shown_elsewhere: Callable[[Any], bool] = lambda event: False) -> None:
        super().__init__(master)
        self.theme = theme
        self.commands = commands
        self.toast = toast
        self.shown_elsewhere = shown_elsewhere  # the window's own import has its own bar
        self.library_id: str | None = None
        self.tasks: dict[str, RunningTask] = {}
        self.ended: dict[str, None] = {}   # tasks seen to end, oldest first
        px = theme.px
        self.label = ttk.Label(self, style="Caption.TLabel", cursor="hand2")
        self.label.pack(side="left")
        self.bar = ttk.Progressbar(self, length=px(90), mode="determinate")
        self.bar.pack(side="left", padx=(px(6), 0))
        for widget in (self, self.label, self.bar):
            widget.bind("<Button-1>", self._clicked)
        self._show_timer: str | None = None
        self._check_timer: str | None = None
        self.menu: tk.Menu | None = None

    @property
    def visible(self) -> bool:
        return bool(self.winfo_manager())

    def text(self) -> str:
        return str(self.label.cget("text"))

    # events ------------------------------------------------------------------------------
    def show_library(self, library_id: str | None) -> None:
        """The window shows another library: forget the old one's tasks."""
        if library_id != self.library_id:
            self.library_id = library_id
            self.tasks.clear()
            self.ended.clear()
            self._update()

    def progress(self, event: Any) -> None:
        """A gateway `TaskProgress`."""
        task_id = getattr(event, "task_id", None)
        if not task_id or event.library_id != self.library_id or task_id in self.ended or \
                self.shown_elsewhere(event):
            return  # an event that left before its task's end was seen never brings it back
        task = self.tasks.get(task_id)
        now = time.monotonic()
        if task is None:
            spec = self.commands.spec(event.command)
            task = self.tasks[task_id] = RunningTask(task_id, event.command, 0, 0, "", now,
                                                     doing=spec.words.doing if spec else "",
                                                     kind=str(getattr(event, "kind", "")))
        task.done, task.total = int(event.done), int(event.total or 0)
        task.message, task.seen = str(event.message or ""), now
        if task.total and task.done >= task.total:
            self._ask(task)            # probably over: its last event says so
        self._update()

    def library_changed(self, event: Any) -> None:
        """A gateway `LibraryChanged`: a task's row changed (it may have ended)."""
        if event.library_id != self.library_id or "task" not in event.kinds:
            return
        for task_id in event.entity_ids:
            task = self.tasks.get(task_id)
            if task is not None:
                self._ask(task)

    # asking about a task -------------------------------------------------------------------
    def _ask(self, task: RunningTask) -> None:
        if task.asking or self.library_id is None:
            return
        task.asking = True
        library_id = self.library_id
        if task.kind == PREVIEWS and self.commands.available("asset.preview-status"):
            self._ask_previews(task, library_id)
            return

        def answered(reply: Reply) -> None:
            task.asking = False
            if library_id != self.library_id or self.tasks.get(task.task_id) is not task:
                return
            if not reply.ok:
                if reply.code == ErrorCode.NOT_FOUND:
                    self._forget(task)
                return
            status = str(reply.result.get("status", ""))
            task.seen = time.monotonic()
            if status in FINISHED:
                if status == "failed":
                    message = reply.result.get("message") or _("It stopped with an error.")
                    self.toast(_("{task} stopped: {why}").format(
                        task=known(task.doing) or _("A task"), why=message), "warning")
                self._forget(task)
            else:
                task.done = int(reply.result.get("done") or task.done)
                task.total = int(reply.result.get("total") or task.total)
                task.cancelling = task.cancelling or bool(reply.result.get("cancelRequested"))
                self._update()

        self.commands.call("task.get", {"libraryId": library_id, "taskId": task.task_id},
                           answered)

    def _ask_previews(self, task: RunningTask, library_id: str) -> None:
        """How far the previews are, from the library's count (`making`); none being made
        (or another run's): this one is over."""

        def answered(reply: Reply) -> None:
            task.asking = False
            if library_id != self.library_id or self.tasks.get(task.task_id) is not task:
                return
            if not reply.ok:
                return
            making = reply.result.get("making") or {}
            task.seen = time.monotonic()
            if making.get("taskId") != task.task_id:
                self._forget(task)
                return
            task.done, task.total = int(making.get("done") or 0), int(making.get("total") or 0)
            self._update()

        self.commands.call("asset.preview-status", {"libraryId": library_id}, answered)

    def _forget(self, task: RunningTask) -> None:
        self.tasks.pop(task.task_id, None)
        self.ended[task.task_id] = None
        while len(self.ended) > REMEMBER_ENDED:
            del self.ended[next(iter(self.ended))]
        self._update()

    def _check_quiet(self) -> None:
        self._check_timer = None
        now = time.monotonic()
        for task in list(self.tasks.values()):
            if now - task.seen > QUIET_S:
                self._ask(task)
        self._update()

    # cancelling ----------------------------------------------------------------------------
    def entries(self) -> list[tuple[str, Callable[[], None]]]:
        """What clicking the indicator offers: Cancel per running task."""
        found: list[tuple[str, Callable[[], None]]] = []
        for task in self.tasks.values():
            if task.cancelling:
                continue
            label = _("Cancel: {task}").format(task=describe(task)) if len(self.tasks) > 1 \
                else _("Cancel")
            found.append((label, partial(self.cancel, task.task_id)))
        return found

    def cancel(self, task_id: str) -> None:
        task = self.tasks.get(task_id)
        if task is None or self.library_id is None:
            return
        task.cancelling = True
        self._update()

        def answered(reply: Reply) -> None:
            if reply.ok:
                self._ask(task)
            elif reply.code == ErrorCode.NOT_FOUND:
                self._forget(task)
            else:
                task.cancelling = False
                self._update()
                self.toast(describe_error(reply, _("cancel it")), "error")

        self.commands.call("task.cancel", {"libraryId": self.library_id, "taskId": task_id},
                           answered)

    def _clicked(self, event: tk.Event) -> None:
        entries = self.entries()
        if not entries:
            return
        self.menu = tk.Menu(self, tearoff=False)
        for label, action in entries:
            self.menu.add_command(label=label, command=action)
        self.menu.tk_popup(event.x_root, event.y_root)

    # drawing -------------------------------------------------------------------------------
    def _update(self) -> None:
        if not self.tasks:
            self._cancel_timers()
            self.pack_forget()
            return
        task = max(self.tasks.values(), key=lambda t: t.seen)
        text = describe(task)
        others = len(self.tasks) - 1
        if others:
            text += _("  (+{n} more)").format(n=others)
        if self.label.cget("text") != text:
            self.label.configure(text=text)
        if task.total > 0:
            if str(self.bar.cget("mode")) != "determinate":
                self.bar.stop()
                self.bar.configure(mode="determinate")
            self.bar.configure(maximum=task.total, value=min(task.done, task.total))
        elif str(self.bar.cget("mode")) != "indeterminate":
            self.bar.configure(mode="indeterminate")
            self.bar.start(60)
        if not self.visible and self._show_timer is None:
            self._show_timer = self.after(SHOW_AFTER_MS, self._show)
        if self._check_timer is None:
            self._check_timer = self.after(CHECK_MS, self._check_quiet)

    def _show(self) -> None:
        self._show_timer = None
        if self.tasks and not self.visible:
            self.pack(side="right", padx=(self.theme.px(12), 0))

    def _cancel_timers(self) -> None:
        for name in ("_show_timer", "_check_timer"):
            timer = getattr(self, name)
            if timer is not None:
                self.after_cancel(timer)
                setattr(self, name, None)
        self.bar.stop()

    def destroy(self) -> None:
        self._cancel_timers()
        super().destroy()
