"""An open that is refused writes nothing: an empty `library.sqlite` (not a library), another
program's SQLite file, a garbage header or garbage pages (LIBRARY_DAMAGED, with what to do) all
leave the folder byte for byte as they found it: no schema, no lock file, no folders."""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
from pathlib import Path

import pytest

from library.client import LibraryHost
from library.errors import LibraryError
from library.worker.store.database import translate
from tests.library.factories import TIMEOUT, call, make_images


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under `folder` with the hash of its content."""
    found = {}
    for directory, names, files in os.walk(folder):
        for name in names:
            found[str(Path(directory, name).relative_to(folder))] = "folder"
        for name in files:
            path = Path(directory, name)
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def refused(host: LibraryHost, folder: Path) -> LibraryError:
    error = host.open(folder).exception(TIMEOUT)
    assert isinstance(error, LibraryError), error
    assert host.list_open() == []
    return error


def test_an_empty_library_file_is_refused_as_no_library_and_left_empty(
        host: LibraryHost, tmp_path: Path) -> None:
    folder = tmp_path / "Empty.serpent"
    folder.mkdir()
    (folder / "library.sqlite").write_bytes(b"")
    error = refused(host, folder)
    assert error.code == "PATH_INVALID" and error.details["reason"] == "not-a-library"
    assert snapshot(folder) == {"library.sqlite": hashlib.sha256(b"").hexdigest()}, \
        "no fresh schema, no lock file, no folders"


def test_another_programs_database_is_no_library_and_stays_as_it_was(
        host: LibraryHost, tmp_path: Path) -> None:
    folder = tmp_path / "Other.serpent"
    folder.mkdir()
    other = sqlite3.connect(folder / "library.sqlite")
    other.execute("CREATE TABLE notes (text TEXT)")
    other.execute("INSERT INTO notes VALUES ('mine')")
    other.commit()
    other.close()
    before = snapshot(folder)
    error = refused(host, folder)
    assert error.code == "PATH_INVALID" and error.details["reason"] == "not-a-library"
    assert snapshot(folder) == before  # still in rollback mode: no WAL switch, no tables


@pytest.mark.parametrize("damage", ["header", "pages"])
def test_a_damaged_database_is_library_damaged_and_left_untouched(
        host: LibraryHost, library: dict, sources: Path, damage: str) -> None:
    library_id, root = library["libraryId"], Path(library["path"])
    make_images(sources, 12)
    call(host, library_id, "file.import", {"sourcePaths": [str(sources)], "tags": ["sky"]})
    host.close(library_id).result(TIMEOUT)
    database = root / "library.sqlite"
    data = bytearray(database.read_bytes())
    noise = random.Random(7)
    if damage == "header":
        data[:100] = bytes(noise.randrange(256) for _ in range(100))
    else:
        for offset in range(3 * 4096, len(data), 4096):
            data[offset + 8: offset + 600] = bytes(noise.randrange(256) for _ in range(592))
    database.write_bytes(bytes(data))
    (root / ".clean-close").unlink(missing_ok=True)  # it no longer vouches for the file
    before = snapshot(root)
    error = refused(host, root)
    assert error.code == "LIBRARY_DAMAGED", error
    assert error.details["hint"] == "library.repair" and "incidentId" not in error.details
    assert "recover what it can still read into a new library" in error.message
    assert database.read_bytes() == bytes(data)
    after = snapshot(root)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    assert changed <= {".lock", "library.sqlite-shm", "library.sqlite-wal"}, changed
    wal = root / "library.sqlite-wal"
    assert not wal.exists() or wal.stat().st_size == 0, "nothing was written to the library"


def test_a_query_that_meets_a_damaged_page_is_library_damaged() -> None:
    for text in ("database disk image is malformed", "file is not a database"):
        error = translate(sqlite3.DatabaseError(text))
        assert error.code == "LIBRARY_DAMAGED" and error.details["hint"] == "library.repair"
