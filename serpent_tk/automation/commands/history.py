"""Registry declarations: history (undo/redo), analysis and background tasks.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation import policy
from serpent_tk.automation.commands.examples import A1, LIB, T1
from serpent_tk.automation.registry import CommandSpec, command

HISTORY = (policy.LIBRARY_READ, policy.HISTORY_WRITE)

COMMANDS: list[CommandSpec] = [
    command(
        "history.list",
        "List recent changes, newest first: who made each and whether it was undone.",
        "",
        {"libraryId": LIB, "limit": 20}, title="Change history"),
    command(
        "history.undo",
        "Undo the last change (a studio library: yours).",
        "",
        {"libraryId": LIB}, title="Undo", essential=True, capabilities=HISTORY,
        recount="everywhere"),
    command(
        "history.redo",
        "Redo the change undo took back.",
        "",
        {"libraryId": LIB}, title="Redo", essential=True, capabilities=HISTORY,
        recount="everywhere"),
    command(
        "analysis.run",
        "Analyse assets in the background (colour palette, similarity, photo facts, "
        "preview); imports are analysed by themselves.",
        "task: follow it with task.get.",
        {"libraryId": LIB, "assetIds": [A1]}, title="Analyse assets",
        long_work="queued"),
    command(
        "task.list",
        "List background tasks and their progress.",
        "",
        {"libraryId": LIB, "status": ["running"]}, title="Background tasks"),
    command(
        "task.get",
        "Get one background task's status and progress.",
        "",
        {"libraryId": LIB, "taskId": T1}, title="Task progress"),
    command(
        "task.cancel",
        "Cancel a background task; what it finished stays.",
        "",
        {"libraryId": LIB, "taskId": T1}, title="Cancel task", idempotent=True),
]
