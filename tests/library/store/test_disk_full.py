"""A full disk: every write path answers DISK_FULL (what is free, what was needed), writes are
refused early below the reserve, deletes still free space, and everything works again as soon
as space is freed. On a real small disk (a 20 MB tmpfs, mounted as root), plus the error
translations for the conditions a tmpfs cannot make on demand (EDQUOT, SQLITE_FULL)."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from library.client import LibraryHost
from library.errors import DISK_FULL, LibraryError
from library.worker.store import diskspace
from library.worker.store.database import translate, translate_os
from tests.library.factories import (
    TIMEOUT,
    call,
    call_error,
    make_file,
    make_image,
    make_images,
)

DISK_MB = 20


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("mounting a small tmpfs needs root on Linux (CI runs as root)")
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs",
                           str(mount_point)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def fill(disk: Path, leave: int) -> Path:
    """A filler file that leaves about `leave` bytes free on `disk`."""
    filler = disk / "filler.bin"
    free = diskspace.free_bytes(disk) or 0
    with open(filler, "wb") as handle:
        chunk = b"\0" * (1024 * 1024)
        remaining = max(free - leave, 0)
        while remaining > 0:
            handle.write(chunk[:remaining])
            remaining -= min(remaining, len(chunk))
    return filler


def assert_disk_full(error: LibraryError) -> None:
    assert error.code == DISK_FULL, error
    assert error.details["freeBytes"] < error.details["neededBytes"], error.details
    assert "free" in error.message and "needed" in error.message


def test_a_full_disk_refuses_every_write_early_and_works_again_once_freed(
        host: LibraryHost, small_disk: Path, sources: Path, tmp_path: Path) -> None:
    ref = host.create(small_disk, "Tiny").result(TIMEOUT)
    library_id = ref["libraryId"]
    first = make_image(sources / "first.png", seed=1)
    asset = call(host, library_id, "file.import", {"sourcePaths": [str(first)]})["items"][0]
    trashed = make_image(sources / "trashed.png", seed=2)
    doomed = call(host, library_id, "file.import",
                  {"sourcePaths": [str(trashed)]})["items"][0]["assetId"]
    call(host, library_id, "asset.trash", {"assetIds": [doomed]})
    later = make_images(sources / "later", 3, start=10)
    # below the reserve (2 % of 20 MB) and room for trash.empty's journal: deleting an
    # analysed asset also deletes its palette and analysis rows, more pages to journal
    filler = fill(small_disk, leave=256 * 1024)

    assert_disk_full(call_error(host, library_id, "asset.update",
                                {"assetId": asset["assetId"], "name": "Renamed"}))
    assert_disk_full(call_error(host, library_id, "folder.create", {"name": "New"}))
    assert_disk_full(call_error(host, library_id, "file.import",
                                {"sourcePaths": [str(p) for p in later]}))
    assert_disk_full(call_error(host, library_id, "library.export",
                                {"targetPath": str(tmp_path / "out.zip")}))
    assert call(host, library_id, "asset.search")["total"] == 1  # reads go on
    report = call(host, library_id, "trash.empty", plan=True)  # freeing space still works
    emptied = call(host, library_id, "trash.empty", {"stateToken": report["stateToken"]})
    assert emptied["deleted"] == 1

    filler.unlink()  # space is back: the very next write works
    call(host, library_id, "asset.update", {"assetId": asset["assetId"], "name": "Renamed"})
    result = call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in later]})
    assert result["imported"] == 3
    exported = call(host, library_id, "library.export", {"targetPath": str(tmp_path / "o.zip")})
    assert exported["assetCount"] == 4
    refreshed = call(host, library_id, "library.refresh")
    assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0
    assert not list((Path(ref["path"]) / ".staging").iterdir())


def test_an_import_that_fills_the_disk_keeps_what_fitted_and_lists_the_rest(
        host: LibraryHost, small_disk: Path, sources: Path) -> None:
    ref = host.create(small_disk, "Tiny").result(TIMEOUT)
    library_id = ref["libraryId"]
    blobs = [make_file(sources / "blobs" / f"blob-{n}.bin", os.urandom(3 * 1024 * 1024))
             for n in range(8)]  # 24 MB: more than the disk
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources / "blobs")]})
    full = [i for i in result["items"] if i["errorCode"] == DISK_FULL]
    assert result["imported"] >= 1 and full, result
    assert result["imported"] + len(full) == len(blobs)
    assert call(host, library_id, "asset.search")["total"] == result["imported"]
    assert "free" in full[0]["error"]
    refreshed = call(host, library_id, "library.refresh")
    assert refreshed["missingFiles"] == 0 and refreshed["orphansMoved"] == 0


def test_unpacking_and_exporting_onto_a_full_disk_is_disk_full(
        host: LibraryHost, library_id: str, small_disk: Path, sources: Path,
        tmp_path: Path) -> None:
    blobs = [make_file(sources / f"blob-{n}.bin", os.urandom(2 * 1024 * 1024))
             for n in range(6)]  # 12 MB
    call(host, library_id, "file.import", {"sourcePaths": [str(p) for p in blobs]})
    archive = tmp_path / "big.zip"
    call(host, library_id, "library.export", {"targetPath": str(archive)})
    fill(small_disk, leave=8 * 1024 * 1024)
    error = host.import_exported(archive, small_disk).exception(TIMEOUT)
    assert isinstance(error, LibraryError)
    assert_disk_full(error)
    assert error.details["field"] == "selectedParentPath"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler.bin"]  # nothing half-made
    error = call_error(host, library_id, "library.export",
                       {"targetPath": str(small_disk / "copy.zip")})
    assert_disk_full(error)
    assert error.details["field"] == "targetPath"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler.bin"]


@pytest.mark.parametrize("error", [
    OSError(errno.ENOSPC, "No space left on device"),
    OSError(errno.EDQUOT, "Disk quota exceeded"),
])
def test_full_disk_os_errors_are_disk_full(error: OSError) -> None:
    assert translate_os(error).code == DISK_FULL


def test_sqlite_full_is_disk_full() -> None:
    assert translate(sqlite3.OperationalError("database or disk is full")).code == DISK_FULL


def test_the_reserve_scales_down_on_small_disks() -> None:
    assert diskspace.reserve_for(20 * 1024 * 1024) == int(20 * 1024 * 1024 * 0.02)
    assert diskspace.reserve_for(10**12) == diskspace.RESERVE_BYTES
