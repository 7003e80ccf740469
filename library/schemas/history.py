"""Models of the undo/redo journal."""

from datetime import datetime

from pydantic import Field

from library.schemas.common import Actor, Cursor, Limit, Model, Page

__all__ = ["HistoryEntry", "HistoryListIn", "HistoryListOut", "HistoryStepIn", "HistoryStepOut"]


class HistoryEntry(Model):
    id: int
    command: str
    summary: str = Field(description='"Tagged 3 assets with sky", "Imported 12 files".')
    actor: Actor
    at: datetime
    undone: bool
    undoable: bool = True  # False: a permanent delete, where undo stops
    change_sequence: int


class HistoryListIn(Model):
    """The journal, newest step first."""

    limit: Limit = 50
    cursor: Cursor | None = None


class HistoryListOut(Page):
    items: list[HistoryEntry]
    can_undo: bool
    can_redo: bool


# Which step the caller means to undo (or redo): an id from history.list. Given, the call
# is refused with HISTORY_CONFLICT when another step is next, so a retried or late undo never
# takes back someone else's change.
class HistoryStepIn(Model):
    history_id: int | None = Field(None, ge=1, description="Only this.")


class HistoryStepOut(Model):
    """The step that was undone (redone), named."""

    entry: HistoryEntry
