"""The one completion point: the side effects of a command, whoever called it.

Thread-safe. A person's click and an agent's tool call end here alike. Will-hooks run before
a command and may veto it; those of plugins answer from another process, so they are asked
without blocking (`asking`: futures the gateway's steps wait for). Did-hooks run after its
success: first Serpent's own
(`effects.CoreEffects`: the change receipt, analysis queued after every import, lifecycle
events and toasts for the window), registered with `add_did` like any plugin's, then the
plugins'. The library host's events (changes from any source, task progress, a library that
closed by itself, a restarted worker) become gateway events here too. The caller's source is
only a label; the one source-dependent effect is that the window is told by toast about
lifecycle actions it did not perform itself (docs/contracts.md §4).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any

from library.errors import PERMISSION_DENIED, LibraryError
from library.events import REOPENED, DatabaseStatus, LibraryClosed, WorkerRestarted
from serpent_tk.automation.analysis import AnalysisQueue
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.effects import CoreEffects
from serpent_tk.automation.errors import internal
from serpent_tk.automation.events import (
    LibraryChanged,
    LibraryLifecycle,
    Said,
    TaskProgress,
    Toast,
)
from serpent_tk.automation.registry import CommandSpec

log = logging.getLogger("serpent.automation.hooks")

Publish = Callable[[object], None]
SYSTEM_LABEL = "Serpent"


@dataclass(frozen=True)
class HookContext:
    """What a hook may look at. `result` and `change_sequence` are None for will-hooks."""

    spec: CommandSpec
    caller: Caller
    library_id: str | None
    arguments: dict[str, Any]  # validated, camelCase JSON
    result: dict[str, Any] | None = None
    library_name: str = ""  # the library's name as bound before the call
    extra: dict[str, Any] = field(default_factory=dict)
    change_sequence: int | None = None  # the library's, after the command


class Veto(Exception):
    """Raised by a will-hook to refuse a command; the message is shown to the caller."""


WillHook = Callable[[HookContext], None]
DidHook = Callable[[HookContext], None]
# answers later: a future that fails with Veto to refuse; None when not interested
AskingHook = Callable[[HookContext], "Future[None] | None"]


class Hooks:
    """Runs will- and did-hooks (Serpent's own first). Thread-safe."""

    def __init__(self, publish: Publish, analysis: AnalysisQueue | None = None) -> None:
        self._publish = publish
        self.analysis = analysis if analysis is not None else AnalysisQueue()
        self._lock = threading.Lock()
        self._will: list[tuple[str, WillHook]] = []
        self._asking: list[tuple[str, AskingHook]] = []
        self._did: list[tuple[str, DidHook]] = []
        CoreEffects(publish, self.analysis).install(self)

    def add_will(self, owner: str, hook: WillHook) -> Callable[[], None]:
        """Run `hook` before every command; it may raise `Veto`. Returns the remover."""
        return self._add(self._will, owner, hook)

    def add_asking(self, owner: str, hook: AskingHook) -> Callable[[], None]:
        """A will-hook that answers later (a plugin's): see `asking`. Returns the remover."""
        return self._add(self._asking, owner, hook)

    def add_did(self, owner: str, hook: DidHook) -> Callable[[], None]:
        """Run `hook` after every successful command (errors in it are only logged)."""
        return self._add(self._did, owner, hook)

    def _add(self, hooks: list[tuple[str, Any]], owner: str, hook: Any) -> Callable[[], None]:
        entry = (owner, hook)
        with self._lock:
            hooks.append(entry)

        def remove() -> None:
            with self._lock:
                if entry in hooks:
                    hooks.remove(entry)
        return remove

    def before(self, context: HookContext) -> None:
        """Will-hooks, in the order added. A veto or a crashing hook stops the command."""
        with self._lock:
            hooks = list(self._will)
        for owner, hook in hooks:
            try:
                hook(context)
            except Exception as error:
                raise self.refusal(owner, context, error) from None

    def asking(self, context: HookContext) -> list[tuple[str, Future[None]]]:
        """Ask every answering-later will-hook at once; the caller waits for each future and
        turns a failed one into `refusal(...)`. A hook that raises while asked refuses."""
        with self._lock:
            hooks = list(self._asking)
        asked: list[tuple[str, Future[None]]] = []
        for owner, hook in hooks:
            try:
                answer = hook(context)
            except Exception as error:
                answer = Future()
                answer.set_exception(error)
            if answer is not None:
                asked.append((owner, answer))
        return asked

    @staticmethod
    def refusal(owner: str, context: HookContext, error: BaseException) -> LibraryError:
        """What the caller hears when a will-hook said no (`Veto`) or failed: the command does
        not run (a broken hook must not let commands slip past it)."""
        if isinstance(error, Veto):
            return LibraryError(PERMISSION_DENIED, f"{owner} refused {context.spec.name}: "
                                f"{error}", reason="veto")
        if isinstance(error, LibraryError):
            return error
        return internal(error, f"will-hook of {owner} for {context.spec.name}")

    def completed(self, context: HookContext, change_sequence: int | None) -> None:
        """The side effects of a successful command: every did-hook, in the order added (a
        failing one is logged, the others still run). Never raises."""
        context = replace(context, change_sequence=change_sequence)
        with self._lock:
            hooks = list(self._did)
        for owner, hook in hooks:
            try:
                hook(context)
            except Exception as error:
                internal(error, f"did-hook of {owner} for {context.spec.name}")

    def library_event(self, event: object) -> None:
        """Turn an event of the library host into gateway events. Runs on its reader thread."""
        if isinstance(event, LibraryChanged | TaskProgress | DatabaseStatus):
            self._publish(event)  # the worker's own event, as it came
        elif isinstance(event, LibraryClosed) and event.reason != "closed":
            # A close somebody asked for has its lifecycle event from `completed` already;
            # this one happened to the library: its folder vanished or its worker failed.
            self.analysis.discard_library(event.library_id)
            self._publish(LibraryLifecycle(
                library_id=event.library_id, name="", action="closed",
                actor_label=SYSTEM_LABEL, source="system"))
            said = (Said("A library was closed because its folder is gone (moved, or its "
                         "drive was unplugged).") if event.reason == "vanished" else
                    Said("A library was closed because it could not be started again."))
            self._publish(Toast(text=said.template, level="warning", actor_label=SYSTEM_LABEL,
                                said=said))
        elif isinstance(event, WorkerRestarted) and event.reason != REOPENED:
            # (a worker started anew on purpose, after library.move-to-studio, is no problem)
            said = Said("A library had a problem and was restarted; nothing that was saved "
                        "is lost.")
            self._publish(Toast(text=said.template, level="warning", actor_label=SYSTEM_LABEL,
                                said=said))
