"""The worker's dispatch table: command name -> handler, input model and how it runs.

Runs in the worker process. A command is one small module that decorates its handler with
`@command(...)`; `load()` imports every module in `MODULES`, so adding a command is one new
module plus one line here. Modes:

- `read`:  `handler(ctx: ReadContext, args) -> Model | dict`, on the reader thread with its
           own connection; never waits behind a running import.
- `write`: `handler(tx: WriteTx, args) -> Model | dict`, on the writer thread inside one
           transaction that also journals, bumps the change sequence and stores the result
           under the idempotency key.
- `task`:  `handler(ctx: TaskContext, args) -> Model | dict`, on the writer thread; opens
           its own transactions (`ctx.transaction()`) and may report progress and stop
           early when cancelled.
- `derive`: like `read` (a `ReadContext`, no SQLite writes), on threads of their own and
           without a read transaction around it: slow work that writes only derived files
           (thumbnails), so it never holds up reads.

`plan(ctx: ReadContext, args) -> RiskReport`, when given, answers `plan=True` requests:
a read-only risk report with a `stateToken`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

Mode = Literal["read", "write", "task", "derive"]

MODULES = (
    "library.worker.commands.library_info",
    "library.worker.commands.file_import",
    "library.worker.commands.asset_search",
    "library.worker.commands.asset_edit",
    "library.worker.commands.tags",
    "library.worker.commands.folders",
    "library.worker.commands.trash",
    "library.worker.commands.history",
    "library.worker.commands.thumbnails",
    "library.worker.commands.tag_admin",
    "library.worker.commands.folder_admin",
    "library.worker.commands.asset_copy",
    "library.worker.commands.collections",
    "library.worker.commands.tasks",
    "library.worker.commands.analysis",
    "library.worker.commands.duplicates",
    "library.worker.commands.maintenance",
    "library.worker.commands.export",
    "library.worker.commands.linked_folders",
)


@dataclass(frozen=True)
class CommandSpec:
    name: str
    input_model: type[BaseModel]
    handler: Callable[..., Any]
    mode: Mode
    plan: Callable[..., Any] | None = None


COMMANDS: dict[str, CommandSpec] = {}

# `start(services, stopping) -> stop`: work a worker does beside its requests (the task
# runner). Started before serving; `stop()` is called at close, before the library closes.
Background = Callable[[Any, Any], Callable[[], None]]
BACKGROUND: list[Background] = []


def background(start: Background) -> Background:
    BACKGROUND.append(start)
    return start


def command(name: str, input_model: type[BaseModel], *, mode: Mode,
            plan: Callable[..., Any] | None = None) -> Callable[[Callable[..., Any]],
                                                                 Callable[..., Any]]:
    def register(handler: Callable[..., Any]) -> Callable[..., Any]:
        if name in COMMANDS:
            raise RuntimeError(f"command {name} registered twice")
        COMMANDS[name] = CommandSpec(name, input_model, handler, mode, plan)
        return handler
    return register


def load() -> dict[str, CommandSpec]:
    for module in MODULES:
        importlib.import_module(module)
    return COMMANDS
