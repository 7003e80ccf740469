"""A damaged library through the gateway: opening it answers LIBRARY_DAMAGED (not INTERNAL, no
incident: it is not Serpent's bug) with what to do, and `library.repair` makes a new library
beside it from what can still be read, opens it and says what it recovered; the damaged one is
left as it was."""

from __future__ import annotations

import random
from pathlib import Path

from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, READER, call, code, import_images, ok


def damage_pages(database: Path) -> None:
    data = bytearray(database.read_bytes())
    noise = random.Random(3)
    for offset in range(4 * 4096, len(data), 2 * 4096):
        data[offset + 8: offset + 3000] = bytes(noise.randrange(256) for _ in range(2992))
    database.write_bytes(bytes(data))


def test_a_damaged_library_is_library_damaged_and_repair_opens_what_is_left(
        gateway: Gateway, library: str, tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 6)
    path = Path(ok(gateway, "library.info", {"libraryId": library})["path"])
    ok(gateway, "library.close", {"libraryId": library})
    damage_pages(path / "library.sqlite")
    (path / ".clean-close").unlink(missing_ok=True)
    damaged = path.joinpath("library.sqlite").read_bytes()

    answer = call(gateway, "library.open", {"path": str(path)}, CLAUDE)
    error = answer["error"]
    assert error["code"] == "LIBRARY_DAMAGED" and error["hint"] == "library.repair"
    assert "incidentId" not in error and "retryable" not in error
    assert "recover what it can still read into a new library" in error["message"]

    repaired = ok(gateway, "library.repair", {"path": str(path)}, CLAUDE)
    assert repaired["name"] == "Moodboards (recovered)" and repaired["open"]
    assert Path(repaired["path"]) == path.parent / "Moodboards (recovered).serpent"
    assert repaired["damagedPath"] == str(path) and repaired["assets"] == 6
    assert repaired["summary"].startswith("Recovered 6 assets into “Moodboards (recovered)”")
    assert repaired["summary"].endswith("The damaged library is left as it was.")
    assert path.joinpath("library.sqlite").read_bytes() == damaged
    opened = ok(gateway, "library.list-open")["items"]
    assert [r["libraryId"] for r in opened] == [repaired["libraryId"]]
    assert ok(gateway, "asset.search", {"libraryId": repaired["libraryId"]})["total"] == 6
    recent = ok(gateway, "library.list-recent")["items"]
    assert recent[0]["path"] == repaired["path"]


def test_repair_takes_a_path_or_an_open_librarys_id_and_needs_manage(
        gateway: Gateway, library: str, tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 2)
    path = ok(gateway, "library.info", {"libraryId": library})["path"]
    assert code(call(gateway, "library.repair", {})) == "INVALID_ARGUMENT"
    assert code(call(gateway, "library.repair", {"path": path, "libraryId": library})) == \
        "INVALID_ARGUMENT"
    assert code(call(gateway, "library.repair", {"libraryId": "lib_nope"})) == \
        "LIBRARY_NOT_OPEN"
    assert code(call(gateway, "library.repair", {"path": path}, READER)) == \
        "PERMISSION_DENIED"
    assert code(call(gateway, "library.repair", {"path": str(tmp_path)})) == "PATH_NOT_FOUND"
    copy = ok(gateway, "library.repair", {"libraryId": library})  # an intact one: all of it
    assert copy["complete"] and copy["assets"] == 2 and copy["filesAdopted"] == 0
    assert copy["summary"] == ("Recovered 2 assets into “Moodboards (recovered)” — everything "
                               "could be read. The damaged library is left as it was.")
    assert {r["libraryId"] for r in ok(gateway, "library.list-open")["items"]} == {
        library, copy["libraryId"]}, "the library it came from stays open"
