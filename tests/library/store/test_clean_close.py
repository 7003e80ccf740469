"""Opening after a clean close skips the database check; after a `kill -9`, a changed file or
on `library.refresh` the check runs. Real worker subprocesses; the start's recovery report
(what `LibraryHost.recovery_report` and `WorkerRestarted` carry) says which check ran."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.library.factories import TIMEOUT, call, make_images
from tests.library.store.test_recovery import crash

MARKER = ".clean-close"


def reopen(host, library_id: str, path: str) -> dict:
    host.close(library_id).result(TIMEOUT)
    assert (Path(path) / MARKER).is_file()  # written by the clean close
    host.open(path).result(TIMEOUT)
    assert not (Path(path) / MARKER).exists()  # taken away before the library is served
    return host.recovery_report(library_id)


def test_a_clean_close_opens_without_a_check(host, library, sources):
    library_id, path = library["libraryId"], library["path"]
    make_images(sources, 3)
    call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    report = reopen(host, library_id, path)
    assert report["check"] == "skipped-clean-close" and report["fullScan"] is False
    assert call(host, library_id, "asset.search")["total"] == 3
    # twice in a row (the marker of the second close is a new one)
    assert reopen(host, library_id, path)["check"] == "skipped-clean-close"


def test_after_kill_9_the_full_check_runs_even_after_an_earlier_clean_close(
        host, library, events, sources):
    library_id, path = library["libraryId"], library["path"]
    make_images(sources, 2)
    call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    assert reopen(host, library_id, path)["check"] == "skipped-clean-close"
    restarted = crash(host, library_id, events)  # SIGKILL of the real worker process
    assert restarted.recovery["check"] == "integrity_check"
    assert restarted.recovery["fullScan"] is True and restarted.recovery["integrity"] == "ok"
    assert host.recovery_report(library_id)["check"] == "integrity_check"
    # a crash right after a clean open: still no marker left to trust
    again = crash(host, library_id, events, count=2)
    assert again.recovery["check"] == "integrity_check"
    assert call(host, library_id, "asset.search")["total"] == 2
    assert reopen(host, library_id, path)["check"] == "skipped-clean-close"


def test_a_database_changed_after_the_clean_close_is_checked(host, library):
    library_id, path = library["libraryId"], library["path"]
    host.close(library_id).result(TIMEOUT)
    db = sqlite3.connect(Path(path) / "library.sqlite")  # another program writes to it
    try:
        db.execute("UPDATE library_state SET name = 'Renamed elsewhere'")
        db.commit()
    finally:
        db.close()
    host.open(path).result(TIMEOUT)
    assert host.recovery_report(library_id)["check"] == "quick_check"


def test_a_copied_library_is_checked(host, library, tmp_path):
    library_id, path = library["libraryId"], Path(library["path"])
    host.close(library_id).result(TIMEOUT)
    database = path / "library.sqlite"
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(database.read_bytes())
    copy.replace(database)  # same bytes, another file: the marker does not vouch for it
    host.open(str(path)).result(TIMEOUT)
    assert host.recovery_report(library_id)["check"] == "quick_check"


def test_refresh_checks_the_database(host, library):
    result = call(host, library["libraryId"], "library.refresh")
    assert result["integrity"] == "ok"
