"""The gateway: the one path every command takes, from the window, MCP, plugins or the CLI.

Thread-safe; `submit()` never blocks the calling thread (the Tk thread and the MCP asyncio
thread both call it) and never raises: its future resolves to a docs/contracts.md §2 envelope.
Order: command lookup → schema validation → caller → capability policy → library binding
(only from the explicit `libraryId`) → will-hooks → dangerous-command challenge → the worker,
or the spec's own handler (commands the main process answers, plugin commands) → the spec's
after-step → completion hooks → audit line. What a command does differently is on its spec;
the gateway never looks at a command's name. Every write gets a request id its worker commits
with it, so a write caught by a worker's death is answered, never applied twice
(`library.resend`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from library.client import CallFuture, LibraryHost
from library.errors import (
    CANCELLED,
    LIBRARY_NOT_FOUND,
    LIBRARY_REQUIRED,
    NOT_FOUND,
    PERMISSION_DENIED,
    LibraryError,
)
from library.idempotency import new_request_id
from library.protocol import CallMeta
from serpent_tk.automation import audit, envelope, policy
from serpent_tk.automation.analysis import AnalysisFeeder
from serpent_tk.automation.caller import MAX_LABEL_LENGTH, SOURCES, Caller
from serpent_tk.automation.challenge import (
    Binding,
    ChallengeStore,
    normalized,
    target_versions,
)
from serpent_tk.automation.challenge import invalid as challenge_invalid
from serpent_tk.automation.commands import build_registry
from serpent_tk.automation.envelope import Envelope
from serpent_tk.automation.errors import (
    as_library_error,
    from_validation,
    internal,
    invalid_argument,
    permission_denied,
    unknown_command,
)
from serpent_tk.automation.events import ToolsChanged
from serpent_tk.automation.hooks import HookContext, Hooks
from serpent_tk.automation.libraries import Libraries
from serpent_tk.automation.plugins.exposure import PluginExposure
from serpent_tk.automation.registry import (
    CONFIRM_CHALLENGE,
    IDEMPOTENCY_KEY,
    LIBRARY_ID,
    STATE_TOKEN,
    CommandCall,
    CommandSpec,
    Registry,
)
from serpent_tk.credentials import MODES
from serpent_tk.listeners import Listeners
from serpent_tk.paths import app_dirs, machine_name
from serpent_tk.settings import SettingsStore

if TYPE_CHECKING:
    from library.spare_worker import SpareWorkers

log = logging.getLogger("serpent.automation.gateway")

Listener = Callable[[object], None]
HostFactory = Callable[[Callable[[object], None]], LibraryHost]
T = TypeVar("T")
# a call's steps: yield the futures they wait for, return the answer
CallSteps = Generator[Future[Any], Any, Envelope]

MAX_REPORT_TARGETS = 100  # risk report targets shown to the caller (all of them are bound)


@dataclass
class _Call:
    """One submitted call while it runs."""

    name: str
    caller: Caller
    started: float
    command: str = ""
    library_id: str | None = None
    waiting: Future[Any] | None = None


@dataclass(frozen=True)
class _Validated:
    arguments: dict[str, Any]  # what the caller set (camelCase JSON), for the worker
    full: dict[str, Any]  # with defaults, for the challenge binding
    model: BaseModel
    library_id: str | None
    challenge_id: str | None
    idempotency_key: str | None


class Gateway:
    """Runs commands for every caller. Thread-safe."""

    def __init__(self, settings: SettingsStore, *, registry: Registry | None = None,
                 host_factory: HostFactory | None = None,
                 challenges: ChallengeStore | None = None,
                 strict_outputs: bool = False) -> None:
        self.registry = registry if registry is not None else build_registry()
        self.settings = settings
        self.challenges = challenges if challenges is not None else ChallengeStore()
        self.strict_outputs = strict_outputs  # tests: results must match the output models
        self.window_attached = False  # the window sets this while it shows toasts
        self._lock = threading.Lock()
        self._listeners: Listeners[[object]] = Listeners("gateway events")
        self.hooks = Hooks(self.publish)
        self._io = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gateway-io")
        self.exposure = PluginExposure(self.registry)  # which plugin commands MCP may see
        self._unhook_exposure = self.exposure.on_change(lambda: self.publish(ToolsChanged()))
        self.host: LibraryHost = (host_factory or default_host)(self.on_library_event)
        self.libraries = Libraries(self.host, settings)
        self.person = settings.load().settings.ui.person_name  # Settings → General
        self.analysis_feeder = AnalysisFeeder(self.hooks.analysis, self.host, self.registry)
        self.analysis_feeder.start()
        self._io.submit(self.libraries.finish_deletions)  # what a crash left half deleted

    # ---- public API -------------------------------------------------------------------

    def submit(self, name: str, args: dict[str, Any] | None, caller: Caller) -> Future[Envelope]:
        """Run command `name` (dotted or tool name) for `caller`. Never blocks, never raises.

        The future resolves to the envelope. Cancelling it asks the worker to stop the
        running command (what was committed stays).
        """
        call = _Call(name=name if isinstance(name, str) else repr(name), caller=caller,
                     started=time.monotonic())
        outer: Future[Envelope] = Future()
        outer.add_done_callback(lambda f: self._cancelled(f, call))
        self._drive(self._steps(call, args), outer, call)
        return outer

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every gateway event (see `events.py`). Returns the unsubscribe function.

        Listeners run on any thread and must not block.
        """
        return self._listeners.subscribe(listener)

    def in_background(self, work: Callable[..., T], *args: Any) -> Future[T]:
        """Run slow work (the disk, the settings file) on the gateway's I/O threads; a
        command's steps yield the future instead of blocking a caller's thread."""
        return self._io.submit(work, *args)

    def publish(self, event: object) -> None:
        """Tell every subscriber (see `events.py`). Thread-safe; a failing listener is
        logged, never raised."""
        self._listeners.tell(event)

    def on_library_event(self, event: object) -> None:
        """Translate the host's events into gateway events. Runs on the host's reader thread."""
        try:
            self.hooks.library_event(event)
        except Exception as error:
            internal(error, f"translating {type(event).__name__}")

    def shutdown(self, timeout: float = 10.0) -> None:
        self._unhook_exposure()
        self.exposure.close()
        self.analysis_feeder.stop()
        self.host.shutdown(timeout)
        self._io.shutdown(wait=True, cancel_futures=True)

    # ---- driving a call -------------------------------------------------------------------

    def _drive(self, steps: CallSteps, outer: Future[Envelope], call: _Call) -> None:
        """Advance the call's steps whenever the future it waits for completes."""

        def advance(value: Any = None, error: BaseException | None = None) -> None:
            while True:
                if outer.cancelled():
                    steps.close()
                    return
                try:
                    waiting = steps.throw(error) if error is not None else steps.send(value)
                except StopIteration as stop:
                    self._finish(outer, call, stop.value)
                    return
                except BaseException as bug:  # the steps catch everything; this is a bug
                    failure = internal(bug, f"gateway call {call.command or call.name}")
                    self._finish(outer, call, envelope.error(failure, call.library_id))
                    return
                call.waiting = waiting
                if not waiting.done():
                    waiting.add_done_callback(lambda done: advance(*_outcome(done)))
                    return
                value, error = _outcome(waiting)

        advance()

    def _finish(self, outer: Future[Envelope], call: _Call, answer: Envelope) -> None:
        outcome = envelope.error_code(answer) or answer["status"]
        audit.record(call.caller, call.command or call.name, call.library_id,
                     time.monotonic() - call.started, outcome)
        if not outer.done():
            with contextlib.suppress(InvalidStateError):  # cancelled at the same moment
                outer.set_result(answer)

    def _cancelled(self, outer: Future[Envelope], call: _Call) -> None:
        if not outer.cancelled():
            return
        audit.record(call.caller, call.command or call.name, call.library_id,
                     time.monotonic() - call.started, CANCELLED)
        if isinstance(call.waiting, CallFuture):  # the call waits for the worker: stop it there
            try:
                call.waiting.cancel_remote()
            except Exception as error:
                log.warning("could not cancel %s in the worker: %s", call.command, error)

    # ---- the steps ----------------------------------------------------------------------

    def _steps(self, call: _Call, raw_args: Any) -> CallSteps:
        try:
            self._check_caller(call.caller)
            spec = self._lookup(call.name, call.caller)
            call.command = spec.name
            if spec.scope == "library":  # a call that names a library is answered with it,
                call.library_id = _named_library(raw_args)  # even when validation fails
            checked = self._validate(spec, raw_args)
            call.library_id = checked.library_id  # targeted: errors name it from here on
            missing = policy.missing_capabilities(call.caller, spec.capabilities)
            if missing:
                raise permission_denied(spec.name, call.caller.mode, missing)
            name = ""
            bound: dict[str, Any] = {}
            bound_sequence: int | None = None
            if spec.scope == "library":
                if checked.library_id is None:
                    raise LibraryError(LIBRARY_REQUIRED, f"{spec.name} needs libraryId: pass "
                                       "one from serpent_library_list_open explicitly.")
                bound = self.libraries.bind(checked.library_id)
                name = bound.get("name", "")
                bound_sequence = self._sequence(checked.library_id)
            context = HookContext(spec=spec, caller=call.caller, library_id=call.library_id,
                                  arguments=checked.arguments, library_name=name)
            self.hooks.before(context)
            for owner, answer in self.hooks.asking(context):  # plugins' will-hooks
                try:
                    yield answer
                except Exception as error:
                    raise self.hooks.refusal(owner, context, error) from None
            meta = CallMeta(source=call.caller.source, credential=call.caller.credential,
                            label=attributed(call.caller, self.person),
                            person=self.person.strip() or None,
                            idempotency_key=checked.idempotency_key,
                            request_id=new_request_id() if spec.writes else None,
                            ticket=call.caller.ticket)
            command = CommandCall(spec=spec, caller=call.caller, library_id=call.library_id,
                                  library=bound, arguments=checked.arguments, meta=meta,
                                  gateway=self)
            if spec.dangerous:
                confirmation, result = yield from self._dangerous(command, call, checked)
                if confirmation is not None:
                    return confirmation
            elif spec.handler is not None:  # the main process (or a plugin) answers it
                steps = spec.handler(command)
                result = (yield from steps) if isinstance(steps, Generator) else steps
            else:
                assert call.library_id is not None
                result = yield self.host.call(call.library_id, spec.name, checked.arguments,
                                              meta)
            if spec.after is not None:
                result = yield from spec.after(command, result)
            result = self._check_result(spec, result)
            sequence = None
            if spec.scope == "library":  # a library closed by this call: its last sequence
                sequence = self._sequence(call.library_id)
                sequence = bound_sequence if sequence is None else sequence
            self.hooks.completed(replace(context, result=result, library_name=name), sequence)
            return envelope.ok(result, call.library_id if spec.scope == "library" else None,
                               sequence)
        except Exception as error:
            failure = as_library_error(error, f"{call.command or call.name}")
            return envelope.error(failure, call.library_id)

    def _lookup(self, name: str, caller: Caller) -> CommandSpec:
        spec = self.registry.get(name) if isinstance(name, str) else None
        if spec is None or (spec.internal and caller.source != "plugin"):
            raise unknown_command(name)  # internal: for plugin analysers only
        if spec.plugin_id is not None and (
                not policy.mode_allows(caller.mode, spec.min_mode)
                or (caller.source == "mcp" and not self.exposure.exposed(spec))):
            raise unknown_command(name)  # hidden plugin tools look exactly like unknown ones
        return spec

    def _validate(self, spec: CommandSpec, raw: Any) -> _Validated:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise invalid_argument("arguments", "must be an object")
        args = dict(raw)
        library_id = challenge_id = key = None
        if spec.scope == "library":
            library_id = args.pop(LIBRARY_ID, None)
            if library_id is not None and not isinstance(library_id, str):
                raise invalid_argument(LIBRARY_ID, "must be a string")
            if library_id is not None and len(library_id) > 64:
                raise LibraryError(LIBRARY_NOT_FOUND, "There is no library with this id.")
            library_id = library_id or None
            if spec.writes:
                key = args.pop(IDEMPOTENCY_KEY, None)
                if key is not None and (not isinstance(key, str) or not 0 < len(key) <= 200):
                    raise invalid_argument(IDEMPOTENCY_KEY, "must be a string of 1-200 "
                                           "characters")
        if spec.dangerous:
            challenge_id = args.pop(CONFIRM_CHALLENGE, None)
            if challenge_id is not None and not isinstance(challenge_id, str):
                raise invalid_argument(CONFIRM_CHALLENGE, "must be a string")
            if STATE_TOKEN in args:
                raise invalid_argument(STATE_TOKEN, "not an argument of this command (Serpent "
                                       "sets it from the plan)")
        try:
            model = spec.input_model.model_validate(args)
        except ValidationError as error:
            raise from_validation(error) from None
        return _Validated(
            arguments=model.model_dump(mode="json", by_alias=True, exclude_unset=True),
            full=model.model_dump(mode="json", by_alias=True), model=model,
            library_id=library_id, challenge_id=challenge_id, idempotency_key=key)

    @staticmethod
    def _check_caller(caller: Caller) -> None:
        if not isinstance(caller, Caller) or caller.source not in SOURCES \
                or caller.mode not in MODES:
            raise LibraryError(PERMISSION_DENIED, "The caller is not recognised.")
        if caller.source == "mcp" and not caller.credential:
            raise LibraryError(PERMISSION_DENIED, "MCP calls need a credential.")

    def _sequence(self, library_id: str | None) -> int | None:
        if library_id is None:
            return None
        try:
            return self.host.change_sequence(library_id)
        except Exception:  # closed or deleted by this very command
            return None

    def _check_result(self, spec: CommandSpec, result: Any) -> dict[str, Any]:
        if isinstance(result, BaseModel):
            result = result.model_dump(mode="json", by_alias=True)
        if not isinstance(result, dict):
            raise TypeError(f"{spec.name} returned {type(result).__name__}, not an object")
        if spec.paged:
            result = envelope.normalize_page(dict(result))
        if self.strict_outputs:
            spec.output_model.model_validate(result)  # a ValidationError here is a bug
        checked: dict[str, Any] = result
        return checked

    # ---- dangerous commands ---------------------------------------------------------------

    def _dangerous(self, command: CommandCall, call: _Call, checked: _Validated
                   ) -> Generator[Future[Any], Any, tuple[Envelope | None, Any]]:
        """First call: plan + challenge (returns the envelope). Second: verify, then run
        (returns the result). The plan is the worker's, or a plugin command's own."""
        spec, meta = command.spec, command.meta
        assert call.library_id is not None
        binding = Binding(caller_key=call.caller.key, command=spec.name,
                          arguments=normalized(checked.full), library_id=call.library_id,
                          targets=())
        plan_meta = meta.model_copy(update={"idempotency_key": None,  # a plan is no write
                                            "request_id": None})
        planning = replace(command, meta=plan_meta)
        if checked.challenge_id is None:
            report = yield from self._plan(planning)
            challenge = self.challenges.issue(replace(
                binding, targets=target_versions(report.get("targets", ())),
                state_token=report.get("stateToken")))
            return envelope.confirmation_required(
                challenge.id, challenge.expires_at_iso, spec.name, _public_report(report),
                call.library_id), None
        challenge = self.challenges.redeem(checked.challenge_id, binding)
        try:
            report = yield from self._plan(planning)
        except LibraryError as error:
            if error.retryable:  # nothing ran: the same confirmation may be tried again
                self.challenges.give_back(challenge)
                raise
            if error.code == NOT_FOUND:  # a target is gone since the first call
                raise challenge_invalid("what would be deleted has changed since the first "
                                        "call") from None
            raise
        self.challenges.check_targets(challenge, target_versions(report.get("targets", ())),
                                      report.get("stateToken"))
        if spec.handler is not None:  # a plugin's: it runs what it planned
            steps = spec.handler(command)
            result = (yield from steps) if isinstance(steps, Generator) else steps
            return None, result
        arguments = dict(checked.arguments)
        if report.get("stateToken"):
            arguments[STATE_TOKEN] = report["stateToken"]
        result = yield self.host.call(call.library_id, spec.name, arguments, meta)
        return None, result

    def _plan(self, command: CommandCall) -> Generator[Future[Any], Any, dict[str, Any]]:
        """The risk report of a dangerous command, changing nothing."""
        if command.spec.plan is not None:
            steps = command.spec.plan(command)
            report = (yield from steps) if isinstance(steps, Generator) else steps
        else:
            assert command.library_id is not None
            report = yield self.host.call(command.library_id, command.spec.name,
                                          command.arguments, command.meta, plan=True)
        if not isinstance(report, dict):
            raise TypeError(f"the plan of {command.spec.name} is not an object")
        return report


def default_host(on_event: Callable[[object], None],
                 spares: SpareWorkers | None = None) -> LibraryHost:
    """The library host of this user's Serpent: its workers never read Serpent's own
    folders for a caller, and `library.import-exported` keeps its keys in the data folder;
    the desktop app hands it a spare worker (`library.spare_worker`) for the next open."""
    dirs = app_dirs()
    return LibraryHost(on_event, private_paths=dirs.private_roots,
                       replay_file=dirs.import_keys_file, spares=spares,
                       machine=machine_name(dirs))


def attributed(caller: Caller, person: str) -> str:
    """The audit label a change keeps: an AI client's is the person's ("Anna's Claude via
    MCP") once Settings → General names them, so a studio's history says whose it was."""
    if caller.source == "mcp" and person.strip():
        return f"{person.strip()}'s {caller.label}"[:MAX_LABEL_LENGTH]
    return caller.label


def _outcome(future: Future[Any]) -> tuple[Any, BaseException | None]:
    if future.cancelled():
        return None, LibraryError(CANCELLED, "The command was cancelled.")
    error = future.exception()
    if error is not None:
        return None, error
    return future.result(), None


def _public_report(report: dict[str, Any]) -> dict[str, Any]:
    """The plan's risk report as the caller sees it: no state token, bounded targets."""
    public = {k: v for k, v in report.items() if k != STATE_TOKEN}
    targets = public.get("targets")
    if isinstance(targets, list) and len(targets) > MAX_REPORT_TARGETS:
        public["targets"] = targets[:MAX_REPORT_TARGETS]
        public["targetsTruncated"] = True
    public.setdefault("irreversible", True)
    return public


def _named_library(raw_args: Any) -> str | None:
    """The `libraryId` a call names, if it is a plausible id (for error answers only)."""
    named = raw_args.get(LIBRARY_ID) if isinstance(raw_args, dict) else None
    return named if isinstance(named, str) and 0 < len(named) <= 64 else None
