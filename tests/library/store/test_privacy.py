"""A library keeps private what is private, through real workers: its folders are its owner's
only, a stored file (and its preview, and the copy an outside app opens) is never more readable
than its source, an exported archive and its members never more readable than what they hold,
and an unpacked library is owner-only again. Sparse files stay sparse: in the store, in the
archive (deflated, not stored) and unpacked again."""

from __future__ import annotations

import hashlib
import os
import stat
import zipfile
from pathlib import Path
from typing import Any

import pytest

from library.client import LibraryHost
from tests.library.factories import TIMEOUT, call, make_file
from tests.library.pictures import save_pictures

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")

SPARSE_SIZE = 512 * 1024 * 1024  # the store must not take this; hashing it takes a few s
BIG = 300 * 1024  # beyond the small-file path (read whole): the large copy is checked too


def umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def imported(host: LibraryHost, library_id: str, *paths: Path) -> list[dict[str, Any]]:
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in paths]})
    ids = [item["assetId"] for item in result["items"]]
    items: list[dict[str, Any]] = call(host, library_id, "asset.get", {"assetIds": ids})["items"]
    return items


def folders_of(root: Path) -> list[Path]:
    return [root, *(Path(d) / name for d, names, _ in os.walk(root) for name in names)]


def test_a_new_library_is_its_owners_only(library: dict[str, Any]) -> None:
    root = Path(library["path"])
    folders = folders_of(root)
    assert len(folders) > 256  # the library, files/ and its buckets, thumbs/, .staging/...
    assert not [f for f in folders if mode_of(f) & 0o077], "no folder open to others"


def test_stored_files_previews_and_viewing_copies_are_no_more_readable_than_their_source(
        host: LibraryHost, library: dict[str, Any], sources: Path) -> None:
    library_id = library["libraryId"]
    private, shared, group = save_pictures(sources, [1, 2, 3])
    big_private = make_file(sources / "key.bin", os.urandom(BIG))
    for path, mode in ((private, 0o600), (shared, 0o644), (group, 0o640),
                       (big_private, 0o400)):
        path.chmod(mode)
    items = imported(host, library_id, private, shared, group, big_private)
    stored = [mode_of(Path(item["filePath"])) for item in items]
    assert stored == [0o600, 0o644 & ~umask(), 0o640 & ~umask(), 0o600]
    preview = call(host, library_id, "asset.thumbnail", {"assetId": items[0]["id"]})
    assert mode_of(Path(preview["path"])) == 0o600, "a preview shows the private picture"
    from serpent_tk.ui.actions.asset_actions import viewing_copy

    opened = viewing_copy(items[0])  # what "Open with system app" and dragging out hand over
    assert mode_of(opened) == 0o600 and not mode_of(opened.parent) & 0o077
    assert mode_of(viewing_copy(items[1])) == 0o644 & ~umask()
    assert not [f for f in folders_of(Path(library["path"])) if mode_of(f) & 0o077]


def test_a_duplicate_from_a_private_source_makes_the_stored_file_private(
        host: LibraryHost, library: dict[str, Any], sources: Path, tmp_path: Path) -> None:
    library_id = library["libraryId"]
    (shared,) = save_pictures(sources, [7])
    private = tmp_path / "private.png"
    private.write_bytes(shared.read_bytes())
    private.chmod(0o600)
    first = imported(host, library_id, shared)[0]
    assert mode_of(Path(first["filePath"])) == 0o644 & ~umask()
    again = call(host, library_id, "file.import", {"sourcePaths": [str(private)]})
    assert again["items"][0]["status"] == "duplicate"
    assert mode_of(Path(first["filePath"])) == 0o600


def test_an_export_and_its_members_are_no_more_readable_than_their_files(
        host: LibraryHost, library: dict[str, Any], sources: Path, tmp_path: Path) -> None:
    library_id, root = library["libraryId"], Path(library["path"])
    private, shared = save_pictures(sources, [4, 5])
    private.chmod(0o600)
    shared.chmod(0o644)
    items = imported(host, library_id, private, shared)
    outside = tmp_path / "exports"
    outside.mkdir()

    def members(archive: Path) -> dict[str, int]:
        with zipfile.ZipFile(archive) as opened:
            return {info.filename.split("/", 1)[-1]: (info.external_attr >> 16) & 0o777
                    for info in opened.infolist() if not info.is_dir()}

    first = Path(call(host, library_id, "library.export",
                      {"targetPath": str(outside / "owner-only.zip")})["path"])
    assert mode_of(first) == 0o600
    modes = members(first)
    assert modes and not [n for n, m in modes.items() if m & 0o077], modes  # 0700 library

    root.chmod(0o755)  # a library its owner opened to others (or made by an older Serpent)
    second = Path(call(host, library_id, "library.export",
                       {"targetPath": str(outside / "opened.zip")})["path"])
    modes = members(second)
    stored = {item["id"]: Path(item["filePath"]).relative_to(root).as_posix() for item in items}
    assert modes[stored[items[0]["id"]]] == 0o600, "the private picture stays private"
    assert modes[stored[items[1]["id"]]] == 0o644 & ~umask()
    assert mode_of(second) == 0o600, "an archive holding a private file is private"

    copy = host.import_exported(str(second), str(tmp_path)).result(TIMEOUT)
    unpacked = Path(copy["path"])
    assert not [f for f in folders_of(unpacked) if mode_of(f) & 0o077]
    assert mode_of(unpacked / stored[items[0]["id"]]) == 0o600
    assert mode_of(unpacked / stored[items[1]["id"]]) == 0o600, \
        "no more readable than the archive it came from"


def allocated(path: Path) -> int:
    return path.stat().st_blocks * 512


def test_a_sparse_file_stays_sparse_in_the_store_the_archive_and_unpacked(
        host: LibraryHost, library: dict[str, Any], sources: Path, tmp_path: Path) -> None:
    library_id = library["libraryId"]
    sparse = sources / "disk.img"
    head, middle = os.urandom(5000), os.urandom(70_000)
    with open(sparse, "wb") as out:
        out.write(head)
        out.seek(300 * 1024 * 1024 + 123)
        out.write(middle)
        out.truncate(SPARSE_SIZE)
    assert allocated(sparse) < 1024 * 1024, "this file system keeps holes"
    with open(sparse, "rb") as source:
        expected = hashlib.file_digest(source, "sha256")
    (item,) = imported(host, library_id, sparse)
    stored = Path(item["filePath"])
    assert item["size"] == SPARSE_SIZE and stored.stat().st_size == SPARSE_SIZE
    assert allocated(stored) < 2 * 1024 * 1024, "holes stay holes in the store"
    assert stored.name.startswith(expected.hexdigest()), "the hash covers every byte"
    with open(stored, "rb") as copy:
        assert copy.read(5000) == head
        copy.seek(300 * 1024 * 1024 + 123)
        assert copy.read(70_000) == middle

    archive = Path(call(host, library_id, "library.export",
                        {"targetPath": str(tmp_path / "sparse.zip")})["path"])
    assert archive.stat().st_size < 8 * 1024 * 1024, "an archive holds no megabytes of zeros"
    copy = host.import_exported(str(archive), str(tmp_path)).result(TIMEOUT)
    unpacked = Path(copy["path"]) / stored.relative_to(library["path"])
    assert unpacked.stat().st_size == SPARSE_SIZE
    assert allocated(unpacked) < 4 * 1024 * 1024, "unpacked, it is sparse again"
    refreshed = call(host, copy["libraryId"], "library.refresh")
    assert refreshed["missingFiles"] == 0
