"""Registry declarations: history (undo/redo), analysis and background tasks.

Thread-safe (data only).
"""

from __future__ import annotations

from library.schemas import (
    AnalysisRunIn,
    AnalysisRunOut,
    Empty,
    HistoryListIn,
    HistoryListOut,
    HistoryStepOut,
    Task,
    TaskCancelIn,
    TaskGetIn,
    TaskListIn,
    TaskListOut,
)
from serpent_tk.automation import policy
from serpent_tk.automation.registry import CommandSpec, command

LIB = "lib_01j9z3k4m5n6p7q8"
HISTORY = (policy.LIBRARY_READ, policy.HISTORY_WRITE)
T1 = "tsk_01j9z3k4m5n6p7q8"

COMMANDS: list[CommandSpec] = [
    command(
        "history.list", HistoryListIn, HistoryListOut, "read",
        "List the library's recent changes, newest first, with who made each (the person or "
        "an AI client) and whether it was undone.",
        "items (id, command, summary, actor, at, undone), canUndo, canRedo.",
        {"libraryId": LIB, "limit": 20}),
    command(
        "history.undo", Empty, HistoryStepOut, "normal",
        "Undo the library's most recent change, whoever made it (same as Edit → Undo). "
        "Refused with HISTORY_CONFLICT if the entities changed since.",
        "entry: the change that was undone.",
        {"libraryId": LIB}, capabilities=HISTORY),
    command(
        "history.redo", Empty, HistoryStepOut, "normal",
        "Redo the most recently undone change.",
        "entry: the change that was redone.",
        {"libraryId": LIB}, capabilities=HISTORY),
    command(
        "analysis.run", AnalysisRunIn, AnalysisRunOut, "normal",
        "Queue analysis of assets in the background: colour palette (for colour search), "
        "similarity signature (for asset.find-duplicates and asset.find-similar), the facts "
        "the file holds (size as displayed, date taken, camera, lens, damage) and a ready "
        "preview. Omit assetIds for every asset not analysed yet. New imports are analysed "
        "automatically, and so are a library's older assets when a newer Serpent opens it.",
        "task: the queued task; follow it with task.get.",
        {"libraryId": LIB, "assetIds": ["ast_01j9z3k4m5n6p7q8"]}, journaled=False),
    command(
        "task.list", TaskListIn, TaskListOut, "read",
        "List background tasks (analysis, refreshes, exports) and their progress. The "
        "previews an import makes show in asset.preview-status (making) instead.",
        "items with id, kind, status, done, total, message; nextCursor, truncated.",
        {"libraryId": LIB, "status": ["running"]}),
    command(
        "task.get", TaskGetIn, Task, "read",
        "Get one background task's status and progress.",
        "the task.",
        {"libraryId": LIB, "taskId": T1}),
    command(
        "task.cancel", TaskCancelIn, Task, "normal",
        "Cancel a queued or running background task; what it finished stays.",
        "the task, status cancelled.",
        {"libraryId": LIB, "taskId": T1}, idempotent=True, journaled=False),
]
