"""The studio benchmarks' set-up: a PostgreSQL that makes commits durable, and a big studio
library made from the cached local library of the same size (`scalelib`, SQL inserts).

Runs in the benchmark process. The server is the tests' (tests/postgres: `initdb` in a
temporary folder, loopback only), which the tests start with `fsync` and `full_page_writes`
off for speed; `durable_server` keeps both on, as any real server has them, so a studio commit
costs what it costs a studio (SQLite's commits are durable too). The studio library is made
by the real worker (its folder, `studio.json`, the schema in an empty database), then every
row of the local library is copied into it by `library.worker.studio.transfer.copy_rows`
(what moving a library onto a studio server does), in one transaction holding the library's
write lock, with the triggers off (`build`); the database keeps the studio library's own
identity (its library id and name), and is VACUUM ANALYZEd, as a moved library is once
autovacuum has seen it. The local library's few real files (its newest 60) are copied into
the studio folder's file store.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from library.worker.studio import studiofile
from library.worker.studio.pgconn import PgConnection
from library.worker.studio.transfer import TABLES, copy_rows
from tests.postgres import PostgresServer

TIMEOUT = 600


def durable_server() -> PostgresServer:
    """The tests' PostgreSQL with fsync and full-page writes on, checked."""
    server = PostgresServer.start(durable=True)
    with server.admin() as conn:
        row = conn.execute("SELECT current_setting('fsync'), "
                           "current_setting('full_page_writes')").fetchone()
    if row != ("on", "on"):
        server.stop()
        raise RuntimeError(f"the bench PostgreSQL runs with fsync, full_page_writes = {row}")
    return server


def build(host: Any, local: Path, shared: Path, database: str, name: str,
          log: Callable[[str], None] = print) -> dict[str, Any]:
    """A studio library in `shared` holding `local`'s rows; returns its create answer."""
    started = time.perf_counter()
    made: dict[str, Any] = host.create(shared, name, database=database).result(TIMEOUT)
    host.close(made["libraryId"]).result(TIMEOUT)
    target = PgConnection.open(database, reader=False, key=studiofile.database_key(database),
                               application="Serpent bench", machine="bench")
    source = sqlite3.connect(f"file:{local / 'library.sqlite'}?mode=ro", uri=True)
    try:
        # the count triggers off while copying: on, they update one `asset_counts` row once
        # per asset inside one transaction, and each update walks the versions made before
        # it (10,000 assets copied in 11 s, 100,000 in ~10 minutes); copy_rows counts afresh
        target.execute("SET session_replication_role = replica")
        rows = {table: source.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in TABLES if table != "tasks"}

        def analyse_when_copied(table: str, done: int) -> None:
            # inside the transaction the planner would take the filled tables for empty,
            # and count the tags afresh (copy_rows's last step) by reading every asset once
            # per tag: 100,000 assets spent over 6 minutes there
            if done == rows.get(table):
                target.execute(f"ANALYZE {table}")

        target.execute("BEGIN IMMEDIATE")
        try:
            copying = time.perf_counter()
            copied = copy_rows(source, target, analyse_when_copied)
            copy_s = time.perf_counter() - copying
            target.execute("UPDATE library_state SET library_id = ?, name = ?",
                           (made["libraryId"], made.get("name", name)))
            target.execute("COMMIT")
        except BaseException:
            target.execute("ROLLBACK")
            raise
        finally:
            target.release_write_lock()
    finally:
        source.close()
        target.close()
    with psycopg.connect(database, autocommit=True) as raw:
        raw.execute("VACUUM ANALYZE")
    shutil.copytree(local / "files", Path(made["path"]) / "files", dirs_exist_ok=True)
    log(f"  studio copy: {copied.get('assets', 0):,} assets, {copied.get('tags', 0):,} tags, "
        f"{copied.get('asset_tags', 0):,} tag links in {time.perf_counter() - started:.1f} s "
        f"(of which the copy {copy_s:.1f} s)")
    return made
