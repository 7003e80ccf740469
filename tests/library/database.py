"""Reading a library's rows from outside Serpent, the way a test checks what was kept: the
SQLite file of a local library, or the PostgreSQL database of a studio library (named by its
`studio.json`). Read-only; the SQL must be plain enough for both (no `?` parameters)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg


@contextlib.contextmanager
def reading(library_path: str | Path) -> Iterator[Any]:
    """A connection to the library's rows: `.execute(sql).fetchall()` gives tuples."""
    root = Path(library_path)
    studio = root / "studio.json"
    if studio.is_file():
        uri = json.loads(studio.read_text(encoding="utf-8"))["database"]
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.read_only = True
            yield conn
        return
    db = sqlite3.connect(f"file:{root / 'library.sqlite'}?mode=ro", uri=True)
    try:
        yield db
    finally:
        db.close()
