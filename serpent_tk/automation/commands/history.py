"""Registry declarations: history (undo/redo), analysis and background tasks.

Thread-safe (data only).
"""

from __future__ import annotations

from serpent_tk.automation import policy
from serpent_tk.automation.registry import CommandSpec, Words, command

LIB = "lib_01j9z3k4m5n6p7q8"
HISTORY = (policy.LIBRARY_READ, policy.HISTORY_WRITE)
T1 = "tsk_01j9z3k4m5n6p7q8"

COMMANDS: list[CommandSpec] = [
    command(
        "history.list", "read",
        "List the library's recent changes, newest first, with who made each (the person or "
        "an AI client) and whether it was undone.",
        "items (id, command, summary, actor, at, undone), canUndo, canRedo.",
        {"libraryId": LIB, "limit": 20}),
    command(
        "history.undo", "normal",
        "Undo the library's most recent change, whoever made it (same as Edit → Undo). "
        "Refused with HISTORY_CONFLICT if the entities changed since.",
        "entry: the change that was undone.",
        {"libraryId": LIB}, capabilities=HISTORY,
        words=Words("undid “{entry[summary]}”", "undid a change"), recount="everywhere"),
    command(
        "history.redo", "normal",
        "Redo the most recently undone change.",
        "entry: the change that was redone.",
        {"libraryId": LIB}, capabilities=HISTORY,
        words=Words("redid “{entry[summary]}”", "redid a change"), recount="everywhere"),
    command(
        "analysis.run", "normal",
        "Queue analysis of assets in the background: colour palette, perceptual hash (for "
        "asset.find-duplicates) and a ready preview. Omit assetIds for every asset not "
        "analysed yet. New imports are analysed automatically.",
        "task: the queued task; follow it with task.get.",
        {"libraryId": LIB, "assetIds": ["ast_01j9z3k4m5n6p7q8"]}, journaled=False,
        words=Words("queued analysis of {assets}", "queued analysis", doing="Analysing")),
    command(
        "task.list", "read",
        "List background tasks (analysis, refreshes) and their progress.",
        "items with id, kind, status, done, total, message; nextCursor, truncated.",
        {"libraryId": LIB, "status": ["running"]}),
    command(
        "task.get", "read",
        "Get one background task's status and progress.",
        "the task.",
        {"libraryId": LIB, "taskId": T1}),
    command(
        "task.cancel", "normal",
        "Cancel a queued or running background task; what it finished stays.",
        "the task, status cancelled.",
        {"libraryId": LIB, "taskId": T1}, idempotent=True, journaled=False,
        words=Words("cancelled a background task")),
]
