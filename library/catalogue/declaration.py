"""What one declaration of a worker-served command holds (`WorkerCommand`), and the checks
the catalogue's table passes at import.

Imported by both processes (data only; thread-safe). `handler` and `plan` name the worker's
functions as `"<module>:<function>"` in `library/worker/commands/`; only the worker resolves
them (`library.worker.commands.load`), so the main process never imports worker code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel

from library.risk import Risk

WorkerMode = Literal["read", "write", "task", "derive"]
HistoryRule = Literal["step", "irreversible", "none", "history"]

# `"tags:list_tags"`: the function `list_tags` of `library.worker.commands.tags`
HANDLER_REFERENCE = re.compile(r"^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Words:
    """How the window tells a person about a command (`effects.tell` fills them in).

    `done` says what a success did, naming what it was about from the call's arguments and
    result (camelCase fields; `{entry[summary]}` reaches inside), `{assets}` ("3 assets",
    from assetIds or assetId), `{files}` (an import's new files), `{library}` (the library's
    name) and `{old_library}` (its name before, when it changed). When one of them is missing
    or empty, `fallback` is said instead. `doing` names a running task of the command in the
    status bar ("Analysing 120 / 2,000").
    """

    done: str = ""  # "created the folder “{name}”"
    fallback: str = ""  # "created a folder"
    doing: str = ""  # "Analysing"


@dataclass(frozen=True)
class WorkerCommand:
    """One command the worker serves, declared once: what it takes and returns, how it runs,
    what it risks, the words people read of it, and the worker function that answers it."""

    name: str  # dotted: "asset.trash"
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    mode: WorkerMode
    history: HistoryRule = "none"
    risk: Risk = "read"
    handler: str = ""  # "trash:trash": `trash` in library/worker/commands/trash.py
    plan: str = ""  # a dangerous command's risk report, named the same way
    words: Words = Words()
    frees_space: bool = False  # it only deletes: runs on a full disk (no free-space reserve)
    # what a window asks first when it shows a library: a spare worker builds its input
    # validator ahead (pydantic builds a command's model on its first use otherwise)
    asked_first: bool = False

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "task")


def index(commands: Iterable[WorkerCommand]) -> Mapping[str, WorkerCommand]:
    """The table by name, refusing a declaration that breaks the catalogue's rules."""
    table: dict[str, WorkerCommand] = {}
    for entry in commands:
        if entry.name in table:
            raise ValueError(f"{entry.name} is in the catalogue twice")
        if not entry.writes and entry.history != "none":
            raise ValueError(f"{entry.name} only reads: it has no history rule")
        if entry.writes and entry.risk == "read":
            raise ValueError(f"{entry.name} writes: its risk is more than read")
        for what, reference in (("handler", entry.handler), ("plan", entry.plan)):
            if (reference or what == "handler") and not HANDLER_REFERENCE.match(reference):
                raise ValueError(f"{entry.name}: {what} {reference!r} is not "
                                 "'<module>:<function>' of library/worker/commands")
        if (entry.risk == "dangerous") != bool(entry.plan):
            raise ValueError(f"{entry.name}: a dangerous command has a plan, and only one")
        table[entry.name] = entry
    return MappingProxyType(table)
