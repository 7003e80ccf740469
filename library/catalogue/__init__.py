"""The command catalogue: every command the library worker serves, each declared once.

Imported by both processes (data only; thread-safe). The table is `entries`, the shape of
one declaration `declaration.WorkerCommand`. One entry holds all a worker-served
command is, in either process: its name, input and output models, how the worker runs it
(`WorkerMode`), what it does to the history (`HistoryRule`), its risk class (`Risk`), the
words the window tells people with (`Words`), and the worker function that answers it (and
its plan, if dangerous), named `"<module>:<function>"` in `library/worker/commands/`. The
worker resolves those names when it starts (`library.worker.commands.load`, failing loudly
on a name that leads nowhere); the main process never imports worker code. The main
process's registry (`serpent_tk/automation`) takes a worker command's models, risk and
words from here and adds, by name, what only MCP or the window needs (the description,
example, title, toolset, hints, lifecycle, ...), so the MCP tool schemas, the gateway's
validation and the worker agree by construction. The commands the main process answers
itself (`library.open`, `ui.notify`, ...) are not here: the registry declares them whole.
`task_kinds` spells every kind of background task once (a task row's and its progress
events' `kind`).

How the worker runs a command (`WorkerMode`):

- `read`:   on a reader thread with its own connection, inside one read transaction.
- `write`:  on the writer thread, inside one transaction that also journals, bumps the
            change sequence and records the call's request id and answer (the request
            ledger: a write is never applied twice).
- `task`:   on the writer thread, opening its own transactions (long work: imports,
            refreshes); may report progress and stop early when cancelled.
- `derive`: like `read` but on threads of their own and without a read transaction: slow
            work that writes only derived files (thumbnails).

What a write does to the library's history (`HistoryRule`), declared here for every command
that changes something, so undo never takes back an older, unrelated change by mistake:

- `step`:         what it changes is journaled as one undoable step (all of a task's
                  transactions join that one step); a call that changes nothing adds none.
- `irreversible`: it cannot be undone (permanent deletes): when it changed something it
                  leaves a barrier in the history; undo refuses it with HISTORY_IRREVERSIBLE
                  and never reaches past it.
- `none`:         it changes nothing a person made (derived data, queued work, files outside
                  the library, a statement of what is on disk): undo passes over it.
- `history`:      undo and redo themselves, which move along the history.
"""

from __future__ import annotations

from library.catalogue.declaration import (
    HistoryRule,
    Words,
    WorkerCommand,
    WorkerMode,
    index,
)
from library.catalogue.entries import CATALOGUE
from library.risk import Risk

__all__ = ["CATALOGUE", "HistoryRule", "Risk", "WorkerCommand", "WorkerMode", "Words", "index"]
