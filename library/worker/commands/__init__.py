"""The worker's dispatch table: the functions that answer the catalogue's commands.

Runs in the worker process (the commands are declared in `library.catalogue`). Each
catalogue entry names its function (`handler`, and `plan` for a dangerous command) as
`"<module>:<function>"` of this package, one module per group of commands; the functions
themselves carry no declaration. `load()` imports every module here (found with `pkgutil`,
no hand-kept list: they also start background work and warm-ups) and resolves every entry's
names, raising `RuntimeError` at worker start when one leads nowhere; so adding a command is
its catalogue entry plus its function. What a handler gets depends on the entry's `WorkerMode`:

- `read`:   `handler(ctx: ReadContext, args) -> Model | dict`, on a reader thread with its
            own connection; never waits behind a running import.
- `write`:  `handler(tx: WriteTx, args) -> Model | dict`, on the writer thread inside one
            transaction that also journals, bumps the change sequence and records the
            call and its answer in the request ledger (`store/requests.py`).
- `task`:   `handler(ctx: TaskContext, args) -> Model | dict`, on the writer thread; opens
            its own transactions (`ctx.transaction()`) and may report progress and stop
            early when cancelled; sent again after its worker died, it goes on where it
            stopped (`ctx.link`: the call as the request ledger knows it).
- `derive`: like `read` (a `ReadContext`, no SQLite writes), on threads of their own and
            without a read transaction around it: slow work that writes only derived files
            (thumbnails), so it never holds up reads.

`plan(ctx: ReadContext, args) -> RiskReport` answers `plan=True` requests: a read-only risk
report with a `stateToken`. `@warm_up` marks what a command's first call would otherwise
load while it runs (decoders, tables): a spare worker does it before it knows its library
(`prepare_first_asked`), any other worker `WARM_UP_AFTER` seconds after it starts serving,
on a thread of its own.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from library.catalogue import CATALOGUE, WorkerCommand, WorkerMode


@dataclass(frozen=True)
class Handler:
    """How the worker serves one catalogue command: its function and, if any, its plan."""

    command: WorkerCommand
    run: Callable[..., Any]
    plan: Callable[..., Any] | None = None

    @property
    def name(self) -> str:
        return self.command.name

    @property
    def mode(self) -> WorkerMode:
        return self.command.mode

    @property
    def input_model(self) -> type[BaseModel]:
        return self.command.input_model


# `start(services, stopping) -> stop`: work a worker does beside its requests (the task
# runner). Started before serving; `stop()` is called at close, before the library closes.
Background = Callable[[Any, Any], Callable[[], None]]
BACKGROUND: list[Background] = []


def background(start: Background) -> Background:
    BACKGROUND.append(start)
    return start


def prepare_first_asked() -> None:
    """Build the input validators of what a window asks first (`asked_first` in the
    catalogue), then run the commands' own warm-ups."""
    for entry in CATALOGUE.values():
        if entry.asked_first:
            entry.input_model.model_rebuild()
    for prepare in WARM_UPS:
        prepare()


WARM_UPS: list[Callable[[], None]] = []
WARM_UP_AFTER = 0.5  # seconds: the first requests (a window's first page) go first


def warm_up(prepare: Callable[[], None]) -> Callable[[], None]:
    """Run `prepare` ahead of the command's first call (it must be cheap when run again)."""
    WARM_UPS.append(prepare)
    return prepare


@background
def _warm_up_soon(services: Any, stopping: threading.Event) -> Callable[[], None]:
    def run() -> None:
        if stopping.wait(WARM_UP_AFTER):
            return
        for prepare in WARM_UPS:
            if stopping.is_set():
                return
            prepare()
    thread = threading.Thread(target=run, name="warm-up", daemon=True)
    thread.start()
    return lambda: thread.join(5)


def load(catalogue: Mapping[str, WorkerCommand] = CATALOGUE) -> dict[str, Handler]:
    """Import every command module of this package and resolve each catalogue entry's
    function (and plan): the dispatch table. Raises `RuntimeError` naming every entry whose
    function is missing, so a worker with a broken catalogue never starts serving."""
    for module in pkgutil.iter_modules(__path__, prefix=f"{__name__}."):
        importlib.import_module(module.name)
    table: dict[str, Handler] = {}
    missing: list[str] = []
    for name, entry in catalogue.items():
        run = _resolve(entry.handler, missing, name)
        plan = _resolve(entry.plan, missing, name) if entry.plan else None
        if run is not None:
            table[name] = Handler(entry, run, plan)
    if missing:
        raise RuntimeError("library.catalogue names worker functions that do not exist: "
                           + "; ".join(missing))
    return table


def _resolve(reference: str, missing: list[str], name: str) -> Callable[..., Any] | None:
    """`"tags:list_tags"` → `library.worker.commands.tags.list_tags` (or a note in `missing`)."""
    module_name, _, function_name = reference.partition(":")
    qualified = f"{__name__}.{module_name}"
    try:
        module = importlib.import_module(qualified)
    except ModuleNotFoundError as error:
        if error.name != qualified:
            raise  # the module exists but something it imports does not: say that
        missing.append(f"{name} → {reference} (no module {qualified})")
        return None
    function: Callable[..., Any] | None = getattr(module, function_name, None)
    if not callable(function):
        missing.append(f"{name} → {reference} (no function {function_name} in {qualified})")
        return None
    return function
