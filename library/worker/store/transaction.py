"""The one write-transaction helper: every write to a library goes through `WriteTx`.

Runs in the worker process, on the writer thread only. A `WriteTx` is one
`BEGIN IMMEDIATE ... COMMIT`. At commit it (1) records the history its command's rule asks
for (`catalogue.HistoryRule`): a `step` journals what undo needs (before/after snapshots of
every entity the command declared with `track`/`created`), an `irreversible` change leaves a
barrier entry, (2) bumps the library's change sequence, (3) appends a `change_log` row,
(4) records the call in the request ledger (`requests.Call`: its request id, its caller's
idempotency key, its answer or, for a task's transaction, how far it got), all in the same
transaction; then it runs the after-commit steps (file removals) and emits
`library.changed`. The several transactions of one call (an import's batches) join one
history entry (`Call.entry`): an entity they change twice keeps its first before-state and
its last after-state.

On a studio library (`library.worker.studio`) the connection is PostgreSQL's: `BEGIN
IMMEDIATE` takes the write lock every machine takes, the commit also notifies the other
machines (`NOTIFY_CHANNEL`, carrying the change sequence), and the lock is let go only after
the after-commit steps, so no machine writes between a commit and its file removals.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from library.catalogue import HistoryRule
from library.protocol import CallMeta, LibraryChanged
from library.schemas.common import Actor
from library.worker import who
from library.worker.rows import entitystate, livecounts
from library.worker.services import Services
from library.worker.store.database import translate
from library.worker.store.identity import utc_now
from library.worker.store.requests import Call

HISTORY_KEEP = 1000
MAX_EVENT_IDS = 500
NOTIFY_CHANNEL = "serpent_changes"  # studio libraries: LISTENed to by every other machine


class WriteTx:
    """Use as `with WriteTx(...) as tx:`; the block's normal exit commits, an error rolls back.

    `synced=False`: one of a task's several transactions whose answer is not given yet; its
    commit does not wait for the disk (WAL with `synchronous=NORMAL`: it survives the
    worker being killed, and a power cut takes it only together with what followed), and
    the task's last transaction, synced, makes it durable with its own (the WAL is synced up
    to its end).

    `history`: the command's rule (`catalogue.HistoryRule`; "none" for the work a worker
    does by itself); `link`: the call this transaction is part of (its ledger record and
    history entry; none for the worker's own work); `ledger_only`: a task's last
    transaction, which only records its answer (no change, no new change sequence).

    `command` is the command whose call writes; work no command's call does (a task's
    batches, a watcher's sync) gives its `task_kind` instead (`background_write`)."""

    def __init__(self, services: Services, command: str, meta: CallMeta, *,
                 history: HistoryRule = "none", link: Call | None = None,
                 ledger_only: bool = False, synced: bool = True, task_kind: str = "") -> None:
        self.services = services
        self.studio = getattr(services.writer, "dialect", "sqlite") == "postgres"
        self.synced = synced or self.studio  # PostgreSQL: every commit is durable
        self.ledger_only = ledger_only
        self.conn = services.writer
        self.layout = services.layout
        self.command = command
        self.task_kind = task_kind
        self.meta = meta
        self.actor = who.actor_of(meta, self.layout.machine if self.studio else None)
        self.actor_json = json.dumps(self.actor)
        self.now = utc_now()
        self.summary = command or task_kind
        self.result: dict[str, Any] | None = None
        self.history = history
        self.link = link if link is not None else Call(None, command)
        self.change_sequence: int | None = None
        self._kinds: set[str] = set()
        self._entity_ids: list[str] = []
        self._seen_ids: set[str] = set()
        self._before: dict[tuple[str, str], dict[str, Any] | None] = {}
        self._before_versions: dict[tuple[str, str], int | None] = {}
        self._after_commit: list[Callable[[], None]] = []
        self._touched_assets: set[str] = set()
        self._counts = livecounts.COUNTS.following(self.conn)  # smart and search counts

    # -- what the command declares ------------------------------------------------------
    def touch(self, kind: str, ids: Iterable[str] = ()) -> None:
        """Tell listeners that entities of `kind` changed (no history by itself)."""
        self._kinds.add(kind)
        if kind == "asset":
            ids = list(ids)
            self._touched_assets.update(ids)
        for entity_id in ids:
            if entity_id not in self._seen_ids:
                self._seen_ids.add(entity_id)
                self._entity_ids.append(entity_id)

    def track(self, kind: str, ids: Iterable[str]) -> None:
        """Snapshot entities *before* changing them, so undo can put them back."""
        ids = [i for i in ids if (kind, i) not in self._before]
        if kind == "asset":
            self._counts.tracked(ids)
        versions = entitystate.versions(self.conn, kind, ids)
        for entity_id, state in entitystate.snapshot_many(self.conn, kind, ids).items():
            self._before[(kind, entity_id)] = state
            self._before_versions[(kind, entity_id)] = versions.get(entity_id)
        self.touch(kind, ids)

    def created(self, kind: str, ids: Iterable[str]) -> None:
        """Entities this command made: undo removes them (assets go to the trash)."""
        ids = list(ids)
        if kind == "asset":
            self._counts.created(ids)
        for entity_id in ids:
            self._before.setdefault((kind, entity_id), None)
        self.touch(kind, ids)

    def after_commit(self, step: Callable[[], None]) -> None:
        """Run `step` once the transaction is durable (e.g. remove deleted files)."""
        self._after_commit.append(step)

    # -- the transaction ----------------------------------------------------------------
    def __enter__(self) -> WriteTx:
        try:
            if not self.synced:
                self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            self._sync_again()
            self._release()
            raise translate(error) from error
        self._counts.begin()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            try:
                committed = self._end(exc_type, exc)
            finally:
                self._counts.end()
                self._sync_again()
            if not committed:
                return
            for step in self._after_commit:
                step()
        finally:
            self._release()
        self._notify()

    def _release(self) -> None:
        if self.studio:  # the other machines may write again
            self.conn.release_write_lock()  # type: ignore[attr-defined]

    def _sync_again(self) -> None:
        if not self.synced:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("PRAGMA synchronous = FULL")

    def _end(self, exc_type: Any, exc: Any) -> bool:
        """Commit (True) or, after an error in the block, roll back (False)."""
        if exc_type is not None:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise translate(exc) from exc
            return False
        try:
            self._finish()
            self.conn.execute("COMMIT")
        except BaseException as error:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise translate(error) from error
            raise
        if self.change_sequence is not None:
            self._counts.committed(self.change_sequence)
        return True

    def _finish(self) -> None:
        conn = self.conn
        if self.ledger_only:
            self.link.save(conn, self.services.change_sequence(conn), self.now,
                           result=self.result)
            return
        seq = conn.execute("UPDATE library_state SET change_sequence = change_sequence + 1 "
                           "RETURNING change_sequence").fetchone()[0]
        self.change_sequence = seq
        if self.history == "step" and self._before:
            self._journal(seq)
        elif self.history == "irreversible" and self._changed_content():
            self._barrier(seq)
        conn.execute("INSERT INTO change_log (seq, at, command, task_kind, source, credential, "
                     "label, kinds, entity_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (seq, self.now, self.command, self.task_kind, self.meta.source,
                      self.meta.credential, who.elsewhere(self.actor),
                      json.dumps(sorted(self._kinds)),
                      json.dumps(self._entity_ids[:MAX_EVENT_IDS])))
        self.link.save(conn, seq, self.now, result=self.result)
        self._counts.finish(self._kinds, self._touched_assets)
        if self.studio:  # delivered to the other machines when (and if) this commits
            conn.execute("SELECT pg_notify(?, ?)", (NOTIFY_CHANNEL, str(seq)))

    def _journal(self, seq: int) -> None:
        conn = self.conn
        rows, unchanged = [], []
        by_kind: dict[str, list[str]] = {}
        for kind, entity_id in self._before:
            by_kind.setdefault(kind, []).append(entity_id)
        for kind, ids in by_kind.items():
            after = entitystate.snapshot_many(conn, kind, ids)
            versions = entitystate.versions(conn, kind, ids)
            for entity_id in ids:
                before = self._before[(kind, entity_id)]
                after_json = json.dumps(after.get(entity_id))
                if before == after.get(entity_id):  # nothing to put back, but an earlier
                    unchanged.append((after_json, versions.get(entity_id), kind, entity_id))
                    continue  # transaction of the step may hold an older after-state
                rows.append((kind, entity_id, None if before is None else json.dumps(before),
                             after_json, self._before_versions.get((kind, entity_id)),
                             versions.get(entity_id)))
        if self.link.entry is not None and unchanged:
            conn.executemany("UPDATE history_items SET after_state = ?, after_version = ? "
                             "WHERE entry_id = ? AND kind = ? AND entity_id = ?",
                             [(a, v, self.link.entry, k, i) for a, v, k, i in unchanged])
        if not rows:
            return
        if self.link.entry is None:
            self.link.entry = self._new_entry(seq, undoable=True)
        else:
            conn.execute("UPDATE history SET summary = ?, change_sequence = ? WHERE id = ?",
                         (self._step_summary(), seq, self.link.entry))
        # an entity an earlier transaction of the same step changed keeps that first
        # before-state: the step's undo puts back what was there before the whole call
        conn.executemany(
            "INSERT INTO history_items (entry_id, kind, entity_id, before_state, after_state, "
            "before_version, after_version) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (entry_id, kind, entity_id) DO UPDATE SET "
            "after_state = excluded.after_state, after_version = excluded.after_version",
            [(self.link.entry, *row) for row in rows])

    def _new_entry(self, seq: int, *, undoable: bool) -> int:
        """A new history entry on top (a new step: what was undone can no longer be redone)."""
        conn = self.conn
        if self.studio:  # undo is per caller there: only this caller's undone steps go
            mine = who.caller(self.actor)
            gone = [row["id"] for row in conn.execute(
                "SELECT id, actor FROM history WHERE state = 'undone'").fetchall()
                if who.caller_of(row["actor"]) == mine]
            conn.executemany("DELETE FROM history WHERE id = ?", [(i,) for i in gone])
        else:
            conn.execute("DELETE FROM history WHERE state = 'undone'")
        entry: int = conn.execute(
            "INSERT INTO history (command, summary, actor, at, state, change_sequence, "
            "undoable) VALUES (?, ?, ?, ?, 'done', ?, ?) RETURNING id",
            (self.command, self._step_summary(), self.actor_json, self.now, seq,
             int(undoable))).fetchone()[0]
        conn.execute("DELETE FROM history WHERE id <= ?", (entry - HISTORY_KEEP,))
        return entry

    def _step_summary(self) -> str:
        return self.link.summary or self.summary

    def _changed_content(self) -> bool:
        """Did this transaction change something a person made (not only tasks' rows)?"""
        return bool(self._entity_ids) and bool(self._kinds & set(entitystate.KINDS))

    def _barrier(self, seq: int) -> None:
        """An irreversible change: undo stops at it (HISTORY_IRREVERSIBLE)."""
        if self.link.entry is None:
            self.link.entry = self._new_entry(seq, undoable=False)
        else:
            self.conn.execute("UPDATE history SET summary = ?, change_sequence = ? WHERE "
                              "id = ?", (self._step_summary(), seq, self.link.entry))

    def _notify(self) -> None:
        if self.change_sequence is None:
            return  # only the ledger was written
        name = self.conn.execute("SELECT name FROM library_state").fetchone()[0] \
            if "library" in self._kinds else None
        self.services.emit(LibraryChanged(
            library_id=self.services.library_id, change_sequence=self.change_sequence,
            kinds=sorted(self._kinds), command=self.command, task_kind=self.task_kind,
            actor=Actor.model_validate(self.actor),
            entity_ids=self._entity_ids[:MAX_EVENT_IDS], library_name=name))


SYSTEM = CallMeta(source="system", label="Serpent")


def background_write(services: Services, task_kind: str, meta: CallMeta = SYSTEM) -> WriteTx:
    """A write no command's call makes (a task's bookkeeping, a watcher's sync, the
    analysis an import queues), recorded under its task kind (`library.catalogue.
    task_kinds`, or a task row's kind this Serpent does not know); `meta`: whom it is for."""
    return WriteTx(services, "", meta, task_kind=task_kind)
