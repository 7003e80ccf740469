"""One query builder for smart rules and asset.search, through a real worker: nested any/all
groups, their error paths and depth limit, smart collections stored with groups, and the
same filter through a search and through a rule matching the same assets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from library.client import LibraryHost
from tests.library.factories import TIMEOUT, make_file, make_image
from tests.library.pictures import FINISHED
from tests.waiting import wait_until

pytestmark = pytest.mark.both_kinds  # a local and a studio library


class Shelf:
    def __init__(self, host: LibraryHost, library_id: str) -> None:
        self.host, self.library_id = host, library_id
        self.ids: dict[str, str] = {}
        self.folders: dict[str, str] = {}

    def call(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.host.call(self.library_id, command, args).result(TIMEOUT)

    def error(self, command: str, args: dict[str, Any]) -> Any:
        error = self.host.call(self.library_id, command, args).exception(TIMEOUT)
        assert error is not None, f"{command} {args} did not fail"
        return error

    def names(self, items: list[dict[str, Any]]) -> set[str]:
        by_id = {i: n for n, i in self.ids.items()}
        return {by_id[item["id"]] for item in items}

    def rules(self, tree: dict[str, Any]) -> set[str]:
        out = self.call("collection.run-rules", {"rules": tree, "limit": 500})
        assert out["total"] == len(out["items"])
        return self.names(out["items"])

    def search(self, **args: Any) -> set[str]:
        out = self.call("asset.search", {**args, "limit": 500})
        assert out["total"] == len(out["items"])
        return self.names(out["items"])


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shelf]:
    root = tmp_path_factory.mktemp("tree")
    host = LibraryHost()
    try:
        shelf = Shelf(host, host.create(root, "Tree").result(TIMEOUT)["libraryId"])
        src = root / "src"
        files = {
            "beach": make_image(src / "beach.jpg", (400, 300), seed=1),
            "city": make_image(src / "city.png", (200, 300), seed=2),
            "square": make_image(src / "square.png", (300, 300), seed=3),
            "pano": make_image(src / "pano.jpg", (900, 300), seed=4),
            "brief": make_file(src / "brief.pdf", b"%PDF-1.4 brief"),
            "notes": make_file(src / "notes.txt", b"words"),
        }
        for name, path in files.items():
            [item] = shelf.call("file.import", {"sourcePaths": [str(path)]})["items"]
            shelf.ids[name] = item["assetId"]
        ids = shelf.ids
        trips = shelf.call("folder.create", {"name": "Trips"})["id"]
        alps = shelf.call("folder.create", {"name": "Alps", "parentId": trips})["id"]
        shelf.folders = {"Trips": trips, "Alps": alps}
        shelf.call("asset.move", {"assetIds": [ids["beach"]], "folderId": trips})
        shelf.call("asset.move", {"assetIds": [ids["pano"]], "folderId": alps})
        for name, tags in {"beach": ["sky", "Été"], "city": ["SKY", "night"],
                           "pano": ["été", "mountain"], "brief": ["work"]}.items():
            shelf.call("asset.tag", {"assetIds": [ids[name]], "tags": tags})
        for name, rating in {"beach": 5, "city": 3, "pano": 4, "brief": 1}.items():
            shelf.call("asset.update", {"assetId": ids[name], "rating": rating})
        task = shelf.call("analysis.run", {})["task"]
        wait_until(lambda: shelf.call("task.get", {"taskId": task["id"]})["status"]
                   in FINISHED, "the analysis")
        yield shelf
    finally:
        host.shutdown()


ALL = {"beach", "city", "square", "pano", "brief", "notes"}


def rule(field: str, op: str, value: Any) -> dict[str, Any]:
    return {"field": field, "op": op, "value": value}


def test_nested_groups(shelf: Shelf) -> None:
    sky_and_good_or_doc = {"match": "all", "rules": [
        rule("tag", "is", "sky"),
        {"match": "any", "rules": [rule("rating", "gte", 4), rule("kind", "is", "document")]}]}
    assert shelf.rules(sky_and_good_or_doc) == {"beach"}
    either = {"match": "any", "rules": [
        {"match": "all", "rules": [rule("tag", "is", "ÉTÉ"), rule("rating", "gte", 5)]},
        {"match": "all", "rules": [rule("kind", "is", "document"),
                                   rule("tag", "is-not", "work")]}]}
    assert shelf.rules(either) == {"beach", "notes"}
    deep = {"rules": [{"rules": [{"match": "any", "rules": [
        {"rules": [rule("orientation", "is", "panoramic")]}, rule("ext", "is", "pdf")]}]}]}
    assert shelf.rules(deep) == {"pano", "brief"}
    assert shelf.search(rules=either, kind=["image"]) == {"beach"}  # ANDed with the filters
    smart = shelf.call("collection.create", {"name": "Good skies", "rules":
                                             sky_and_good_or_doc})
    assert smart["assetCount"] == 1 and smart["rules"]["rules"][1]["match"] == "any"
    assert shelf.search(collectionId=smart["id"]) == {"beach"}
    listed = shelf.call("collection.list", {})["items"]
    assert [c["assetCount"] for c in listed if c["id"] == smart["id"]] == [1]


def test_errors_name_the_rule_inside_its_group(shelf: Shelf) -> None:
    bad = {"rules": [rule("tag", "is", "sky"), {"match": "any", "rules": [
        rule("rating", "gte", 4), rule("rating", "gte", 9)]}]}
    error = shelf.error("collection.run-rules", {"rules": bad})
    assert error.code == "INVALID_ARGUMENT"
    assert error.details["field"] == "rules.rules.1.rules.1.value"
    too_deep: dict[str, Any] = {"rules": [rule("tag", "is", "sky")]}
    for _ in range(4):
        too_deep = {"rules": [too_deep]}
    error = shelf.error("collection.run-rules", {"rules": too_deep})  # a fifth level
    assert error.code == "INVALID_ARGUMENT"
    assert error.details["field"].startswith("rules.rules.0.group.rules.0.group.rules.0")
    for empty in ({"rules": [{"match": "any", "rules": []}]}, {"rules": [{"match": "xor",
                                                                           "rules": [rule(
                                                                               "tag", "is",
                                                                               "a")]}]}):
        assert shelf.error("collection.run-rules", {"rules": empty}).code == "INVALID_ARGUMENT"
    error = shelf.error("asset.search", {"rules": bad})
    assert error.details["field"] == "rules.rules.1.rules.1.value"


SAME_FILTER = [  # (search arguments, the rules that mean the same)
    ({"tags": ["Sky"]}, [rule("tag", "is", "sky")]),
    ({"tags": ["ÉTÉ", "mountain"]}, [rule("tag", "is", "été"), rule("tag", "is", "mountain")]),
    ({"ratingMin": 3, "ratingMax": 4}, [rule("rating", "gte", 3), rule("rating", "lte", 4)]),
    ({"kind": ["document"]}, [rule("kind", "is", ["document"])]),
    ({"ext": ["PNG", ".jpg"]}, [rule("ext", "is", ["png", "jpg"])]),
    ({"untagged": True}, [rule("untagged", "is", True)]),
    ({"folderId": "Trips"}, [rule("folder", "is", "Trips")]),
    ({"folderId": "Trips", "includeSubfolders": True}, [rule("folder", "within", "Trips")]),
    ({"orientation": ["portrait", "square"]}, [rule("orientation", "is",
                                                    ["portrait", "square"])]),
    ({"addedAfter": "2000-01-01T00:00:00Z"}, [rule("added-at", "after",
                                                   "2000-01-01T00:00:00Z")]),
    ({"addedBefore": "2000-01-01T00:00:00Z"}, [rule("added-at", "before",
                                                    "2000-01-01T00:00:00Z")]),
    ({"color": "#808080", "colorTolerance": 60, "colorMinRatio": 0.1},
     [rule("color", "is", {"color": "#808080", "tolerance": 60, "minRatio": 0.1})]),
    ({"tags": ["sky"], "ratingMin": 4, "kind": ["image"]},
     [rule("tag", "is", "sky"), rule("rating", "gte", 4), rule("kind", "is", "image")]),
]


@pytest.mark.parametrize(("search", "rules"), SAME_FILTER, ids=lambda x: str(x)[:40])
def test_a_filter_means_the_same_in_a_search_and_in_a_rule(shelf: Shelf, search, rules
                                                           ) -> None:
    folders = shelf.folders
    search = {k: folders.get(v, v) if k == "folderId" else v for k, v in search.items()}
    rules = [{**r, "value": folders.get(r["value"], r["value"])} if r["field"] == "folder"
             else r for r in rules]
    by_search = shelf.search(**search)
    assert by_search == shelf.rules({"match": "all", "rules": rules})
    assert by_search == shelf.search(rules={"rules": rules})
    assert by_search <= ALL
