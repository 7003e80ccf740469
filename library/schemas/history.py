"""Models of the undo/redo journal."""

from datetime import datetime

from pydantic import Field

from library.schemas.common import Actor, Cursor, Limit, Model, Page

__all__ = ["HistoryEntry", "HistoryListIn", "HistoryListOut", "HistoryStepOut"]


class HistoryEntry(Model):
    id: int
    command: str
    summary: str = Field(description='"Tagged 3 assets with sky", "Imported 12 files".')
    actor: Actor
    at: datetime
    undone: bool
    change_sequence: int


class HistoryListIn(Model):
    """The journal, newest step first."""

    limit: Limit = 50
    cursor: Cursor | None = None


class HistoryListOut(Page):
    items: list[HistoryEntry]
    can_undo: bool
    can_redo: bool


class HistoryStepOut(Model):
    entry: HistoryEntry
