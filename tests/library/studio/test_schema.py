"""A studio library's PostgreSQL schema is the SQLite schema's twin (the same tables, the
same columns, in every migration), and its `fold()` is Python's casefold."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import psycopg

from library.worker.rows import assetrows
from library.worker.store import schema
from library.worker.studio import casefold, pgschema

# what only a studio database has: its assets' import order, who wrote each change, and
# each machine's own task list (`tasks` is a view of it there)
STUDIO_ONLY = {("assets", "rowid"), ("change_log", "machine"), ("machine_tasks", "machine")}


def sqlite_columns(tmp_path: Path) -> dict[str, set[str]]:
    path = tmp_path / "fresh.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    assetrows.register_functions(conn)
    schema.check_and_migrate(conn, path, fresh=True)
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'assets_fts%'")]
    return {t: {r[1] for r in conn.execute(f"PRAGMA table_info({t})")} for t in tables}


def test_the_studio_schema_has_every_table_and_column(tmp_path: Path,
                                                      postgres_database: str) -> None:
    with psycopg.connect(postgres_database) as conn:
        pgschema.install(conn, casefold.function_sql(conn))
        rows = conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                            "WHERE table_schema = current_schema()").fetchall()
        version = pgschema.check(conn)
    studio: dict[str, set[str]] = {}
    for table, column in rows:
        if (table, column) not in STUDIO_ONLY and table != "machine_tasks":
            studio.setdefault(table, set()).add(column)
    assert studio == sqlite_columns(tmp_path)
    assert version == schema.LATEST


def test_fold_is_pythons_casefold(postgres_database: str) -> None:
    cased = [chr(n) for n in range(1, 0x110000)
             if not 0xD800 <= n <= 0xDFFF and casefold._has_case(n)]
    rng = random.Random(3)
    pool = cased + list("abc XYZ-_.%ß ΣΑΣ 0123")
    texts = cased + ["".join(rng.choice(pool) for _ in range(rng.randint(1, 12)))
                     for _ in range(5000)] + ["ΣΑΣ σ", "Straße", "İstanbul", "ABC", ""]
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute(casefold.function_sql(conn))
        folded = conn.execute("SELECT fold(x) FROM unnest(%s::text[]) WITH ORDINALITY u(x, i) "
                              "ORDER BY i", (texts,)).fetchall()
        assert conn.execute("SELECT fold(NULL)").fetchone()[0] == ""
    wrong = [(t, f[0]) for t, f in zip(texts, folded, strict=True) if f[0] != t.casefold()]
    assert not wrong, wrong[:10]
