"""The schema of what undo and retries rely on, added by migrations (`schema.MIGRATIONS`):
the history's barriers.

Runs in the worker process (read by `schema.check_and_migrate`). Kept apart from the rest of
the schema so a library on another database keeps the same rules (`transaction`).
"""

# A change that cannot be undone (a permanent delete) leaves a barrier entry in the history:
# undo refuses it and never reaches past it.
HISTORY_BARRIERS = """
ALTER TABLE history ADD COLUMN undoable INTEGER NOT NULL DEFAULT 1;
"""
