"""Every command that changes a library, through the real gateway and worker: do it, undo it
and find the library as before (rows and stored files), redo it and find it as after; or,
for a command that cannot be undone, see undo refuse with its stable code instead of taking
back an older change (issue 25).

The list of commands is the catalogue's (every `write` and `task` command): a new command
without a scenario here fails `test_every_write_command_has_a_scenario`. What undo should do
is the command's declared `HistoryRule`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from library.catalogue import CATALOGUE
from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.paths import app_dirs
from serpent_tk.settings import SettingsStore
from tests.automation.conftest import TIMEOUT, UI, call, code, ok
from tests.automation.history.library_state import (
    State,
    difference,
    read_state,
    trashed_extra,
    without_assets,
    without_search_text,
)
from tests.library.pictures import save_pictures
from tests.waiting import wait_until

WRITES = sorted(name for name, entry in CATALOGUE.items() if entry.writes)
PLUGIN = Caller.plugin("ocr-text")
LAST = "library.delete-from-disk"  # the library is gone after it
MOVE = "library.move-to-studio"  # its library is a studio library after it


@dataclass
class World:
    """One library every scenario builds on, each with entities of its own."""

    gateway: Gateway
    library_id: str
    root: Path
    tmp: Path
    seeds: Iterator[int] = field(default_factory=lambda: iter(range(1, 10_000)))

    def ok(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return ok(self.gateway, name, {"libraryId": self.library_id, **(args or {})})

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        spec = self.gateway.registry.get(name)
        caller = PLUGIN if spec is not None and spec.internal else UI  # plugins' own
        return call(self.gateway, name, {"libraryId": self.library_id, **(args or {})}, caller)

    def pictures(self, folder: Path, count: int) -> list[Path]:
        return save_pictures(folder, [next(self.seeds) for _ in range(count)], (48, 36))

    def assets(self, count: int) -> list[str]:
        folder = self.tmp / f"src-{next(self.seeds)}"
        paths = self.pictures(folder, count)
        result = self.ok("file.import", {"sourcePaths": [str(p) for p in paths]})
        return [item["assetId"] for item in result["items"]]

    def folder(self, name: str) -> str:
        folder_id: str = self.ok("folder.create", {"name": f"{name} {next(self.seeds)}"})["id"]
        return folder_id

    def tag(self, assets: list[str], *tags: str) -> None:
        self.ok("asset.tag", {"assetIds": assets, "tags": list(tags)})

    def linked(self, count: int, *, sub: bool = False) -> tuple[dict[str, Any], Path]:
        disk = self.tmp / f"disk-{next(self.seeds)}"
        self.pictures(disk, count)
        if sub:
            self.pictures(disk / "inner", 1)
        made = self.ok("linked-folder.create", {"path": str(disk),
                                                "rules": {"autoImport": False}})
        return made, disk

    def collection(self, name: str, members: list[str] | None = None) -> str:
        made = self.ok("collection.create", {"name": f"{name} {next(self.seeds)}"})
        if members:
            self.ok("collection.members", {"collectionId": made["id"], "add": members})
        collection_id: str = made["id"]
        return collection_id

    def quiet(self) -> None:
        """Wait until no background task (analysis after an import) is queued or running:
        it writes derived facts, and a snapshot must not race it."""
        wait_until(lambda: not any(t["status"] in ("queued", "running")
                                   for t in self.ok("task.list", {"limit": 500})["items"]),
                   "the background tasks to finish", TIMEOUT)

    def state(self) -> State:
        self.quiet()
        return read_state(self.root)

    def top(self) -> dict[str, Any] | None:
        items = self.ok("history.list", {"limit": 1})["items"]
        return items[0] if items else None


Scenario = Callable[[World], dict[str, Any]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str) -> Callable[[Scenario], Scenario]:
    def register(make: Scenario) -> Scenario:
        SCENARIOS[name] = make
        return make
    return register


# -- the arguments of one call of each command, on entities made for it --------------------
@scenario("library.rename")
def _rename_library(w: World) -> dict[str, Any]:
    return {"name": f"Boards {next(w.seeds)}"}


@scenario("library.refresh")
def _refresh_library(w: World) -> dict[str, Any]:
    return {}


@scenario("library.export")
def _export(w: World) -> dict[str, Any]:
    return {"targetPath": str(w.tmp / f"export-{next(w.seeds)}.zip")}


@scenario("library.move-to-studio")
def _move_to_studio(w: World) -> dict[str, Any]:
    return {}  # on a library of its own (`moved_to_studio`): the walk's one stays local


@scenario("library.delete-from-disk")
def _delete_library(w: World) -> dict[str, Any]:
    return {}


@scenario("file.import")
def _import(w: World) -> dict[str, Any]:
    folder = w.tmp / f"tree-{next(w.seeds)}"
    w.pictures(folder, 2)
    [known] = w.pictures(folder / "sub", 1)
    # content the library has already: a duplicate that gains the import's folder and tag
    w.ok("file.import", {"sourcePaths": [str(known)]})
    return {"sourcePaths": [str(folder)], "tags": ["imported"]}


@scenario("asset.update")
def _update(w: World) -> dict[str, Any]:
    return {"assetId": w.assets(1)[0], "rating": 4, "notes": "good", "name": "Renamed"}


@scenario("asset.rename-batch")
def _rename_batch(w: World) -> dict[str, Any]:
    return {"items": [{"assetId": a, "name": f"Series-{n}"}
                      for n, a in enumerate(w.assets(2))]}


@scenario("asset.tag")
def _tag(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.tag(assets[:1], "old")
    return {"assetIds": assets, "tags": ["sky", "Old"]}


@scenario("asset.untag")
def _untag(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.tag(assets, "sea", "keep")
    return {"assetIds": assets, "tags": ["sea"]}


@scenario("asset.move")
def _move(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.ok("asset.move", {"assetIds": assets, "folderId": w.folder("From")})
    return {"assetIds": assets, "folderId": w.folder("To")}


@scenario("asset.copy")
def _copy(w: World) -> dict[str, Any]:
    return {"assetIds": w.assets(2), "folderId": w.folder("Also")}


@scenario("asset.trash")
def _trash(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.tag(assets, "binned")
    return {"assetIds": assets}


@scenario("asset.restore")
def _restore(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.ok("asset.trash", {"assetIds": assets})
    return {"assetIds": assets}


@scenario("asset.delete-permanently")
def _delete_permanently(w: World) -> dict[str, Any]:
    return {"assetIds": w.assets(1)}


@scenario("trash.empty")
def _empty_trash(w: World) -> dict[str, Any]:
    w.ok("asset.trash", {"assetIds": w.assets(1)})
    return {}


@scenario("folder.create")
def _create_folder(w: World) -> dict[str, Any]:
    return {"name": "Inner", "parentId": w.folder("Outer")}


@scenario("folder.rename")
def _rename_folder(w: World) -> dict[str, Any]:
    return {"folderId": w.folder("Before"), "name": f"After {next(w.seeds)}"}


@scenario("folder.move")
def _move_folder(w: World) -> dict[str, Any]:
    folder = w.folder("Moving")
    w.ok("asset.move", {"assetIds": w.assets(1), "folderId": folder})
    return {"folderId": folder, "parentId": w.folder("Parent")}


@scenario("folder.delete-empty")
def _delete_folders(w: World) -> dict[str, Any]:
    outer = w.folder("Empty")
    inner = w.ok("folder.create", {"name": "Child", "parentId": outer})["id"]
    return {"folderIds": [inner, w.folder("Empty too")]}


@scenario("linked-folder.create")
def _link(w: World) -> dict[str, Any]:
    disk = w.tmp / f"link-{next(w.seeds)}"
    w.pictures(disk, 2)
    w.pictures(disk / "inner" / "deeper", 1)
    return {"path": str(disk), "rules": {"autoImport": False}}


@scenario("linked-folder.reconnect")
def _reconnect(w: World) -> dict[str, Any]:
    made, disk = w.linked(2, sub=True)
    moved = disk.rename(disk.with_name(disk.name + " moved"))
    gone = w.call("linked-folder.refresh", {"linkedFolderId": made["id"]})
    assert code(gone) == "PATH_NOT_FOUND"  # and it shows as missing, as a person sees it
    return {"linkedFolderId": made["id"], "path": str(moved)}


@scenario("linked-folder.unlink")
def _unlink(w: World) -> dict[str, Any]:
    made, _disk = w.linked(2, sub=True)
    return {"linkedFolderId": made["id"], "keepAssets": False}


@scenario("linked-folder.update-rules")
def _update_rules(w: World) -> dict[str, Any]:
    made, disk = w.linked(2, sub=True)
    first = sorted(p.name for p in disk.glob("*.png"))[0]
    w.pictures(disk, 1)
    return {"linkedFolderId": made["id"], "rules": {"exclude": [first], "autoImport": False}}


@scenario("linked-folder.refresh")
def _refresh_linked(w: World) -> dict[str, Any]:
    made, disk = w.linked(1)
    w.pictures(disk, 2)
    w.pictures(disk / "later", 1)
    return {"linkedFolderId": made["id"]}


@scenario("tag.rename")
def _rename_tag(w: World) -> dict[str, Any]:
    w.tag(w.assets(2), "sunsett")
    return {"tag": "sunsett", "newName": "sunset"}


@scenario("tag.delete")
def _delete_tag(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.tag(assets, "temp")
    w.tag(assets[:1], "stays")
    return {"tag": "temp"}


@scenario("tag.delete-batch")
def _delete_tags(w: World) -> dict[str, Any]:
    assets = w.assets(2)
    w.tag(assets, "todo", "wip")
    return {"tags": ["todo", "wip", "unknown"]}


@scenario("tag.merge")
def _merge_tags(w: World) -> dict[str, Any]:
    assets = w.assets(3)
    w.tag(assets[:1], "skies")
    w.tag(assets[1:2], "skyy", "cloud")
    w.tag(assets[2:], "blue")
    return {"sources": ["skies", "skyy"], "target": "blue"}


@scenario("collection.create")
def _create_collection(w: World) -> dict[str, Any]:
    return {"name": f"Skies {next(w.seeds)}",
            "rules": {"match": "all", "rules": [{"field": "tag", "op": "is", "value": "sky"}]}}


@scenario("collection.update")
def _update_collection(w: World) -> dict[str, Any]:
    return {"collectionId": w.collection("Picks", w.assets(1)),
            "name": f"Best picks {next(w.seeds)}"}


@scenario("collection.reorder")
def _reorder(w: World) -> dict[str, Any]:
    ids = [w.collection("First"), w.collection("Second"), w.collection("Third")]
    everything = [c["id"] for c in w.ok("collection.list")["items"]]
    return {"collectionIds": [*reversed(ids), *(c for c in everything if c not in ids)]}


@scenario("collection.delete")
def _delete_collection(w: World) -> dict[str, Any]:
    return {"collectionId": w.collection("Doomed", w.assets(2))}


@scenario("collection.members")
def _members(w: World) -> dict[str, Any]:
    assets = w.assets(3)
    collection = w.collection("Members", assets[:2])
    return {"collectionId": collection, "add": assets[2:], "remove": assets[:1]}


@scenario("history.undo")
def _undo(w: World) -> dict[str, Any]:
    w.tag(w.assets(1), "undo me")
    return {}


@scenario("history.redo")
def _redo(w: World) -> dict[str, Any]:
    w.tag(w.assets(1), "redo me")
    w.ok("history.undo")
    return {}


@scenario("analyser.record")
def _record_found_text(w: World) -> dict[str, Any]:
    return {"analyser": "walk/reader", "version": 1, "found": {w.assets(1)[0]: "Summer 2026"}}


@scenario("analysis.run")
def _analyse(w: World) -> dict[str, Any]:
    return {"assetIds": w.assets(1), "force": True}


# -- the walk -------------------------------------------------------------------------------
def test_every_write_command_has_a_scenario() -> None:
    assert sorted(SCENARIOS) == WRITES, "each write command needs a scenario here"


def test_the_docs_name_every_command_undo_does_not_take_back() -> None:
    page = Path(__file__).resolve().parents[3] / "docs" / "mcp.md"
    kinds = page.read_text(encoding="utf-8").split("<!-- history-kinds:start -->")[1]
    irreversible, untouched = kinds.split("<!-- history-kinds:end -->")[0].split(
        "**Not a change to undo**")
    for name in WRITES:
        rule = CATALOGUE[name].history
        if rule in ("irreversible", "none"):
            assert f"`{name}`" in (irreversible if rule == "irreversible" else untouched), name


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("every-command")
    gateway = Gateway(SettingsStore(app_dirs().settings_file), strict_outputs=True)
    try:
        made = ok(gateway, "library.create", {"selectedParentPath": str(tmp), "name": "Walk"})
        yield World(gateway, made["libraryId"], Path(made["path"]), tmp)
    finally:
        gateway.shutdown()


def run(w: World, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The command as a person runs it (a dangerous one confirmed with its challenge; an
    internal one as a plugin does)."""
    answer = w.call(name, args)
    if answer["status"] == "confirmation_required":
        answer = w.call(name, {**args, "confirmChallenge": answer["challenge"]["id"]})
    assert answer["status"] == "ok", answer
    result: dict[str, Any] = answer["result"]
    return result


def same(expected: State, actual: State, what: str) -> None:
    assert expected == actual, f"{what}:\n{difference(expected, actual)}"


@pytest.mark.parametrize("name", sorted(WRITES, key=lambda n: n == LAST))  # delete: last
def test_undo_then_redo_puts_the_library_back(world: World, name: str,
                                              request: pytest.FixtureRequest) -> None:
    if name == MOVE:
        moved_to_studio(world, request.getfixturevalue("postgres_database"))
        return
    w, rule = world, CATALOGUE[name].history
    args = SCENARIOS[name](w)
    before, top_before = w.state(), w.top()
    run(w, name, args)
    if name == LAST:  # the library is closed and its folder goes
        assert code(w.call("history.undo")) in ("LIBRARY_NOT_OPEN", "LIBRARY_NOT_FOUND")
        assert not w.root.exists()
        return
    after, top = w.state(), w.top()
    assert top is not None
    if rule == "step":
        assert top != top_before and top["command"] == name, top
        assert top["undoable"] and not top["undone"], top
        undone = w.ok("history.undo", {"historyId": top["id"]})
        assert undone["entry"]["id"] == top["id"] and undone["entry"]["summary"]
        now = w.state()
        same(before, without_assets(now, trashed_extra(now, before)), f"{name} undone")
        w.ok("history.redo", {"historyId": top["id"]})
        same(after, w.state(), f"{name} redone")
    elif rule == "irreversible":
        assert top["command"] == name and not top["undoable"], top
        refused = w.call("history.undo")
        assert code(refused) == "HISTORY_IRREVERSIBLE" and \
            refused["error"]["historyId"] == top["id"]
        same(after, w.state(), f"undo after {name}")
    elif rule == "none":  # changes nothing undo could take back, and records no step
        assert top == top_before
        same(without_search_text(before), without_search_text(after),
             f"{name} (changes nothing a person made)")
    else:  # history.undo / history.redo move along the history: the other one reverses it
        assert rule == "history"
        other = "history.redo" if name == "history.undo" else "history.undo"
        w.ok(other, {"historyId": top["id"]})
        same(before, w.state(), f"{other} after {name}")
        w.ok(name, {"historyId": top["id"]})
        same(after, w.state(), f"{name} again")


def moved_to_studio(walk: World, database: str) -> None:
    """`library.move-to-studio`, confirmed, on a library of its own: the same library (id,
    rows), its history untouched, and undo after it takes back the change made before it."""
    made = ok(walk.gateway, "library.create", {"selectedParentPath": str(walk.tmp),
                                                "name": "Moving"})
    w = World(walk.gateway, made["libraryId"], Path(made["path"]), walk.tmp)
    w.ok("file.import", {"sourcePaths": [str(p) for p in w.pictures(w.tmp / "moving", 2)]})
    before, top_before = w.state(), w.top()
    moved = run(w, MOVE, {"database": database})
    assert moved["libraryId"] == w.library_id and moved["assetCount"] == 2
    assert (w.root / "studio.json").is_file() and not (w.root / "library.sqlite").exists()
    top = w.top()  # not a step: the history came along, marked as made on this machine
    assert top is not None and top_before is not None and top["actor"].pop("machine")
    assert top == top_before
    same(before, read_state(w.root, w.root / ".before-studio" / "library.sqlite"),
         "the database kept aside")
    assert w.ok("asset.search", {})["total"] == 2
    w.ok("history.undo", {"historyId": top_before["id"]})  # the import, made before the move
    assert w.ok("asset.search", {})["total"] == 0
    w.ok("library.close")
