"""Files written whole (`library.disk.atomicfile`): a reader sees the old file or the new one,
never a torn one; the permissions asked for; nothing left behind when a write fails; and what
is not a file at the path (a folder, a named pipe) refused and left alone."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from library.disk.atomicfile import (
    NotARegularFile,
    atomic_write_bytes,
    atomic_write_text,
    read_state_file,
)


def test_a_reader_sees_the_old_file_or_the_new_one_never_a_torn_one(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    path = folder / "settings.json"
    versions = [bytes([65 + n]) * 300_000 for n in range(4)]  # larger than one write
    atomic_write_bytes(path, versions[0])
    seen: set[bytes] = set()
    torn: list[int] = []
    writing = threading.Event()

    def read_while_written() -> None:
        while not writing.is_set() or len(seen) < 2:
            data = read_state_file(path)
            if data not in versions:
                torn.append(len(data))
            seen.add(data)
            if writing.is_set() and data == versions[-1]:
                return

    reader = threading.Thread(target=read_while_written)
    reader.start()
    writing.set()
    for _ in range(20):
        for version in versions[1:]:
            atomic_write_bytes(path, version)
    reader.join(60)
    assert not reader.is_alive()
    assert torn == [], "a reader saw a file half written"
    assert path.read_bytes() == versions[-1]
    assert [p.name for p in folder.iterdir()] == ["settings.json"]  # no temporary left


def test_text_is_utf8_with_the_line_ends_given(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "notes.json"  # folders made as needed
    atomic_write_text(path, '{"name": "été 字"}\r\nnext\n')
    assert path.read_bytes() == '{"name": "été 字"}\r\nnext\n'.encode()


def test_new_files_are_owner_only_unless_a_mode_is_asked(tmp_path: Path) -> None:
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    private, shared = tmp_path / "credentials.json", tmp_path / "serpent.mo"
    atomic_write_text(private, "{}")
    atomic_write_bytes(shared, b"\xde\x12\x04\x95", mode=0o644)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    atomic_write_text(private, "{}", mode=0o640)  # a replaced file takes the mode asked
    assert stat.S_IMODE(private.stat().st_mode) == 0o640


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "state"
    path = folder / "import-keys.json"
    atomic_write_text(path, "old")

    def disk_full(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)  # the disk says no before the rename
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(path, "new")
    monkeypatch.undo()
    assert path.read_text() == "old"
    assert [p.name for p in folder.iterdir()] == ["import-keys.json"]
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "half \ud800 a surrogate")
    assert path.read_text() == "old"
    assert [p.name for p in folder.iterdir()] == ["import-keys.json"]


def test_what_is_not_a_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "settings.json"
    folder.mkdir()
    with pytest.raises(NotARegularFile, match="a folder"):
        atomic_write_text(folder, "{}")
    with pytest.raises(NotARegularFile, match="a folder"):
        read_state_file(folder)
    assert folder.is_dir() and list(folder.iterdir()) == []
    if hasattr(os, "mkfifo"):
        pipe = tmp_path / "endpoint.json"
        os.mkfifo(pipe)
        with pytest.raises(NotARegularFile, match="a named pipe"):
            read_state_file(pipe)  # never waits for a writer
        with pytest.raises(NotARegularFile, match="a named pipe"):
            atomic_write_bytes(pipe, b"{}")
        assert stat.S_ISFIFO(pipe.stat().st_mode)
