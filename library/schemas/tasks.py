"""Models of background tasks (analysis, long refreshes) and duplicate finding."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from library.schemas.common import DEFAULT_LIMIT, AssetId, Cursor, Limit, Model, Page

__all__ = [
    "TaskId", "TaskStatus", "Task", "TaskListIn", "TaskListOut", "TaskGetIn", "TaskCancelIn",
    "AnalysisRunIn", "AnalysisRunOut", "FindDuplicatesIn", "DuplicateGroup",
    "FindDuplicatesOut", "DuplicateMember", "FindSimilarIn", "FindSimilarOut",
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
    """Group visually near-identical images (`similar`: perceptual hashes, colour and shape).

    `exact` (byte-identical files) always finds nothing: a library stores each content once
    and an import of the same file reports it as a duplicate instead.
    """

    method: Literal["exact", "similar"] = Field(default="similar", description="exact "
                                                "never finds any.")
    max_distance: int = Field(default=10, ge=0, le=16, description="0-2: resized or "
                              "re-encoded, 10: also cropped a few %, 16: loosely similar.")
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class DuplicateMember(Model):
    """One image of a duplicate group (or a similar image), with what choosing needs."""

    asset_id: AssetId
    name: str
    ext: str
    width: int | None = None
    height: int | None = None
    size: int = Field(description="File size in bytes.")
    added_at: datetime
    distance: int = Field(description="Perceptual hash distance to the compared image (the "
                          "group's suggested keeper, or find-similar's asset): 0 = alike.")
    color_distance: float = Field(description="Delta E between the mean colours (CIELAB).")


class DuplicateGroup(Model):
    asset_ids: list[AssetId] = Field(description="Oldest first (probably the original).")
    reason: Literal["same-content", "similar-image"]
    distance: int = Field(default=0, description="Largest hash distance of a member to the "
                          "suggested keeper.")
    keep: AssetId | None = Field(default=None, description="The one that looks best to keep: "
                                 "the largest picture, then the largest file (least "
                                 "compressed), then the oldest. Trash the others with "
                                 "asset.trash (one undoable step).")
    keep_reason: str | None = None
    members: list[DuplicateMember] = Field(default_factory=list, description="Every member, "
                                           "the suggested keeper first.")


class FindDuplicatesOut(Page):
    items: list[DuplicateGroup]
    total: int = Field(default=0, description="Groups found in all.")
    analysed: int = Field(default=0, description="Images compared (analysed, not trashed).")
    not_analysed: int = Field(default=0, description="Assets not analysed yet: they cannot be "
                              "compared until Serpent has analysed them.")
    note: str | None = None


class FindSimilarIn(Model):
    """The images that look like one asset (the same test as asset.find-duplicates)."""

    asset_id: AssetId = Field(description="The image to compare with.")
    max_distance: int = Field(default=10, ge=0, le=16, description="As in "
                              "asset.find-duplicates.")
    limit: Limit = DEFAULT_LIMIT


class FindSimilarOut(Model):
    asset_id: AssetId
    items: list[DuplicateMember] = Field(description="Closest first.")
    total: int = Field(description="How many similar images there are in all.")
    note: str | None = Field(default=None, description="Why nothing could be compared (the "
                             "asset is not an analysed image yet), when so.")
