"""Smart rules through a real worker (`collection.run-rules` with ad-hoc rules): every field
and operator, AND / ANY, values that look like SQL or LIKE patterns, and every way a rule
can be wrong. One library, read-only here, shared by the module's tests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from library.client import LibraryHost
from tests.library.factories import TIMEOUT, make_file, make_image

pytestmark = pytest.mark.both_kinds  # a local and a studio library

TODAY = datetime.now(UTC).date()


class Shelf:
    """The shared library: assets by name, and how to ask it."""

    def __init__(self, host: LibraryHost, library_id: str) -> None:
        self.host = host
        self.library_id = library_id
        self.ids: dict[str, str] = {}
        self.sizes: dict[str, int] = {}
        self.folders: dict[str, str] = {}

    def call(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.host.call(self.library_id, command, args).result(TIMEOUT)

    def error(self, command: str, args: dict[str, Any]) -> Any:
        error = self.host.call(self.library_id, command, args).exception(TIMEOUT)
        assert error is not None, f"{command} {args} did not fail"
        return error

    def match(self, *rules: tuple[str, str, Any], mode: str = "all") -> set[str]:
        ruleset = {"match": mode, "rules": [{"field": f, "op": o, "value": v}
                                            for f, o, v in rules]}
        out = self.call("collection.run-rules", {"rules": ruleset, "limit": 500})
        names = {self.name_of(item["id"]) for item in out["items"]}
        assert out["total"] == len(names)
        return names

    def name_of(self, asset_id: str) -> str:
        return next(n for n, i in self.ids.items() if i == asset_id)


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shelf]:
    root = tmp_path_factory.mktemp("rules")
    host = LibraryHost()
    try:
        ref = host.create(root, "Rules").result(TIMEOUT)
        shelf = Shelf(host, ref["libraryId"])
        src = root / "src"
        files: dict[str, Path] = {
            "sunset_beach": make_image(src / "sunset_beach.jpg", (400, 300), seed=1),
            "Night City": make_image(src / "Night City.png", (100, 200), seed=2),
            "portrait": make_image(src / "portrait.png", (300, 300), seed=3),
            "notes": make_file(src / "notes.txt", b"some words"),
            "font": make_file(src / "font.ttf", b"\x00\x01\x00\x00 not really a font"),
            "under_score": make_image(src / "under_score.gif", (50, 50), seed=4),
        }
        for name, path in files.items():
            [item] = shelf.call("file.import", {"sourcePaths": [str(path)]})["items"]
            shelf.ids[name] = item["assetId"]
        for item in shelf.call("asset.get", {"assetIds": list(shelf.ids.values())})["items"]:
            shelf.sizes[shelf.name_of(item["id"])] = item["size"]
        for folder in ("Beach", "City"):
            shelf.folders[folder] = shelf.call("folder.create", {"name": folder})["id"]
        ids = shelf.ids
        shelf.call("asset.move", {"assetIds": [ids["sunset_beach"]],
                                  "folderId": shelf.folders["Beach"]})
        shelf.call("asset.move", {"assetIds": [ids["Night City"]],
                                  "folderId": shelf.folders["City"]})
        for name, tags in {"sunset_beach": ["sky", "warm"], "Night City": ["Sky", "night"],
                           "portrait": ["face"], "under_score": ["50%_off"]}.items():
            shelf.call("asset.tag", {"assetIds": [ids[name]], "tags": tags})
        for name, changes in {
                "sunset_beach": {"rating": 5, "notes": "Warm 100% orange",
                                 "sourceUrl": "https://example.com/sunset"},
                "Night City": {"rating": 3}, "notes": {"rating": 1, "notes":
                                                       "O'Brien; DROP TABLE assets; --"},
                "font": {"rating": 2}, "under_score": {"rating": 4}}.items():
            shelf.call("asset.update", {"assetId": ids[name], **changes})
        yield shelf
    finally:
        host.shutdown()


ALL = {"sunset_beach", "Night City", "portrait", "notes", "font", "under_score"}


def test_tag_rules(shelf: Shelf) -> None:
    assert shelf.match(("tag", "is", "SKY")) == {"sunset_beach", "Night City"}
    assert shelf.match(("tag", "is-not", "sky")) == ALL - {"sunset_beach", "Night City"}
    assert shelf.match(("tag", "contains", "IGH")) == {"Night City"}
    assert shelf.match(("tag", "not-contains", "a")) == ALL - {"sunset_beach", "portrait"}
    assert shelf.match(("tag", "contains", "%_")) == {"under_score"}  # literal, not a pattern
    assert shelf.match(("tag", "is", "nobody uses this")) == set()


def test_text_rules(shelf: Shelf) -> None:
    assert shelf.match(("name", "is", "night city")) == {"Night City"}
    assert shelf.match(("name", "is-not", "NOTES")) == ALL - {"notes"}
    assert shelf.match(("name", "contains", "_")) == {"sunset_beach", "under_score"}
    assert shelf.match(("name", "not-contains", "T")) == {"under_score"}
    assert shelf.match(("notes", "contains", "100%")) == {"sunset_beach"}
    assert shelf.match(("notes", "contains", "o'brien; drop")) == {"notes"}
    assert shelf.match(("notes", "is", "")) == ALL - {"sunset_beach", "notes"}
    assert shelf.match(("source-url", "contains", "example.com")) == {"sunset_beach"}
    assert shelf.match(("source-url", "is", "")) == ALL - {"sunset_beach"}
    assert shelf.match(("source-url", "not-contains", "example")) == ALL - {"sunset_beach"}


def test_values_that_look_like_sql_are_just_text(shelf: Shelf) -> None:
    for value in ("'; DROP TABLE assets; --", "\" OR 1=1 --", "') OR ('1'='1", "%", "\\",
                  "x' UNION SELECT id FROM assets --"):
        assert shelf.match(("name", "contains", value)) == set(), value
        assert shelf.match(("tag", "is", value)) == set(), value
    assert shelf.match(("name", "is-not", "' OR 1=1 --")) == ALL
    assert len(shelf.call("asset.search", {"limit": 500})["items"]) == len(ALL)


def test_choice_and_number_rules(shelf: Shelf) -> None:
    assert shelf.match(("ext", "is", ".PNG")) == {"Night City", "portrait"}
    assert shelf.match(("ext", "is", ["png", "gif"])) == {"Night City", "portrait",
                                                          "under_score"}
    assert shelf.match(("ext", "is-not", ["png", "gif", "jpg"])) == {"notes", "font"}
    assert shelf.match(("kind", "is", "image")) == {"sunset_beach", "Night City", "portrait",
                                                    "under_score"}
    assert shelf.match(("kind", "is-not", ["image", "font"])) == {"notes"}
    assert shelf.match(("rating", "is", 3)) == {"Night City"}
    assert shelf.match(("rating", "is-not", 3)) == ALL - {"Night City"}
    assert shelf.match(("rating", "gte", 4)) == {"sunset_beach", "under_score"}
    assert shelf.match(("rating", "lte", 1.0)) == {"portrait", "notes"}
    assert shelf.match(("width", "gte", 300)) == {"sunset_beach", "portrait"}
    assert shelf.match(("width", "is-not", 300)) == ALL - {"portrait"}  # no width counts
    assert shelf.match(("height", "lte", 200)) == {"Night City", "under_score"}
    assert shelf.match(("height", "is", 300)) == {"sunset_beach", "portrait"}
    size = shelf.sizes["portrait"]
    assert shelf.match(("size", "is", size)) == {"portrait"}
    assert shelf.match(("size", "gte", size)) == {n for n, s in shelf.sizes.items()
                                                  if s >= size}
    assert shelf.match(("size", "lte", 100)) == {n for n, s in shelf.sizes.items() if s <= 100}


def test_date_folder_and_untagged_rules(shelf: Shelf) -> None:
    assert shelf.match(("added-at", "before", "2000-01-01")) == set()
    assert shelf.match(("added-at", "after", "2000-01-01")) == ALL
    assert shelf.match(("added-at", "before", (TODAY + timedelta(days=1)).isoformat())) == ALL
    assert shelf.match(("added-at", "after", TODAY.isoformat())) == set()  # after today ends
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    assert shelf.match(("added-at", "after", hour_ago)) == ALL
    assert shelf.match(("added-at", "before", "2999-01-01T10:00:00+02:00")) == ALL
    assert shelf.match(("added-at", "in-last-days", 1)) == ALL
    assert shelf.match(("folder", "is", shelf.folders["Beach"])) == {"sunset_beach"}
    assert shelf.match(("folder", "is-not", shelf.folders["Beach"])) == ALL - {"sunset_beach"}
    assert shelf.match(("untagged", "is", True)) == {"notes", "font"}
    assert shelf.match(("untagged", "is", False)) == ALL - {"notes", "font"}
    assert shelf.match(("untagged", "is-not", True)) == ALL - {"notes", "font"}


def test_all_and_any(shelf: Shelf) -> None:
    rules = (("tag", "is", "sky"), ("rating", "gte", 4), ("kind", "is", "document"))
    assert shelf.match(*rules) == set()
    assert shelf.match(*rules[:2]) == {"sunset_beach"}
    assert shelf.match(*rules, mode="any") == {"sunset_beach", "Night City", "under_score",
                                               "notes"}


@pytest.mark.parametrize(("rule", "part"), [
    ({"field": "rating", "op": "contains", "value": 3}, "op"),
    ({"field": "untagged", "op": "contains", "value": True}, "op"),
    ({"field": "added-at", "op": "is", "value": "2020-01-01"}, "op"),
    ({"field": "rating", "op": "is", "value": "3"}, "value"),
    ({"field": "rating", "op": "is", "value": 6}, "value"),
    ({"field": "rating", "op": "gte", "value": True}, "value"),
    ({"field": "width", "op": "gte", "value": 1.5}, "value"),
    ({"field": "size", "op": "lte", "value": -1}, "value"),
    ({"field": "ext", "op": "is", "value": "p ng"}, "value"),
    ({"field": "ext", "op": "is", "value": []}, "value"),
    ({"field": "ext", "op": "is", "value": ["png", 3]}, "value"),
    ({"field": "kind", "op": "is", "value": "picture"}, "value"),
    ({"field": "added-at", "op": "before", "value": "yesterday"}, "value"),
    ({"field": "added-at", "op": "after", "value": 20200101}, "value"),
    ({"field": "added-at", "op": "in-last-days", "value": 0}, "value"),
    ({"field": "added-at", "op": "in-last-days", "value": "7"}, "value"),
    ({"field": "folder", "op": "is", "value": "Beach"}, "value"),
    ({"field": "untagged", "op": "is", "value": "yes"}, "value"),
    ({"field": "name", "op": "is", "value": 5}, "value"),
    ({"field": "name", "op": "contains", "value": ""}, "value"),
    ({"field": "notes", "op": "contains", "value": "x" * 501}, "value"),
    ({"field": "tag", "op": "is", "value": "  "}, "value"),
    ({"field": "tag", "op": "is", "value": "a\x00b"}, "value"),
])
def test_bad_rules_name_the_rule(shelf: Shelf, rule: dict[str, Any], part: str) -> None:
    ruleset = {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}, rule]}
    error = shelf.error("collection.run-rules", {"rules": ruleset})
    assert error.code == "INVALID_ARGUMENT"
    assert error.details["field"] == f"rules.rules.1.{part}", error.message


WIRE_ONLY = re.compile(r"\b(gte|lte|is-not|not-contains|in-last-days|added-at|source-url)\b")


def test_rule_errors_read_as_words_for_people(shelf: Shelf) -> None:
    """The window shows these on the rule's own row: words, not the wire's operator names."""
    from library.worker.rows.rulefields import OPS, field_words, op_words

    every_op = sorted({op for ops in OPS.values() for op in ops})
    for field, allowed in OPS.items():
        for op in (o for o in every_op if o not in allowed):
            error = shelf.error("collection.run-rules", {"rules": {"rules": [
                {"field": field, "op": op, "value": 1}]}})
            text = error.message.removeprefix("rules.rules.0.op: ")
            assert text == (f"{field_words(field)} takes: "
                            f"{', '.join(op_words(o) for o in allowed)} (not “{op_words(op)}”)")
            assert not WIRE_ONLY.search(text), text
    error = shelf.error("collection.run-rules", {"rules": {"rules": [
        {"field": "rating", "op": "contains", "value": 3}]}})
    assert error.message == ("rules.rules.0.op: rating takes: is, is not, at least, at most "
                             "(not “contains”)")
    for rule, words in (({"field": "added-at", "op": "before", "value": "soon"}, "ISO date"),
                        ({"field": "rating", "op": "is", "value": 9}, "between 0 and 5"),
                        ({"field": "untagged", "op": "is", "value": "yes"}, "true or false")):
        error = shelf.error("collection.run-rules", {"rules": {"rules": [rule]}})
        assert words in error.message and not WIRE_ONLY.search(
            error.message.split(": ", 1)[1]), error.message


def test_malformed_rule_sets(shelf: Shelf) -> None:
    for ruleset in ({"match": "all", "rules": []},
                    {"match": "xor", "rules": [{"field": "tag", "op": "is", "value": "a"}]},
                    {"rules": [{"field": "colour", "op": "is", "value": "red"}]},
                    {"rules": [{"field": "tag", "op": "like", "value": "a"}]},
                    {"rules": [{"field": "tag", "op": "is", "value": "a", "sql": "1=1"}]}):
        error = shelf.error("collection.run-rules", {"rules": ruleset})
        assert error.code == "INVALID_ARGUMENT", ruleset
    error = shelf.error("collection.run-rules", {"rules": {"rules": [
        {"field": "folder", "op": "is", "value": "fld_0000000000"}]}})
    assert error.code == "NOT_FOUND" and error.details["field"] == "rules.rules.0.value"


def test_pages_follow_cursors(shelf: Shelf) -> None:
    ruleset = {"rules": [{"field": "rating", "op": "gte", "value": 0}]}
    seen: list[str] = []
    cursor = None
    while True:
        args: dict[str, Any] = {"rules": ruleset, "limit": 4}
        if cursor:
            args["cursor"] = cursor
        page = shelf.call("collection.run-rules", args)
        assert page["total"] == len(ALL)
        seen += [item["id"] for item in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(shelf.ids.values())
    other = {"rules": [{"field": "rating", "op": "gte", "value": 1}]}
    first = shelf.call("collection.run-rules", {"rules": ruleset, "limit": 2})
    error = shelf.error("collection.run-rules", {"rules": other, "cursor": first["nextCursor"]})
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "cursor"
