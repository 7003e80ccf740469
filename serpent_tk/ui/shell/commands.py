"""How the window runs library commands: through the gateway, answers back on the Tk thread.

`call()` may be used from the Tk thread only; it never blocks. The gateway's future resolves
on some other thread; its callback only posts a `RunOnTk` event to the UiBus, and the
handler given to `call()` runs later on the Tk thread. This module is also the one place
where an error envelope becomes words for the person (`describe_error`). Answers are typed
(`automation.envelope.Envelope`); `Reply` reads one without raw dict lookups.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Protocol

from library.errors import ErrorCode
from serpent_tk.automation import envelope as envelopes
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.envelope import Challenge, Envelope, ErrorBody, Status
from serpent_tk.automation.registry import CommandSpec, Registry
from serpent_tk.ui.language import translate
from serpent_tk.ui.language.translate import N_, _
from serpent_tk.ui.shell.bus import UiBus
from serpent_tk.ui.shell.events import RunOnTk, ShowToast

log = logging.getLogger(__name__)

# what each error code means, in the window's words; in English the library's own message is
# said when it has one (it names what is wrong), except for these codes, whose words are ours
_ALWAYS_OURS = frozenset({
    ErrorCode.VERSION_CONFLICT, ErrorCode.WORKER_UNAVAILABLE, ErrorCode.BUSY,
    ErrorCode.LIBRARY_NOT_OPEN, ErrorCode.HISTORY_EMPTY, ErrorCode.PERMISSION_DENIED})
_CODE_WORDS: dict[str, str] = {
    ErrorCode.VERSION_CONFLICT: N_(
        "It was changed meanwhile (perhaps by an AI client). The newest version is shown "
        "now; please try again."),
    ErrorCode.WORKER_UNAVAILABLE: N_("The library is restarting. Please try again in a moment."),
    ErrorCode.BUSY: N_("The library is busy. Please try again in a moment."),
    ErrorCode.LIBRARY_NOT_OPEN: N_("That library is not open any more."),
    ErrorCode.HISTORY_EMPTY: N_("There is nothing to undo."),
    ErrorCode.PERMISSION_DENIED: N_("That is not allowed."),
    ErrorCode.INVALID_ARGUMENT: N_("That value is not accepted."),
    ErrorCode.LIBRARY_REQUIRED: N_("No library was named."),
    ErrorCode.LIBRARY_NOT_FOUND: N_("That library is not known here."),
    ErrorCode.NOT_FOUND: N_("It is not there any more (perhaps it was deleted meanwhile)."),
    ErrorCode.ALREADY_EXISTS: N_("That name is already taken."),
    ErrorCode.STALE_PLAN: N_("Things changed meanwhile; please try again."),
    ErrorCode.NOT_EMPTY: N_("The folder is not empty."),
    ErrorCode.PATH_INVALID: N_("That is not a valid path."),
    ErrorCode.PATH_NOT_FOUND: N_("That file or folder does not exist."),
    ErrorCode.PATH_FORBIDDEN: N_("That place is not allowed (it is inside a library's own "
                                 "files)."),
    ErrorCode.UNSUPPORTED_FORMAT: N_("Serpent cannot read that kind of file."),
    ErrorCode.CHALLENGE_INVALID: N_("The confirmation expired; please try again."),
    ErrorCode.HISTORY_CONFLICT: N_("That step cannot be undone any more: what it changed has "
                                   "changed since."),
    ErrorCode.CANCELLED: N_("It was cancelled."),
    ErrorCode.DISK_FULL: N_("There is not enough free disk space."),
    ErrorCode.LIBRARY_DAMAGED: N_("The library's database is damaged; Serpent can recover what "
                                  "is still readable into a new library."),
    ErrorCode.PLUGIN_FAILED: N_("The plugin failed; it keeps running."),
    ErrorCode.INTERNAL: N_("Something went wrong inside Serpent."),
}
# a write caught by its library worker's death, when Serpent could not answer it for sure
# (`outcome` of WORKER_UNAVAILABLE; `not-saved` keeps the code's words: try again)
_OUTCOME_WORDS = {
    "partial": N_("The library stopped twice while doing this. What it did so far is saved; "
                  "look before trying again."),
    "unknown": N_("The library stopped and did not come back, so whether this was saved is "
                  "not known. Look once the library is open again before trying again."),
}


@dataclass(frozen=True)
class Reply:
    """One gateway envelope (docs/contracts.md §2), read by the Tk thread."""

    envelope: Envelope

    @property
    def status(self) -> Status:
        return self.envelope["status"]

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def needs_confirmation(self) -> bool:
        return self.status == "confirmation_required"

    @property
    def result(self) -> dict[str, Any]:
        """The command's result; empty unless ok."""
        return envelopes.result_of(self.envelope) or {}

    @property
    def error(self) -> ErrorBody | None:
        """What went wrong; None unless an error."""
        return envelopes.error_of(self.envelope)

    @property
    def code(self) -> ErrorCode | None:
        """The error's code; None unless an error."""
        return envelopes.error_code(self.envelope)

    @property
    def message(self) -> str:
        """The error's own words (the library's, a plugin's); empty unless an error."""
        return self.error["message"] if self.error is not None else ""

    @property
    def reason(self) -> str:
        """The error's `reason` detail ("veto": a plugin's check refused it); else empty."""
        return self.error.get("reason", "") if self.error is not None else ""

    @property
    def challenge(self) -> Challenge | None:
        """A dangerous command's challenge (its second call repeats the `id`); else None."""
        envelope = self.envelope
        return envelope["challenge"] if envelope["status"] == "confirmation_required" else None

    @property
    def risk_report(self) -> dict[str, Any]:
        """A dangerous command's risk report; empty unless confirmation is required."""
        envelope = self.envelope
        return envelope["riskReport"] if envelope["status"] == "confirmation_required" else {}

    @property
    def change_sequence(self) -> int | None:
        envelope = self.envelope
        return envelope.get("libraryChangeSequence") if envelope["status"] == "ok" else None


def describe_error(reply: Reply, doing: str | None = None) -> str:
    """The sentence a person reads when `reply` failed ("Could not rename it: ...");
    `doing` is what failed, already in the window's language ("rename it")."""
    error = reply.error
    code = error["code"] if error is not None else None
    given = reply.message
    english = translate.current() == translate.ENGLISH
    vetoed = reply.reason == "veto"   # a plugin's check refused it: say why
    outcome = error.get("outcome", "") if error is not None else ""
    incident = error.get("incidentId", "") if error is not None else ""
    if code == ErrorCode.WORKER_UNAVAILABLE and outcome in _OUTCOME_WORDS:
        message = _(_OUTCOME_WORDS[outcome])
    elif given and (vetoed or (english and code not in _ALWAYS_OURS)):
        message = given
    else:
        words = _CODE_WORDS.get(code) if code is not None else None
        message = _(words or N_("Something went wrong."))
    if code == ErrorCode.INTERNAL and incident:
        message = _("{message} (incident {incident} is in the log)").format(
            message=message, incident=incident)
    return _("Could not {doing}: {reason}").format(doing=doing, reason=message) if doing \
        else message


class GatewayPort(Protocol):
    """What the window needs of the gateway (`serpent_tk.automation.gateway.Gateway`)."""

    registry: Registry
    person: str  # Settings → General: the name a studio library's changes are signed with
    window_attached: bool  # the window shows the gateway's toasts itself

    def submit(self, name: str, args: dict[str, Any] | None,
               caller: Caller) -> Future[Envelope]: ...

    def subscribe(self, listener: Callable[[object], None]) -> Callable[[], None]: ...


class Commands:
    """Runs gateway commands as the person at the window (`Caller.ui()`)."""

    def __init__(self, gateway: GatewayPort, bus: UiBus, *, workers: int = 2) -> None:
        self.gateway = gateway
        self.bus = bus
        self.caller = Caller.ui()
        self._background = ThreadPoolExecutor(max_workers=workers,
                                              thread_name_prefix="ui-background")
        self._submitter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ui-submit")
        self.closed = False       # shut down: answers still on their way go to nobody

    def available(self, name: str) -> bool:
        """Does the registry know `name`? Thread-safe."""
        return self.gateway.registry.commands.get(name) is not None

    def prepare(self, name: str) -> None:
        """Build command `name`'s input validator now, off the Tk thread: the command models
        are built on first use (`defer_build`), and a call the person waits for (the first
        page) should not pay for it."""
        spec = self.spec(name)
        if spec is not None:
            with contextlib.suppress(RuntimeError):     # shut down: the window is closing
                self._background.submit(spec.input_model.model_rebuild)

    def spec(self, name: str) -> CommandSpec | None:
        """What the registry says about command `name` (its words, what it changes), or None
        for a name it does not know. Thread-safe."""
        spec: CommandSpec | None = self.gateway.registry.commands.get(name)
        return spec

    def submit(self, name: str, args: dict[str, Any], *,
               ticket: str | None = None) -> Future[Envelope]:
        """The gateway's answer as a future (for callers that continue off the Tk thread).

        The gateway validates and sends on the calling thread; that work is done by one
        submitting thread (in order), so the Tk thread only queues the call. Cancelling the
        returned future cancels the gateway call. `ticket` names the call's work on its
        progress events (`TaskProgress.ticket`)."""
        outer: Future[Envelope] = Future()
        caller = replace(self.caller, ticket=ticket) if ticket else self.caller

        def send() -> None:
            if outer.cancelled():
                return
            try:
                inner = self.gateway.submit(name, args, caller)
            except Exception as error:     # the gateway promises not to raise; never hang
                outer.set_exception(error)
                return
            outer.add_done_callback(lambda f: inner.cancel() if f.cancelled() else None)
            inner.add_done_callback(lambda f: _copy_outcome(f, outer))

        try:
            self._submitter.submit(send)
        except RuntimeError:               # shut down: the window is closing
            outer.cancel()
        return outer

    def call(self, name: str, args: dict[str, Any],
             on_reply: Callable[[Reply], None] | None = None, *,
             doing: str | None = None, ticket: str | None = None) -> Future[Envelope]:
        """Submit `name`; `on_reply(reply)` runs on the Tk thread.

        Without `on_reply`, a failure becomes an error toast ("Could not `doing`: ...";
        `doing` in the window's language).
        With it, the handler decides what to show.
        """
        future = self.submit(name, args, ticket=ticket)
        self.reply_on_tk(name, future, on_reply, doing=doing)
        return future

    def reply_on_tk(self, name: str, future: Future[Envelope],
                    on_reply: Callable[[Reply], None] | None = None, *,
                    doing: str | None = None) -> None:
        """When `future` (of `submit(name, ...)`) is done, `on_reply(reply)` runs on the Tk
        thread (without it, a failure becomes an error toast, as in `call`). Thread-safe."""

        def done(f: Future[Envelope]) -> None:             # any thread: only posts
            if self.closed:
                return                                     # its window is gone (rebuilt)
            if f.cancelled():
                envelope: Envelope = envelopes.failed(ErrorCode.CANCELLED,
                                                      _("The command was cancelled."))
            elif f.exception() is not None:                # the gateway promises not to raise
                log.error("gateway future for %s failed: %s", name, f.exception())
                envelope = envelopes.failed(ErrorCode.INTERNAL, str(f.exception()))
            else:
                envelope = f.result()
            reply = Reply(envelope)
            if on_reply is not None:
                self.bus.post(RunOnTk(on_reply, (reply,)))
            elif not reply.ok:
                self.bus.post(ShowToast(describe_error(reply, doing or _("do that")), "error"))

        future.add_done_callback(done)

    def background(self, work: Callable[[], Any],
                   on_done: Callable[[Any, BaseException | None], None] | None = None) -> None:
        """Run slow non-library work (files, sockets) off the Tk thread; `on_done(result,
        error)` runs on the Tk thread."""

        def run() -> None:
            error: BaseException | None = None
            try:
                result = work()
            except Exception as caught:  # reported to the Tk thread, never lost
                result, error = None, caught
            if on_done is not None and not self.closed:
                self.bus.post(RunOnTk(on_done, (result, error)))

        with contextlib.suppress(RuntimeError):     # shut down: the window is closing
            self._background.submit(run)

    def shutdown(self, wait: bool = False) -> None:
        self.closed = True
        self._submitter.shutdown(wait=wait, cancel_futures=True)
        self._background.shutdown(wait=wait, cancel_futures=True)


def _copy_outcome(source: Future[Envelope], target: Future[Envelope]) -> None:
    if target.done():
        return
    if source.cancelled():
        target.cancel()
    elif source.exception() is not None:
        target.set_exception(source.exception())
    else:
        target.set_result(source.result())
