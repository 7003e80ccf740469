"""What an import takes from the disk (`files.sources.expand`) on real folders: every file
once, in a stable order, whatever spellings and links lead to it; links to folders are not
followed; the folder tree each file goes into."""

from __future__ import annotations

import os
from pathlib import Path

from library.schemas import FileImportIn, ImportItem
from library.worker.files.sources import expand
from tests.library.factories import make_file


def taken(sources: list[str], library: Path, **options: bool
          ) -> tuple[list[tuple[str, tuple[str, ...] | None]], list[ImportItem]]:
    items: list[ImportItem] = []
    candidates = expand(FileImportIn(source_paths=sources, **options), library, items)
    return [(c.shown, c.folder) for c in candidates], items


def test_a_file_met_through_several_paths_is_taken_once(tmp_path: Path) -> None:
    refs = tmp_path / "refs"
    a = make_file(refs / "a.png", b"a")
    b = make_file(refs / "faces" / "b.png", b"b")
    make_file(refs / "faces" / "deep" / "c.png", b"c")
    os.symlink(a, refs / "link to a.png")  # a link to a file of the same walk
    os.symlink(refs / "faces", refs / "link to faces")  # a link to a folder: not followed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(refs, elsewhere / "refs again")  # the same folder under another name
    library = tmp_path / "Lib.serpent"

    got, items = taken([str(refs), str(a), str(elsewhere / "refs again"),
                        str(refs / "faces" / ".." / "faces" / "b.png"),
                        str(elsewhere / "refs again" / "faces" / "deep")], library)
    assert got == [(str(a), ("refs",)),
                   (str(b), ("refs", "faces")),
                   (str(refs / "faces" / "deep" / "c.png"), ("refs", "faces", "deep"))]
    assert [(Path(i.source_path).name, i.status, i.reason) for i in items] == [
        ("link to faces", "skipped", "link"), ("link to faces", "skipped", "link")]

    got, _ = taken([str(elsewhere / "refs again")], library, keep_folder_tree=False)
    assert got == [(str(elsewhere / "refs again" / "a.png"), None),
                   (str(elsewhere / "refs again" / "faces" / "b.png"), None),
                   (str(elsewhere / "refs again" / "faces" / "deep" / "c.png"), None)]
    got, _ = taken([str(refs)], library, recursive=False)
    assert got == [(str(a), ("refs",))]


def test_a_link_to_a_file_elsewhere_is_taken_as_its_own_file(tmp_path: Path) -> None:
    outside = make_file(tmp_path / "outside" / "o.png", b"o")
    refs = tmp_path / "refs"
    make_file(refs / "x.png", b"x")
    os.symlink(outside, refs / "o link.png")
    got, items = taken([str(refs), str(outside)], tmp_path / "Lib.serpent")
    assert got == [(str(refs / "o link.png"), ("refs",)), (str(refs / "x.png"), ("refs",))]
    assert items == []  # the same file given again is not taken twice
