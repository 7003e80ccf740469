"""A studio database made by an older Serpent (missing the last migrations) is brought up to
date in place when it is opened: in one transaction, by one machine even when two open it
at the same moment (the others wait on PostgreSQL's advisory lock and find it done), and
nothing is lost. One lacking a migration that has no PostgreSQL twin is refused untouched.
Real workers on two "machines" and the session's real PostgreSQL (tests/postgres)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from library.client import LibraryHost
from library.errors import UNSUPPORTED_FORMAT, LibraryError
from library.worker.store import schema
from library.worker.studio import pgschema
from tests.library.factories import TIMEOUT, call
from tests.waiting import wait_until


@pytest.fixture
def machines() -> Iterator[tuple[LibraryHost, LibraryHost]]:
    alpha, beta = LibraryHost(machine="alpha"), LibraryHost(machine="beta")
    try:
        yield alpha, beta
    finally:
        alpha.shutdown()
        beta.shutdown()


def older(alpha: LibraryHost, tmp_path: Path, uri: str, *, without: str) -> dict[str, Any]:
    """A studio library with a folder in it, closed, its database then made as an older
    Serpent left it (`without`: the SQL that takes the newer migrations back out)."""
    shared = tmp_path / "shared drive"
    shared.mkdir()
    made = alpha.create(shared, "Refs", database=uri).result(TIMEOUT)
    call(alpha, made["libraryId"], "folder.create", {"name": "Kept"})
    alpha.close(made["libraryId"]).result(TIMEOUT)
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(without)
    return made


def applied(uri: str) -> list[int]:
    with psycopg.connect(uri, autocommit=True) as conn:
        return [r[0] for r in conn.execute("SELECT number FROM schema_migrations ORDER BY 1")]


def test_two_machines_opening_an_older_database_at_once_bring_it_up_once(
        machines: tuple[LibraryHost, LibraryHost], tmp_path: Path,
        postgres_database: str) -> None:
    alpha, beta = machines
    uri = postgres_database
    made = older(alpha, tmp_path, uri, without=(
        "DROP TABLE requests; ALTER TABLE history DROP COLUMN undoable; "
        "ALTER TABLE change_log DROP COLUMN task_kind; "
        "DELETE FROM schema_migrations WHERE number IN (9, 10, 11)"))
    assert applied(uri) == list(range(1, 9))
    with psycopg.connect(uri, autocommit=True) as gate:  # both machines meet at the lock
        gate.execute("SELECT pg_advisory_lock(%s)", (pgschema.UPGRADE_LOCK,))
        opening = [alpha.open(made["path"]), beta.open(made["path"])]
        wait_until(lambda: gate.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND "
            "objid::text::bigint = %s", (pgschema.UPGRADE_LOCK,)).fetchone()[0] == 2,
                   "both machines waiting to bring the database up to date")
        gate.execute("SELECT pg_advisory_unlock(%s)", (pgschema.UPGRADE_LOCK,))
    opened = [future.result(TIMEOUT) for future in opening]
    assert [ref["libraryId"] for ref in opened] == [made["libraryId"]] * 2
    assert applied(uri) == [m.number for m in schema.MIGRATIONS]
    library_id = made["libraryId"]
    call(alpha, library_id, "folder.create", {"name": "By alpha"})  # the request ledger
    call(beta, library_id, "folder.create", {"name": "By beta"})
    assert sorted(f["name"] for f in call(beta, library_id, "folder.list")["items"]) == \
        ["By alpha", "By beta", "Kept"]
    undone = call(alpha, library_id, "history.undo")  # history's undoable column
    assert undone
    assert len(call(alpha, library_id, "folder.list")["items"]) == 2


def test_a_database_lacking_a_migration_without_a_twin_is_refused_untouched(
        machines: tuple[LibraryHost, LibraryHost], tmp_path: Path,
        postgres_database: str) -> None:
    alpha, _beta = machines
    uri = postgres_database
    made = older(alpha, tmp_path, uri, without=(
        "DROP TABLE requests; DELETE FROM schema_migrations WHERE number IN (8, 10)"))
    assert 8 not in pgschema.TWINS
    with pytest.raises(LibraryError) as refused:
        alpha.open(made["path"]).result(TIMEOUT)
    assert refused.value.code == UNSUPPORTED_FORMAT
    assert refused.value.details["reason"] == "older-studio-schema"
    assert refused.value.details["missing"] == [8, 10]
    assert applied(uri) == [n for n in range(1, schema.LATEST + 1) if n not in (8, 10)]
    with psycopg.connect(uri, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('requests')").fetchone()[0] is None
    info = json.loads((Path(made["path"]) / "studio.json").read_text())
    assert info["libraryId"] == made["libraryId"]
