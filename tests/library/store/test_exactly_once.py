"""Exactly once (issue 25): a write whose worker dies under it is sent again by the host with
the same request id, and the restarted worker answers what the first run committed, or runs
it if nothing was (a task goes on where it stopped): no write applied twice, none lost, and
the caller never gets WORKER_UNAVAILABLE for a write that may have been saved.

The kill test kills the worker once per trial, at a seeded random point of each kind of write
(one transaction or a task of several; undo and redo; irreversible deletes; work that is not
a step), with no idempotencyKey: every other trial the moment the call's n-th commit is
heard (n random, the host reads on after the kill: often the answer was not sent yet), the
others after a random time. Each trial checks the answer against the library (the change is
there, once), the request ledger (one row for the call, holding the very answer the caller
got) and the library's integrity. It prints where the kills fell: answered before the kill,
nothing saved yet (run again), or saved by the first run and answered from the ledger.
`SERPENT_ONCE_TRIALS` sets the trials per kind (default 2). Each case made to happen on
purpose: `test_resend`.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import threading
import time
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from library.client import LibraryHost
from library.errors import LibraryError
from library.events import LibraryChanged, WorkerRestarted
from tests.library.factories import TIMEOUT, EventLog, call, make_images
from tests.library.store.test_crash import check_library, wait_restarted
from tests.waiting import wait_until

TRIALS = int(os.environ.get("SERPENT_ONCE_TRIALS", "2"))


def utc_now() -> str:
    """Now, written as the library writes its times (text order is time order)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Killer(EventLog):
    """The host's event listener: keeps every event, and kills the library's worker from the
    host's reader thread the moment the armed call's n-th commit (its `LibraryChanged`) is
    heard, before the host reads what the worker sent after it."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._armed: tuple[str, int, int] | None = None  # command, commits to hear, pid
        self._heard = 0
        self.killed_at: str | None = None  # when the last kill was sent (the library's time)

    def begin(self, command: str | None = None, commits: int = 0, pid: int = 0) -> None:
        """A new trial: nothing killed yet; with `command`, kill at its `commits`-th commit."""
        with self._lock:
            self._armed = (command, commits, pid) if command is not None else None
            self._heard, self.killed_at = 0, None

    def fired(self) -> bool:
        with self._lock:
            return self.killed_at is not None

    def kill_now(self, pid: int) -> None:
        """Kill at once, unless the armed kill came first."""
        with self._lock:
            if self.killed_at is None:
                self._kill(pid)

    def __call__(self, event: Any) -> None:
        super().__call__(event)
        with self._lock:
            if self._armed is None or not isinstance(event, LibraryChanged):
                return
            command, commits, pid = self._armed
            if event.command == command:
                self._heard += 1
                if self._heard >= commits:
                    self._kill(pid)

    def _kill(self, pid: int) -> None:
        self.killed_at = utc_now()
        os.kill(pid, signal.SIGKILL)
        self._armed = None


@pytest.fixture
def events() -> Killer:
    return Killer()


@dataclass
class Trial:
    host: LibraryHost
    library_id: str
    root: Path
    tmp: Path
    n: int

    def call(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return call(self.host, self.library_id, command, args)

    def images(self, count: int, ext: str = "png", name: str = "") -> Path:
        folder = self.tmp / f"trial-{self.n}{name}"
        make_images(folder, count, start=self.n * 1000 + (500 if ext != "png" else 0),
                    size=(24, 24), ext=ext)
        return folder

    def assets(self, count: int) -> list[str]:
        found = self.call("file.import", {"sourcePaths": [str(self.images(count, name="-a"))]})
        return [item["assetId"] for item in found["items"]]

    def link(self, folder: Path, **rules: Any) -> dict[str, Any]:
        return self.call("linked-folder.create", {"path": str(folder),
                                                  "rules": {"autoImport": False, **rules}})

    def history(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.call("history.list", {"limit": 500})["items"]
        return items

    def total(self) -> int:
        return int(self.call("asset.search", {"limit": 1})["total"])

    def trashed(self) -> int:
        return int(self.call("trash.list", {"limit": 1})["total"])


# -- the kinds of write: (make its arguments, check the answer and the library) -------------
Check = Callable[[Trial, dict[str, Any], "Before"], None]


@dataclass
class Before:
    history: list[dict[str, Any]]
    assets: int
    trashed: int


def new_steps(t: Trial, before: Before, command: str) -> list[dict[str, Any]]:
    known = {e["id"] for e in before.history}
    return [e for e in t.history() if e["id"] not in known and e["command"] == command]


def one_step(command: str, then: Check | None = None) -> Check:
    def check(t: Trial, result: dict[str, Any], before: Before) -> None:
        steps = new_steps(t, before, command)
        assert len(steps) == 1, f"{command}: {len(steps)} history entries (lost or twice)"
        if then is not None:
            then(t, result, before)
    return check


def _tagged(t: Trial, result: dict[str, Any], before: Before) -> None:
    [item] = result["items"]
    [asset] = t.call("asset.get", {"assetIds": [item["id"]]})["items"]
    assert f"tag-{t.n}" in asset["tags"]


def _rated(t: Trial, result: dict[str, Any], before: Before) -> None:
    [asset] = t.call("asset.get", {"assetIds": [result["item"]["id"]]})["items"]
    assert asset["rating"] == 1 + t.n % 5


def _trashed(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert t.trashed() == before.trashed + 2 and t.total() == before.assets - 2


def _renamed_library(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert t.call("library.info")["name"] == f"Renamed {t.n}" == result["name"]


def _folder_once(t: Trial, result: dict[str, Any], before: Before) -> None:
    named = [f for f in t.call("folder.list")["items"] if f["name"] == f"Folder {t.n}"]
    assert [f["id"] for f in named] == [result["id"]]


def _collection_once(t: Trial, result: dict[str, Any], before: Before) -> None:
    named = [c for c in t.call("collection.list")["items"] if c["name"] == f"Picks {t.n}"]
    assert [c["id"] for c in named] == [result["id"]]


def _tag_renamed(t: Trial, result: dict[str, Any], before: Before) -> None:
    names = {tag["name"] for tag in t.call("tag.list", {"limit": 500})["items"]}
    assert f"new-{t.n}" in names and f"old-{t.n}" not in names


def _rename_tag(t: Trial) -> dict[str, Any]:
    t.call("asset.tag", {"assetIds": t.assets(1), "tags": [f"old-{t.n}"]})
    return {"tag": f"old-{t.n}", "newName": f"new-{t.n}"}


def _undo(t: Trial) -> dict[str, Any]:
    [asset] = t.assets(1)
    t.call("asset.tag", {"assetIds": [asset], "tags": [f"kept-{t.n}"]})
    t.call("asset.tag", {"assetIds": [asset], "tags": [f"undone-{t.n}"]})
    return {}


def _undone_once(t: Trial, result: dict[str, Any], before: Before) -> None:
    top, previous = before.history[0], before.history[1]
    assert result["entry"]["id"] == top["id"]  # the first outcome names what it undid
    states = {e["id"]: e["undone"] for e in t.history()}
    assert states[top["id"]] is True and states[previous["id"]] is False, "undone twice"


def _redo(t: Trial) -> dict[str, Any]:
    [asset] = t.assets(1)
    for name in ("first", "second"):
        t.call("asset.tag", {"assetIds": [asset], "tags": [f"{name}-{t.n}"]})
    t.call("history.undo")
    t.call("history.undo")
    return {}


def _redone_once(t: Trial, result: dict[str, Any], before: Before) -> None:
    older, newer = before.history[1], before.history[0]  # both undone; redo takes the older
    assert result["entry"]["id"] == older["id"]
    states = {e["id"]: e["undone"] for e in t.history()}
    assert states[older["id"]] is False and states[newer["id"]] is True, "redone twice"


def _deleted(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["deleted"] == 2 and t.total() == before.assets - 2, result


def _empty_trash(t: Trial) -> dict[str, Any]:
    t.call("asset.trash", {"assetIds": t.assets(2)})
    return {}


def _emptied(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["deleted"] == before.trashed > 0 and t.trashed() == 0, result


def _queued_once(t: Trial, result: dict[str, Any], before: Before) -> None:
    tasks = [task for task in t.call("task.list", {"limit": 500})["items"]
             if task["kind"] == "analysis" and task["createdAt"] >= result["task"]["createdAt"]]
    assert [task["id"] for task in tasks] == [result["task"]["id"]], "queued twice or lost"


def _unlink(t: Trial) -> dict[str, Any]:
    linked = t.link(t.images(3, name="-u"))
    return {"linkedFolderId": linked["id"], "keepAssets": True}


def _unlinked(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["id"] not in {f["id"] for f in t.call("linked-folder.list")["items"]}
    assert t.total() == before.assets  # its assets stay


IMPORTED = 150  # three batches of 64 and a task row: several transactions


def _import(t: Trial) -> dict[str, Any]:
    return {"sourcePaths": [str(t.images(IMPORTED, name="-i"))]}


def _imported(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["imported"] == IMPORTED and result["duplicates"] == 0, \
        {k: v for k, v in result.items() if k != "items"}
    assert {i["status"] for i in result["items"]} == {"imported"}
    assert t.total() == before.assets + IMPORTED  # each file once
    [step] = new_steps(t, before, "file.import")
    assert step["summary"] == f"Imported {IMPORTED} files"


def _link(t: Trial) -> dict[str, Any]:
    return {"path": str(t.images(40, name="-l")), "rules": {"autoImport": False}}


def _linked(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["assetCount"] == 40 and t.total() == before.assets + 40, result
    same = [f for f in t.call("linked-folder.list")["items"] if f["path"] == result["path"]]
    assert [f["id"] for f in same] == [result["id"]]


def _change_rules(t: Trial) -> dict[str, Any]:
    folder = t.images(20, name="-r")
    t.images(20, ext="jpg", name="-r")
    linked = t.link(folder, include=["*.png"])
    assert linked["assetCount"] == 20
    return {"linkedFolderId": linked["id"], "rules": {"autoImport": False}}


def _rules_changed(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["assetCount"] == 40 and result["rules"]["include"] == [], result
    assert t.total() == before.assets + 20


def _refresh(t: Trial) -> dict[str, Any]:
    folder = t.tmp / f"trial-{t.n}-f"
    folder.mkdir()
    linked = t.link(folder)
    make_images(folder, 40, start=t.n * 1000 + 600, size=(24, 24))
    return {"linkedFolderId": linked["id"]}


def _refreshed(t: Trial, result: dict[str, Any], before: Before) -> None:
    assert result["added"] == 40 and result["failed"] == 0, result  # counted once each
    assert result["linkedFolder"]["assetCount"] == 40 and t.total() == before.assets + 40


def _export(t: Trial) -> dict[str, Any]:
    (t.tmp / f"export-{t.n}").mkdir()
    return {"targetPath": str(t.tmp / f"export-{t.n}" / "backup.zip")}


def _exported(t: Trial, result: dict[str, Any], before: Before) -> None:
    target = t.tmp / f"export-{t.n}" / "backup.zip"
    assert result["path"] == str(target)
    with zipfile.ZipFile(target) as archive:
        assert archive.testzip() is None
    assert [p.name for p in target.parent.iterdir()] == ["backup.zip"]  # no partial file


@dataclass(frozen=True)
class Kind:
    make: Callable[[Trial], dict[str, Any]]  # its arguments, on entities of its own
    check: Check  # the answer is the library's: the change is there, once
    seconds: float  # about how long it runs: the window of a kill at a random moment
    commits: int = 1  # how many commits it is heard making (its task's rows included)


KINDS: dict[str, Kind] = {
    "asset.tag": Kind(lambda t: {"assetIds": t.assets(1), "tags": [f"tag-{t.n}"]},
                      one_step("asset.tag", _tagged), 0.03),
    "asset.update": Kind(lambda t: {"assetId": t.assets(1)[0], "rating": 1 + t.n % 5},
                         one_step("asset.update", _rated), 0.03),
    "asset.trash": Kind(lambda t: {"assetIds": t.assets(2)}, one_step("asset.trash", _trashed),
                        0.03),
    "library.rename": Kind(lambda t: {"name": f"Renamed {t.n}"},
                           one_step("library.rename", _renamed_library), 0.03),
    "folder.create": Kind(lambda t: {"name": f"Folder {t.n}"},
                          one_step("folder.create", _folder_once), 0.03),
    "collection.create": Kind(lambda t: {"name": f"Picks {t.n}"},
                              one_step("collection.create", _collection_once), 0.03),
    "tag.rename": Kind(_rename_tag, one_step("tag.rename", _tag_renamed), 0.03),
    "history.undo": Kind(_undo, _undone_once, 0.03),
    "history.redo": Kind(_redo, _redone_once, 0.03),
    "asset.delete-permanently": Kind(lambda t: {"assetIds": t.assets(2)},
                                     one_step("asset.delete-permanently", _deleted), 0.03),
    "trash.empty": Kind(_empty_trash, one_step("trash.empty", _emptied), 0.03),
    "analysis.run": Kind(lambda t: {"assetIds": t.assets(1), "force": True}, _queued_once,
                         0.03),
    "linked-folder.unlink": Kind(_unlink, one_step("linked-folder.unlink", _unlinked), 0.03),
    "file.import": Kind(_import, one_step("file.import", _imported), 1.5, commits=5),
    "linked-folder.create": Kind(_link, one_step("linked-folder.create", _linked), 0.6,
                                 commits=4),
    "linked-folder.update-rules": Kind(_change_rules,
                                       one_step("linked-folder.update-rules", _rules_changed),
                                       0.4, commits=3),
    "linked-folder.refresh": Kind(_refresh, one_step("linked-folder.refresh", _refreshed), 0.6,
                                  commits=3),
    "library.export": Kind(_export, _exported, 0.4, commits=2),
}


# -- what the library says about one call -------------------------------------------------
def ledger_of(root: Path, command: str, since: str) -> list[tuple[str, dict[str, Any] | None]]:
    """The request ledger's rows of `command` recorded since `since`: (state, answer)."""
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT state, result FROM requests WHERE created_at >= ? AND "
                          "substr(command, 1, instr(command, '#') - 1) = ?",
                          (since, command)).fetchall()
    finally:
        db.close()
    return [(state, json.loads(result) if result else None) for state, result in rows]


def first_run_commits(root: Path, command: str, after_sequence: int, killed_at: str) -> int:
    """How many commits of `command` the killed worker made (a restarted worker's commits
    are all later than the kill)."""
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        [(count,)] = db.execute("SELECT count(*) FROM change_log WHERE seq > ? AND command = ? "
                                "AND at < ?", (after_sequence, command, killed_at)).fetchall()
    finally:
        db.close()
    return int(count)


def answer(host: LibraryHost, library_id: str, name: str, args: dict[str, Any],
           future: Any) -> dict[str, Any]:
    """The call's answer, retried as a client is told to: only when nothing was saved."""
    try:
        result: dict[str, Any] = future.result(TIMEOUT)
        return result
    except LibraryError as error:
        if error.code == "WORKER_UNAVAILABLE" and error.retryable and \
                error.details.get("outcome") == "not-saved":
            return call(host, library_id, name, args)
        raise AssertionError(f"{name}: {error!r}") from error


def kill_during(trial: Trial, events: Killer, name: str, kind: Kind, at_commit: bool,
                rng: random.Random) -> str:
    """One trial: the call, one kill, its answer checked. Returns where the kill fell."""
    host, library_id, root = trial.host, trial.library_id, trial.root
    args = kind.make(trial)
    before = Before(trial.history(), trial.total(), trial.trashed())
    sequence = call(host, library_id, "library.change-sequence")["changeSequence"]
    pid = host.worker_pid(library_id)
    assert pid is not None
    commits, moment = rng.randint(1, kind.commits), rng.uniform(0.0, kind.seconds)
    sent = utc_now()
    events.begin(name if at_commit else None, commits, pid)
    future = host.call(library_id, name, args)  # no idempotencyKey
    if at_commit:  # killed at its commit; or, if it made fewer, after its answer
        wait_until(lambda: events.fired() or future.done(), f"{name} to commit")
    else:
        time.sleep(moment)  # a random moment of the call (not a wait for something)
    events.kill_now(pid)
    result = answer(host, library_id, name, args, future)
    restarted = wait_restarted(events, trial.n)
    kind.check(trial, result, before)
    ledger = ledger_of(root, name, sent)
    assert ledger == [("done", result)], f"{name}: the ledger holds {ledger}"
    check_library(root)
    assert events.killed_at is not None
    saved = first_run_commits(root, name, sequence, events.killed_at)
    if not restarted.resent:
        return "answered before the kill"
    if not saved:
        return "nothing saved yet, so run again"
    return "saved, answered from the ledger" if kind.commits == 1 else \
        "partly saved, went on"


@pytest.mark.timeout(300 + 150 * TRIALS)
def test_a_write_whose_worker_is_killed_is_applied_exactly_once(host, library, events,
                                                                tmp_path, capsys):
    library_id, root = library["libraryId"], Path(library["path"])
    rng = random.Random(2025)
    fell: Counter[str] = Counter()
    for round_ in range(TRIALS):
        for index, (name, kind) in enumerate(KINDS.items()):
            trial = Trial(host, library_id, root, tmp_path, sum(fell.values()) + 1)
            at_commit = (round_ + index) % 2 == 0  # each kind both ways, with 2 trials
            where = kill_during(trial, events, name, kind, at_commit, rng)
            fell[f"{where} ({'at a commit' if at_commit else 'at a moment'})"] += 1
    kills = sum(fell.values())
    assert len(events.of(WorkerRestarted)) == kills == TRIALS * len(KINDS)
    with capsys.disabled():
        print(f"\n{kills} kills fell: " + "; ".join(f"{n} {what}" for what, n in
                                                  sorted(fell.items())))
