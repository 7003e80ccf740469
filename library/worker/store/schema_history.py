"""The schema of what undo, retries and the change log rely on, added by migrations
(`schema.MIGRATIONS`): the history's barriers, the request ledger, the change log's task kind.

Runs in the worker process (read by `schema.check_and_migrate`). Kept apart from the rest of
the schema so a library on another database keeps the same rules (`transaction`).
"""

# A change that cannot be undone (a permanent delete) leaves a barrier entry in the history:
# undo refuses it and never reaches past it.
HISTORY_BARRIERS = """
ALTER TABLE history ADD COLUMN undoable INTEGER NOT NULL DEFAULT 1;
"""

# What background work wrote a change (a task kind, `library.catalogue.task_kinds`) gets its
# own column: `command` names only a command whose call wrote it ("" otherwise).
CHANGE_LOG_TASK_KIND = """
ALTER TABLE change_log ADD COLUMN task_kind TEXT NOT NULL DEFAULT '';
"""

# The request ledger (`requests.py`): every write's request id and what it answered, kept in
# the write's own transaction; the caller's idempotency keys move in (their table goes).
REQUEST_LEDGER = """
CREATE TABLE requests (
    id TEXT PRIMARY KEY,
    scope TEXT,
    key TEXT,
    command TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'done')),
    progress TEXT,
    result TEXT,
    history_id INTEGER,
    change_sequence INTEGER NOT NULL,
    created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX requests_by_key ON requests (scope, key) WHERE key IS NOT NULL;
CREATE INDEX requests_keyed_by_age ON requests (created_at) WHERE key IS NOT NULL;
CREATE INDEX requests_unkeyed_by_age ON requests (created_at) WHERE key IS NULL;
INSERT INTO requests (id, scope, key, command, state, result, change_sequence, created_at)
    SELECT 'req_' || lower(hex(randomblob(12))), scope, key, command, 'done', result,
           change_sequence, created_at FROM idempotency;
DROP TABLE idempotency;
"""
