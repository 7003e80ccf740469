"""Free-text `asset.search` through the trigram index: same answers as the substring scan,
kept in step by every change, built for existing libraries, and off where SQLite cannot."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from library.protocol import CallMeta
from library.schemas import AssetSearchIn
from library.worker.commands import asset_search
from library.worker.rows import assetrows, textindex
from library.worker.store.database import connect
from tests.library.factories import TIMEOUT, call, make_file, make_image, make_images

PERSON = CallMeta(source="ui", label="You")

# name, notes, source URL, tags: scripts, case, FTS query syntax and LIKE wildcards
RECORDS = [
    ("Straße am Fluss", "Überblick, warm", "https://example.com/strasse", ["Reise"]),
    ("参考资料 concept art", "角色设计 early pass", "", ["概念", "art"]),
    ("ΣΟΦΙΑ portrait", "Ελληνικά notes", "", ["Portrait"]),
    ('say "hi" NEAR OR AND', "a-b*c col:on ^start (x)", "https://example.org/q?a=1", []),
    ("🎨 palette 100%_done", "emoji 🎨🎨 first", "", ["Colour"]),
    ("plain", "", "", ["sky", "sunset glow"]),
]
QUERIES = ["straße", "STRASSE", "überb", "ss", "参考资", "参考", "角色", "概念", "σοφια",
           "ελλην", "οφ", '"hi"', 'say "hi"', "near", "or", "a-b*c", "col:on", "^start",
           "(x)", "🎨", "🎨🎨", "100%_", "%_d", "port rait", "portrait ΣΟΦ", "sunset glow",
           "glow sky", "example.org", "q?a=1", "https", "ar", "a", "zzz", "sky zzz", "e",
           "warm reise", "pass early 参考", "sky ar", "e glow"]


def search_ids(host, library_id, text, **filters) -> tuple[set[str], int]:
    page = call(host, library_id, "asset.search", {"text": text, "limit": 500, **filters})
    return {item["id"] for item in page["items"]}, page["total"]


def expected_ids(records: dict[str, dict], text: str) -> set[str]:
    """The substring meaning, written out: every word is in some field, ignoring case."""
    words = text.casefold().split()
    found = set()
    for asset_id, fields in records.items():
        haystack = [f.casefold() for f in (fields["name"], fields["original"], fields["notes"],
                                           fields["url"], *fields["tags"])]
        if all(any(word in field for field in haystack) for word in words):
            found.add(asset_id)
    return found


def integrity_check(path: Path) -> None:
    """FTS5's own check that the index holds exactly the rows' text (library closed)."""
    db = sqlite3.connect(path / "library.sqlite")
    try:
        db.execute("INSERT INTO assets_fts (assets_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        db.close()


@pytest.fixture
def described(host, library_id, sources):
    images = make_images(sources, len(RECORDS))
    result = call(host, library_id, "file.import", {"sourcePaths": [str(sources)]})
    by_source = {i["sourcePath"]: i["assetId"] for i in result["items"]}
    records = {}
    for path, (name, notes, url, tags) in zip(images, RECORDS, strict=True):
        asset_id = by_source[str(path)]
        call(host, library_id, "asset.update", {"assetId": asset_id, "name": name,
                                                "notes": notes, "sourceUrl": url})
        if tags:
            call(host, library_id, "asset.tag", {"assetIds": [asset_id], "tags": tags})
        records[asset_id] = {"name": name, "original": path.name, "notes": notes, "url": url,
                             "tags": tags}
    return records


@pytest.mark.both_kinds
def test_text_search_matches_substrings_of_any_field_in_any_script(host, library, described):
    library_id = library["libraryId"]
    for text in QUERIES:
        ids, total = search_ids(host, library_id, text)
        assert ids == expected_ids(described, text), text
        assert total == len(ids), text
    # in and out of the trash, alone and with other filters, the totals agree
    trashed = next(i for i, f in described.items() if f["name"] == "plain")
    call(host, library_id, "asset.trash", {"assetIds": [trashed]})
    ids, total = search_ids(host, library_id, "sky")
    assert ids == set() and total == 0
    ids, total = search_ids(host, library_id, "sky", trashed=True)
    assert ids == {trashed} and total == 1
    ids, total = search_ids(host, library_id, "https")
    assert ids == expected_ids(described, "https") - {trashed} and total == len(ids) == 2
    ids, total = search_ids(host, library_id, "art", tags=["概念"])
    assert len(ids) == total == 1
    integrity_check_after_close(host, library)


def test_imported_assets_carry_the_text_a_refresh_would_make(host, library, sources):
    """An import writes each new asset's search text with its row (tags: refreshed after
    they are given); it is the very text `refresh_search_text` makes from the fields."""
    library_id = library["libraryId"]
    make_image(sources / "plain" / "Straße NIGHT.png", seed=1)
    make_image(sources / "plain" / "ΣΟΦΙΑ 参考 İstanbul.png", seed=2)
    make_file(sources / "plain" / "NOTES WITHOUT EXTENSION", b"some notes")
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Canon", "Canon EOS R5"
    exif.get_ifd(0x8769)[0xA434] = "RF24-70mm F2.8"
    (sources / "plain").mkdir(exist_ok=True)
    Image.new("RGB", (40, 30), (9, 9, 9)).save(sources / "plain" / "Shot.JPG", "JPEG",
                                               exif=exif)
    make_image(sources / "tagged" / "Tagged Ünïcode.png", seed=3)
    call(host, library_id, "file.import", {"sourcePaths": [str(sources / "plain")]})
    call(host, library_id, "file.import", {"sourcePaths": [str(sources / "tagged")],
                                           "tags": ["Reise", "概念"]})
    assert search_ids(host, library_id, "eos r5")[1] == 1
    assert search_ids(host, library_id, "straße night")[1] == 1
    assert search_ids(host, library_id, "概念 ünïc")[1] == 1
    host.close(library_id).result(TIMEOUT)
    db = connect(Path(library["path"]) / "library.sqlite")
    try:
        assetrows.register_functions(db)
        stored = dict(db.execute("SELECT id, search_text FROM assets").fetchall())
        assert len(stored) == 5 and all(stored.values())
        db.execute("BEGIN IMMEDIATE")
        assetrows.refresh_search_text(db, list(stored))
        refreshed = dict(db.execute("SELECT id, search_text FROM assets").fetchall())
        db.execute("ROLLBACK")
    finally:
        db.close()
    assert refreshed == stored
    integrity_check(Path(library["path"]))


def integrity_check_after_close(host, library) -> None:
    host.close(library["libraryId"]).result(TIMEOUT)
    if (Path(library["path"]) / "library.sqlite").is_file():  # a studio library: no FTS5
        integrity_check(Path(library["path"]))


@pytest.mark.both_kinds
def test_the_index_follows_tags_edits_history_and_permanent_deletes(host, library, described):
    library_id = library["libraryId"]
    plain = next(i for i, f in described.items() if f["name"] == "plain")
    portrait = next(i for i, f in described.items() if f["name"] == "ΣΟΦΙΑ portrait")

    def found(text: str) -> set[str]:
        return search_ids(host, library_id, text)[0]

    call(host, library_id, "asset.tag", {"assetIds": [portrait], "tags": ["Nightfall"]}, PERSON)
    assert found("nightf") == {portrait}
    call(host, library_id, "asset.untag", {"assetIds": [portrait], "tags": ["nightfall"]},
         PERSON)
    assert found("nightf") == set()
    call(host, library_id, "tag.rename", {"tag": "sunset glow", "newName": "Dusk Haze"}, PERSON)
    assert found("dusk haz") == {plain} and found("sunset") == set()
    call(host, library_id, "tag.merge", {"sources": ["Portrait"], "target": "Headshot"}, PERSON)
    assert found("headsh") == {portrait}
    call(host, library_id, "history.undo", {}, PERSON)  # the merge
    assert found("headsh") == set() and portrait in found("portrait")
    call(host, library_id, "history.undo", {}, PERSON)  # the rename
    assert found("sunset") == {plain} and found("dusk") == set()
    call(host, library_id, "history.redo", {}, PERSON)
    assert found("dusk") == {plain}
    call(host, library_id, "tag.delete", {"tag": "sky"}, PERSON)
    assert found("sky") == set()
    call(host, library_id, "asset.update", {"assetId": plain, "notes": "Quetzal feathers"})
    assert found("quetzal") == {plain}
    call(host, library_id, "asset.trash", {"assetIds": [plain]})
    assert found("quetzal") == set()
    call(host, library_id, "asset.restore", {"assetIds": [plain]})
    assert found("quetzal") == {plain}
    call(host, library_id, "asset.trash", {"assetIds": [plain]})
    plan = call(host, library_id, "trash.empty", {}, plan=True)
    call(host, library_id, "trash.empty", {"stateToken": plan["stateToken"]})
    assert search_ids(host, library_id, "quetzal", trashed=True)[0] == set()
    integrity_check_after_close(host, library)


def test_an_existing_library_gets_the_index_by_its_migration(host, library, described):
    root = Path(library["path"])
    host.close(library["libraryId"]).result(TIMEOUT)
    db = sqlite3.connect(root / "library.sqlite", isolation_level=None)
    try:  # back to the library as the previous version left it
        for trigger in ("assets_fts_insert", "assets_fts_delete", "assets_fts_update"):
            db.execute(f"DROP TRIGGER {trigger}")
        db.execute("DROP TABLE assets_fts")
        db.execute("DELETE FROM schema_migrations WHERE number = 4")
    finally:
        db.close()
    library_id = host.open(root).result(TIMEOUT)["libraryId"]
    assert (root / "library.sqlite.before-v4.bak").is_file()
    for text in ("straße", "参考资", "sunset glow", "ar"):
        assert search_ids(host, library_id, text)[0] == expected_ids(described, text), text
    db = sqlite3.connect(root / "library.sqlite")
    try:
        assert db.execute("SELECT name FROM schema_migrations WHERE number = 4").fetchone() \
            == ("asset text index",)
    finally:
        db.close()
    integrity_check_after_close(host, {"libraryId": library_id, "path": str(root)})


def test_without_trigram_support_search_scans_and_the_index_is_rebuilt_later(
        host, library, described):
    """A library carried to a SQLite without trigram support stays writable and searchable;
    back on a capable one its index is rebuilt, edits made meanwhile included."""
    root = Path(library["path"])
    plain = next(i for i, f in described.items() if f["name"] == "plain")
    host.close(library["libraryId"]).result(TIMEOUT)
    conn = connect(root / "library.sqlite")
    try:
        assetrows.register_functions(conn)
        assert textindex.ensure(conn, available=False) == "off"
        assert not textindex.indexed(conn)
        conn.execute("UPDATE assets SET notes = 'Kingfisher blue' WHERE id = ?", (plain,))
        assetrows.refresh_search_text(conn, [plain])  # a write: no trigger touches the index
        page = asset_search.search_page(conn, AssetSearchIn(text="kingfisher"))
        assert [item["id"] for item in page["items"]] == [plain] and page["total"] == 1
    finally:
        conn.close()
    library_id = host.open(root).result(TIMEOUT)["libraryId"]
    assert search_ids(host, library_id, "kingfisher")[0] == {plain}
    assert search_ids(host, library_id, "straße")[0] == expected_ids(described, "straße")
    integrity_check_after_close(host, {"libraryId": library_id, "path": str(root)})


@pytest.mark.parametrize("drive_limit", [0, 10_000])
def test_index_pages_and_totals_equal_the_scan_in_every_sort(host, library, described,
                                                             monkeypatch, drive_limit):
    """Both ways the index reads a page (through the matches, or along the sort order testing
    membership) give the very pages and totals of the LIKE scan, in and out of the trash."""
    root = Path(library["path"])
    in_trash = next(iter(described))
    call(host, library["libraryId"], "asset.trash", {"assetIds": [in_trash]})
    host.close(library["libraryId"]).result(TIMEOUT)
    monkeypatch.setattr(textindex, "DRIVE_LIMIT", drive_limit)
    conn = connect(root / "library.sqlite", reader=True)
    try:
        assetrows.register_functions(conn)
        for text in QUERIES:
            for trashed in (False, True):
                want = {i for i in expected_ids(described, text) if (i == in_trash) == trashed}
                for sort in asset_search.SORTS:
                    args = AssetSearchIn(text=text, trashed=trashed, sort=sort, limit=500)
                    monkeypatch.setattr(textindex, "MIN_INDEXED", 3)
                    indexed = asset_search.search_page(conn, args)
                    monkeypatch.setattr(textindex, "MIN_INDEXED", 10**6)  # every word: LIKE
                    scanned = asset_search.search_page(conn, args)
                    assert indexed == scanned, (text, sort)
                    assert {item["id"] for item in indexed["items"]} == want, (text, sort)
                    assert indexed["total"] == len(want)
    finally:
        conn.close()
