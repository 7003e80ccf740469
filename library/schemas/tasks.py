"""Models of background tasks (analysis, long refreshes) and duplicate finding."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from library.schemas.common import DEFAULT_LIMIT, AssetId, Cursor, Limit, Model, Page

__all__ = [
    "TaskId", "TaskStatus", "Task", "TaskListIn", "TaskListOut", "TaskGetIn", "TaskCancelIn",
    "AnalysisRunIn", "AnalysisRunOut", "FindDuplicatesIn", "DuplicateGroup",
    "FindDuplicatesOut",
]

TaskId = Annotated[str, Field(pattern=r"^tsk_[0-9a-z]{8,40}$",
                              examples=["tsk_01j9z3k4m5n6p7q8"])]
TaskStatus = Literal["queued", "running", "done", "failed", "cancelled", "interrupted"]


class Task(Model):
    id: TaskId
    kind: str = Field(description="What the task does: 'analysis', 'refresh', 'export'.")
    status: TaskStatus = Field(description="queued, running, done, failed, cancelled, or "
                               "interrupted (the library closed unexpectedly while it ran and "
                               "it cannot resume; analysis always resumes instead).")
    done: int
    total: int | None = None
    message: str = ""
    error_code: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result: dict[str, Any] | None = Field(default=None, description="What a finished task "
                                          "did (counts), when it has something to say.")
    cancel_requested: bool = Field(default=False, description="task.cancel was asked; the "
                                   "task stops at its next item.")


class TaskListIn(Model):
    status: list[TaskStatus] = Field(default_factory=list, description="Only these states.")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class TaskListOut(Page):
    items: list[Task]


class TaskGetIn(Model):
    task_id: TaskId = Field(description="The task.")


class TaskCancelIn(Model):
    task_id: TaskId = Field(description="The task.")


class AnalysisRunIn(Model):
    """Queue analysis (colors, dimensions, content hashes for similarity) of assets."""

    asset_ids: Annotated[list[AssetId], Field(max_length=10000)] | None = Field(
        default=None, description="These assets; omit for every asset not analysed yet.")
    force: bool = Field(default=False, description="Analyse again even if already done.")


class AnalysisRunOut(Model):
    task: Task


class FindDuplicatesIn(Model):
    """Group visually near-identical images (`similar`, by perceptual hash distance).

    `exact` (byte-identical files) always finds nothing: a library stores each content once
    and an import of the same file reports it as a duplicate instead.
    """

    method: Literal["exact", "similar"] = Field(default="similar", description="exact "
                                                "never finds any.")
    max_distance: int = Field(default=4, ge=0, le=16, description="0: the same picture "
                              "re-encoded, 4: small edits, 8+: loosely similar.")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class DuplicateGroup(Model):
    asset_ids: list[AssetId] = Field(description="Oldest first (probably the original).")
    reason: Literal["same-content", "similar-image"]
    distance: int = Field(default=0, description="Largest hash distance of a member to the "
                          "first asset.")


class FindDuplicatesOut(Page):
    items: list[DuplicateGroup]
    total: int = Field(default=0, description="Groups found in all.")
    analysed: int = Field(default=0, description="Images compared (analysed, not trashed).")
    not_analysed: int = Field(default=0, description="Assets not analysed yet: they cannot be "
                              "compared until analysis.run has looked at them.")
    note: str | None = None
