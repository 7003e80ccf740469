"""Models of background tasks (analysis, long refreshes) and duplicate finding."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from library.schemas.common import DEFAULT_LIMIT, AssetId, Cursor, Limit, Model, Page

__all__ = [
    "TaskId", "TaskStatus", "Task", "TaskListIn", "TaskListOut", "TaskGetIn", "TaskCancelIn",
    "AnalysisRunIn", "AnalysisRunOut", "FindDuplicatesIn", "DuplicateGroup",
    "FindDuplicatesOut",
]

TaskId = Annotated[str, Field(pattern=r"^tsk_[0-9a-z]{8,40}$",
                              examples=["tsk_01j9z3k4m5n6p7q8"])]
TaskStatus = Literal["queued", "running", "done", "failed", "cancelled"]


class Task(Model):
    id: TaskId
    kind: str = Field(description="What the task does: 'analysis', 'refresh', ...")
    status: TaskStatus
    done: int
    total: int | None = None
    message: str = ""
    error_code: str | None = None
    created_at: datetime
    finished_at: datetime | None = None


class TaskListIn(Model):
    status: list[TaskStatus] = Field(default_factory=list, description="Only these states.")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class TaskListOut(Page):
    items: list[Task]


class TaskGetIn(Model):
    task_id: TaskId


class TaskCancelIn(Model):
    task_id: TaskId


class AnalysisRunIn(Model):
    """Queue analysis (colors, dimensions, content hashes for similarity) of assets."""

    asset_ids: Annotated[list[AssetId], Field(max_length=10000)] | None = Field(
        default=None, description="These assets; omit for every asset not analysed yet.")
    force: bool = Field(default=False, description="Analyse again even if already done.")


class AnalysisRunOut(Model):
    task: Task


class FindDuplicatesIn(Model):
    """Group assets with identical (or, with `similar`, visually near-identical) content."""

    method: Literal["exact", "similar"] = "exact"
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class DuplicateGroup(Model):
    asset_ids: list[AssetId]
    reason: Literal["same-content", "similar-image"]


class FindDuplicatesOut(Page):
    items: list[DuplicateGroup]
