"""`library.info`, `library.change-sequence` and `library.rename` (the display name).

Runs in the worker process. Opening, creating and closing are the client's business
(`library.client.LibraryHost`): they start and stop this process.
"""

from __future__ import annotations

from library.schemas import (
    Empty,
    LibraryChangeSequenceOut,
    LibraryInfoOut,
    LibraryRef,
    LibraryRenameIn,
)
from library.worker.context import ReadContext
from library.worker.store.identity import to_datetime
from library.worker.store.transaction import WriteTx


def info(ctx: ReadContext, args: Empty) -> LibraryInfoOut:
    conn = ctx.conn
    state = conn.execute("SELECT library_id, name, created_at, change_sequence "
                         "FROM library_state").fetchone()
    counts = conn.execute(
        "SELECT (SELECT count(*) FROM assets WHERE trashed = 0), "
        "(SELECT count(*) FROM assets WHERE trashed = 1), (SELECT count(*) FROM folders), "
        "(SELECT count(*) FROM tags), (SELECT count(*) FROM collections), "
        "(SELECT coalesce(sum(size), 0) FROM assets), "
        "(SELECT max(number) FROM schema_migrations)").fetchone()
    return LibraryInfoOut(library_id=state["library_id"], name=state["name"],
                          path=str(ctx.layout.root), change_sequence=state["change_sequence"],
                          schema_version=counts[6], asset_count=counts[0],
                          trashed_count=counts[1], folder_count=counts[2], tag_count=counts[3],
                          collection_count=counts[4], total_bytes=counts[5],
                          created_at=to_datetime(state["created_at"]))


def change_sequence(ctx: ReadContext, args: Empty) -> LibraryChangeSequenceOut:
    return LibraryChangeSequenceOut(change_sequence=ctx.services.change_sequence(ctx.conn))


def rename(tx: WriteTx, args: LibraryRenameIn) -> LibraryRef:
    """Change the name shown for the library; its folder on disk keeps its name."""
    library_id = tx.services.library_id
    tx.track("library", [library_id])
    old = tx.conn.execute("SELECT name FROM library_state").fetchone()[0]
    tx.conn.execute("UPDATE library_state SET name = ?", (args.name,))
    tx.summary = f"Renamed the library from {old} to {args.name}"
    return LibraryRef(library_id=library_id, name=args.name, path=str(tx.layout.root))
