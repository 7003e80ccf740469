"""The request ledger: every write call's request id and what it answered, committed in the
write's own transaction, so a call sent again is answered instead of run again.

Runs in the worker process, writer thread (`server._run_write` asks `find` before running a
write; every `transaction.WriteTx` of the call records it with `Call.save`). The main process
gives every write a request id (`CallMeta.request_id`: `library.idempotency.new_request_id`);
a caller may add its own `idempotencyKey`. One row of `requests` per call:

- `id`: the request id of the call's first run (the key of the row);
- `scope`, `key`: the caller's idempotency key, if any (unique per scope: per credential);
- `command`: `<command>#<digest of its normalized arguments>` (the same id or key sent with
  another command or other arguments is refused, INVALID_ARGUMENT, never answered);
- `state`: `done` (`result` holds the first answer, as it was) or `running` (a task, which
  commits in several transactions, stopped part-way: `progress` is its own note of how far
  it got, `history_id` the history entry all its transactions join);
- `change_sequence`, `created_at`: the library's change sequence at its last transaction,
  and when its first transaction committed.

The rules, whatever database holds the ledger: the row is written inside the transaction
that makes the change (never before, never after), so a row exists exactly when something
of the call was committed. No row: nothing was, and running the call is safe. `done`: the
call is answered from the row, never run again. `running`: running the call again goes on
where it stopped (the command reads `Call.progress`), joining the same history entry. A
`lookup` (`not_answered`) answers from the row only and never runs anything.
Rows with a request id alone serve only the host that sent the call (it sends a call again
only after the worker it sent it to died): they go after `KEEP_UNKEYED`; a caller's key is
kept `KEEP_KEYED`. Rows are pruned by age in the transactions that record calls.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from library.errors import INVALID_ARGUMENT, WORKER_UNAVAILABLE, LibraryError
from library.idempotency import key_reused, scope_of
from library.protocol import CallMeta
from library.worker.store.identity import from_datetime, new_id, to_datetime

KEEP_KEYED = timedelta(days=14)
KEEP_UNKEYED = timedelta(days=1)


@dataclass
class Call:
    """One write call as the ledger knows it; also what its transactions share: the history
    entry they all join (`entry`, None until one journals) and, when the call names it, what
    that entry says (`summary`; else each transaction's own)."""

    id: str | None  # the request id that first ran it (None: a call the ledger does not keep)
    command: str  # "<command>#<digest of its arguments>"
    scope: str | None = None
    key: str | None = None
    state: str | None = None  # None: never committed; "running"; "done"
    progress: dict[str, Any] = field(default_factory=dict)  # a task's note, to go on from
    result: dict[str, Any] | None = None
    entry: int | None = None  # the history entry its transactions join
    summary: str | None = None

    def save(self, conn: sqlite3.Connection, change_sequence: int, now: str, *,
             result: dict[str, Any] | None) -> None:
        """Record the call in the current transaction: `done` with its answer, or (`result`
        None: a task's transaction) `running` with its progress so far."""
        if self.id is None:
            return
        self.state = "done" if result is not None else "running"
        conn.execute(
            "INSERT INTO requests (id, scope, key, command, state, progress, result, "
            "history_id, change_sequence, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET state = excluded.state, progress = "
            "excluded.progress, result = excluded.result, history_id = excluded.history_id, "
            "change_sequence = excluded.change_sequence",
            (self.id, self.scope, self.key, self.command, self.state,
             json.dumps(self.progress) if self.progress else None,
             json.dumps(result) if result is not None else None, self.entry, change_sequence,
             now))
        if result is not None:
            self.result = result
            prune(conn, now)


def find(conn: sqlite3.Connection, command: str, digest: str, meta: CallMeta) -> Call:
    """The ledger's record of this call: by its request id, else by the caller's key; a new
    (unsaved) one when neither is known."""
    signature = f"{command}#{digest}"
    scope = scope_of(meta.source, meta.credential) if meta.idempotency_key else None
    row = None
    if meta.request_id:
        row = conn.execute("SELECT * FROM requests WHERE id = ?", (meta.request_id,)).fetchone()
        if row is not None and row["command"] != signature:
            raise LibraryError(INVALID_ARGUMENT, "This request id was used for another call.",
                               field="requestId")
    if row is None and meta.idempotency_key:
        row = conn.execute("SELECT * FROM requests WHERE scope = ? AND key = ?",
                           (scope, meta.idempotency_key)).fetchone()
        if row is not None:
            stored_command, _, stored_digest = str(row["command"]).partition("#")
            # rows kept before digests were recorded hold the command alone
            if stored_command != command or (stored_digest and stored_digest != digest):
                raise key_reused(meta.idempotency_key, command, stored_command)
    if row is None:
        call_id = meta.request_id or (new_id("req") if meta.idempotency_key else None)
        return Call(call_id, signature, scope, meta.idempotency_key)
    return Call(row["id"], row["command"], row["scope"], row["key"], row["state"],
                json.loads(row["progress"]) if row["progress"] else {},
                json.loads(row["result"]) if row["result"] else None, row["history_id"])


def prune(conn: sqlite3.Connection, now: str) -> None:
    """Forget the answers no one can ask for again."""
    moment = to_datetime(now)
    # each through its own partial index: only the rows that go are visited
    conn.execute("DELETE FROM requests WHERE key IS NULL AND created_at < ?",
                 (from_datetime(moment - KEEP_UNKEYED),))
    conn.execute("DELETE FROM requests WHERE key IS NOT NULL AND created_at < ?",
                 (from_datetime(moment - KEEP_KEYED),))


def not_answered(call: Call) -> LibraryError:
    """The answer to a `lookup` of a call that has no stored answer: the host asks only for
    the outcome of a write whose worker died under it twice, or that was cancelled."""
    if call.state is None:
        return LibraryError(WORKER_UNAVAILABLE, "The library worker stopped during this "
                            "change, twice; nothing of it was saved. It is safe to send it "
                            "again.", outcome="not-saved")
    saved = "what it did so far is saved"
    if call.entry is not None:
        saved += f", as one step of the history (historyId {call.entry})"
    if call.key:
        again = "Sending it again with the same idempotencyKey goes on from there."
    else:
        again = ("Look at what the library holds now before sending it again: sent again, "
                 "it is a new change (an import finds what was saved as duplicates).")
    return LibraryError(WORKER_UNAVAILABLE, "The library worker stopped part-way through this "
                        f"change, twice: {saved}. {again}", outcome="partial",
                        historyId=call.entry, retryable=False)


# -- an unpacked archive (`unpacking`): the ledger of a library made by any Serpent ---------
def _table(conn: sqlite3.Connection) -> str:
    """`requests`, or `idempotency` in a library made before the ledger (migrated on open)."""
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                         "name = 'requests'").fetchone()
    return "requests" if found else "idempotency"


def command_of_key(conn: sqlite3.Connection, scope: str, key: str) -> str | None:
    """What the caller's `key` was used for (`command#digest`), if this library knows it."""
    row = conn.execute(f"SELECT command FROM {_table(conn)} WHERE scope = ? AND key = ?",
                       (scope, key)).fetchone()
    return str(row[0]) if row is not None else None


def start_over(conn: sqlite3.Connection, scope: str | None = None, key: str | None = None,
               command: str = "", now: str = "") -> None:
    """A copy of a library: its calls belong to the original. With `key`: the call that made
    the copy (its answer is the copy itself)."""
    table = _table(conn)
    conn.execute(f"DELETE FROM {table}")
    if key is None:
        return
    if table == "requests":
        conn.execute("INSERT INTO requests (id, scope, key, command, state, result, "
                     "change_sequence, created_at) VALUES (?, ?, ?, ?, 'done', '{}', 0, ?)",
                     (new_id("req"), scope, key, command, now))
    else:
        conn.execute("INSERT INTO idempotency (scope, key, command, result, change_sequence, "
                     "created_at) VALUES (?, ?, ?, '{}', 0, ?)", (scope, key, command, now))
