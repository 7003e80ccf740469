"""`library.move-to-studio`: a local library becomes a studio library in its own folder, its
rows moved into an empty PostgreSQL database (docs/studio.md, "Moving a library in").

Runs in the worker process, writer thread (a `task`, dangerous: a plan first). The rows go in
one transaction the server commits only at the end (`studio.move_in`): cancelled or failed
before that, the library is as it was. The caller then starts the worker again
(`LibraryHost.reopen`): the folder opens as a studio library, same id, and its local
database goes into `.before-studio/`.
"""

from __future__ import annotations

import hashlib
from typing import Any

from library.catalogue import CATALOGUE, task_kinds
from library.errors import CANCELLED, STALE_PLAN, LibraryError
from library.schemas import LibraryMoveToStudioIn, LibraryMoveToStudioOut, RiskReport, RiskTarget
from library.worker.context import ReadContext, TaskContext
from library.worker.tasks.taskrunner import tracked

KIND = task_kinds.MOVE_TO_STUDIO


def _report(conn: Any, root: Any, database: str) -> RiskReport:
    from library.worker.studio import studiofile
    from library.worker.studio.move_in import SET_ASIDE

    uri = studiofile.check_uri(database)
    state = conn.execute("SELECT library_id, name FROM library_state").fetchone()
    count = conn.execute("SELECT count(*) FROM assets").fetchone()[0]
    version = last_person_change(conn)
    source = f"library.move-to-studio|{state['library_id']}|{version}|{count}|{uri}"
    token = "st_" + hashlib.sha256(source.encode()).hexdigest()[:32]
    summary = (f"Move the library “{state['name']}” onto the studio database {uri}: the "
               f"records of its {count} asset{'s' if count != 1 else ''}, tags, folders, "
               f"collections and history go to the server, the files stay in {root} (other "
               f"computers open the library from there). The local database is kept in "
               f"{root / SET_ASIDE}.")
    return RiskReport(summary=summary, count=count, total_bytes=0, irreversible=False,
                      state_token=token,
                      targets=[RiskTarget(id=state["library_id"], name=state["name"],
                                          version=version, size=0)])


def last_person_change(conn: Any) -> int:
    """The change sequence of the library's last change a person (or their agent) made: what
    the confirmation is bound to. Previews and analysis of a fresh import go on while the
    person reads the question; they move the change sequence but not what the move takes
    away from the person, so they never make the confirmation stale."""
    row = conn.execute(_LAST_PERSON_CHANGE, PERSON_MADE).fetchone()
    return int(row[0]) if row is not None else 0


# the commands that change what a person made (their history rule is not "none"), and the
# query for the last of them in the change log: both fixed by the catalogue, made once
PERSON_MADE = tuple(sorted(name for name, entry in CATALOGUE.items() if entry.history != "none"))
_LAST_PERSON_CHANGE = (f"SELECT seq FROM change_log WHERE command IN "
                       f"({', '.join('?' * len(PERSON_MADE))}) ORDER BY seq DESC LIMIT 1")


def plan_move_to_studio(ctx: ReadContext, args: LibraryMoveToStudioIn) -> RiskReport:
    """What the move will do (what it cannot take is refused when it runs)."""
    return _report(ctx.conn, ctx.layout.root, args.database)


def move_to_studio(ctx: TaskContext, args: LibraryMoveToStudioIn) -> LibraryMoveToStudioOut:
    from library.worker.studio import move_in
    from library.worker.studio.transfer import TABLES

    root = ctx.layout.root
    move_in.refuse_unmovable(ctx.conn, ctx.services.kind)
    report = _report(ctx.conn, root, args.database)
    if args.state_token is not None and args.state_token != report.state_token:
        raise LibraryError(STALE_PLAN, "The library changed since the plan was made; make a "
                           "new plan.", currentStateToken=report.state_token)
    library_id = ctx.services.library_id
    with tracked(ctx, KIND, None, {"database": args.database}) as task:
        total = sum(ctx.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    for table in TABLES)
        moved: dict[str, int] = {}

        def progress(table: str, rows: int) -> None:
            if task.cancelled():
                raise LibraryError(CANCELLED, "The move was cancelled; the library is still "
                                   "on this computer, as it was.")
            moved[table] = rows
            task.progress(min(sum(moved.values()), total), total, f"Copying {table}")

        task.progress(0, total, "Copying the records")
        move_in.move_rows(ctx.conn, root, args.database, ctx.services.machine, task.task_id,
                          progress, ctx.scope.meta.person)
        ctx.services.reopen_after = True  # committed: its worker stops, the folder reopens
        task.progress(total, total, "Moved")
        out = LibraryMoveToStudioOut(
            library_id=library_id, path=str(root), database=args.database.strip(),
            asset_count=report.count, set_aside=str(root / move_in.SET_ASIDE / "library.sqlite"),
            task_id=task.task_id)
        task.result = out.model_dump(mode="json", by_alias=True)
    return out
