"""Library commands through the gateway, from an agent's point of view: folders, tags,
moves, trash and restore. Results are checked against the registry's output models
(`strict_outputs`) and list results share one page shape. And the internal commands behind
plugin analysers: `analyser.pending` lists what an analyser has not read (of its kinds, in
its version), `analyser.record` keeps the text it found — searched by words and the
`found-text` rule, shown by `asset.get`, no undo step — and neither is offered to anyone but
plugins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, READER, call, code, import_images, ok


def test_folders_and_moves(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 2)
    refs = ok(gateway, "folder.create", {"libraryId": library, "name": "Skies"}, CLAUDE)
    child = ok(gateway, "folder.create", {"libraryId": library, "name": "Night",
                                          "parentId": refs["id"]}, CLAUDE)
    assert child["parentId"] == refs["id"]
    moved = ok(gateway, "asset.move", {"libraryId": library, "assetIds": assets,
                                       "folderId": child["id"]}, CLAUDE)
    assert moved["changed"] == 2
    assert {i["status"] for i in moved["items"]} == {"changed"}
    folders = ok(gateway, "folder.list", {"libraryId": library}, READER)
    assert folders["nextCursor"] is None and folders["truncated"] is False
    counts = {f["name"]: f["assetCount"] for f in folders["items"]}
    assert counts == {"Skies": 0, "Night": 2}
    found = ok(gateway, "asset.search", {"libraryId": library, "folderId": child["id"]},
               READER)
    assert found["total"] == 2
    answer = call(gateway, "asset.move", {"libraryId": library, "assetIds": assets,
                                          "folderId": "fld_0000000000"}, CLAUDE)
    assert code(answer) == "NOT_FOUND"


def test_tags_and_untags(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets, "tags": ["sky"]},
       CLAUDE)
    ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[:1],
                              "tags": ["night"]}, CLAUDE)
    untagged = ok(gateway, "asset.untag", {"libraryId": library, "assetIds": assets[1:],
                                           "tags": ["sky"]}, CLAUDE)
    assert untagged["changed"] == 2
    tags = ok(gateway, "tag.list", {"libraryId": library, "sort": "count"}, READER)
    assert {(t["name"], t["count"]) for t in tags["items"]} == {("night", 1), ("sky", 1)}
    assert tags["total"] == 2 and tags["truncated"] is False


def test_trash_and_restore(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 2)
    ok(gateway, "asset.trash", {"libraryId": library, "assetIds": assets}, CLAUDE)
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 0
    trash = ok(gateway, "trash.list", {"libraryId": library}, READER)
    assert trash["total"] == 2 and all(a["trashed"] for a in trash["items"])
    restored = ok(gateway, "asset.restore", {"libraryId": library, "assetIds": assets[:1]},
                  CLAUDE)
    assert restored["changed"] == 1
    assert ok(gateway, "asset.search", {"libraryId": library})["total"] == 1
    again = ok(gateway, "asset.restore", {"libraryId": library, "assetIds": assets[:1]},
               CLAUDE)
    assert again["changed"] == 0 and again["items"][0]["status"] == "unchanged"


def test_pages_follow_the_cursor(gateway: Gateway, library: str, tmp_path: Path) -> None:
    import_images(gateway, library, tmp_path / "src", 5)
    seen: list[str] = []
    cursor = None
    while True:
        args = {"libraryId": library, "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = ok(gateway, "asset.search", args, READER)
        seen += [a["id"] for a in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 5


# -- plugin analysers' internal commands ------------------------------------------------
PLUGIN = Caller.plugin("ocr-text")
NAME = "ocr-text/read-text"


def pending(gateway: Gateway, library: str, version: int = 1, **more: Any) -> list[str]:
    return list(ok(gateway, "analyser.pending", {
        "libraryId": library, "analyser": NAME, "version": version, "kinds": ["image"],
        **more}, PLUGIN)["assetIds"])


def test_recorded_text_is_found_shown_and_not_read_again(gateway: Gateway, library: str,
                                                         tmp_path: Path) -> None:
    ids = sorted(import_images(gateway, library, tmp_path / "src", 3))
    assert pending(gateway, library) == ids
    assert pending(gateway, library, assetIds=ids[:1]) == ids[:1]
    out = ok(gateway, "analyser.record", {
        "libraryId": library, "analyser": NAME, "version": 1,
        "found": {ids[0]: "夏日音乐节\nSummer Music Festival", ids[1]: ""},
        "failed": [ids[2]]}, PLUGIN)
    assert out == {"recorded": 3, "changed": [ids[0]]}
    assert pending(gateway, library) == []  # looked at, found something or not, or failed
    assert pending(gateway, library, version=2) == ids  # a newer reader reads them again

    item = ok(gateway, "asset.get", {"libraryId": library, "assetIds": [ids[0]]})["items"][0]
    assert item["foundText"] == [{"source": "ocr-text",
                                  "text": "夏日音乐节\nSummer Music Festival"}]
    found = ok(gateway, "asset.search", {"libraryId": library, "text": "音乐节"})["items"]
    assert [i["id"] for i in found] == [ids[0]]
    rule = {"rules": [{"field": "found-text", "op": "contains", "value": "MUSIC"}]}
    assert ok(gateway, "collection.run-rules", {"libraryId": library, "rules": rule})[
        "total"] == 1
    history = ok(gateway, "history.list", {"libraryId": library})["items"]
    assert history[0]["command"] == "file.import"  # found text is no undo step

    ok(gateway, "analyser.record", {"libraryId": library, "analyser": NAME, "version": 1,
                                    "found": {ids[0]: ""}}, PLUGIN)  # the text went away
    assert ok(gateway, "asset.search", {"libraryId": library, "text": "音乐节"})["total"] == 0


def test_only_plugins_reach_them(gateway: Gateway, library: str) -> None:
    for caller in (Caller.ui(), Caller.mcp("claude", "full-access", "Claude"), Caller.cli()):
        answer = call(gateway, "analyser.pending", {
            "libraryId": library, "analyser": NAME, "version": 1, "kinds": ["image"]}, caller)
        assert answer["error"]["code"] == "NOT_FOUND", answer
        assert answer["error"]["message"] == "Unknown tool: analyser.pending"


def test_a_bad_analyser_name_is_refused(gateway: Gateway, library: str) -> None:
    answer = call(gateway, "analyser.record", {"libraryId": library, "analyser": "no slash",
                                               "version": 1, "found": {}}, PLUGIN)
    assert answer["error"]["code"] == "INVALID_ARGUMENT"
    assert answer["error"]["field"] == "analyser"
