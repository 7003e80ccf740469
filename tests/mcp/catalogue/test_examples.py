"""Every tool description's example is a call that works: each one runs, over real MCP, against
a fixture library whose ids and folders stand in for the examples' placeholders
(`serpent_tk/automation/commands/examples.py`). A change an example makes is undone before the
next one runs, so each finds the fixture as described; a dangerous tool's first answer
(confirmation_required) is its success."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.commands import examples
from serpent_tk.automation.registry import CommandSpec
from tests.mcp.conftest import Server, call, connect, ok, run

# Commands whose example must run after others': the one that ends what the rest use
LAST = ("linked-folder.unlink", "library.close")
TIMEOUT_S = 60


def pictures(folder: Path, count: int, shade: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for index in range(count):
        path = folder / f"{folder.name}-{index}.png"
        Image.new("RGB", (96, 64), (shade, 40 * index % 256, 120)).save(path)
        made.append(path)
    return made


class Fixture:
    """The library the examples talk about, made at the window (another source than MCP)."""

    def __init__(self, server: Server, home: Path) -> None:
        self.server = server
        self.home = home
        self.ids: dict[str, str] = {}

    def submit(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = self.server.gateway.submit(command, args, Caller.ui()).result(TIMEOUT_S)
        assert answer["status"] == "ok", (command, answer)
        result: dict[str, Any] = answer["result"]
        return result

    def build(self) -> None:
        home = self.home
        pictures(home / "Downloads" / "refs", 2, 10)
        pictures(home / "Projects" / "game" / "art", 2, 60)
        pictures(home / "Art" / "game", 1, 110)
        pictures(home / "Old" / "art", 1, 160)
        seed = pictures(home / "seed", 2, 210)
        (home / "Pictures").mkdir(parents=True)
        library = self.submit("library.create", {"selectedParentPath": str(home / "Pictures"),
                                                 "name": "Moodboards"})["libraryId"]
        lib = {"libraryId": library}
        imported = self.submit("file.import", {**lib, "sourcePaths": [str(p) for p in seed]})
        a1, a2 = (item["assetId"] for item in imported["items"])
        self.submit("asset.tag", {**lib, "tagsByAsset": {a1: ["sky", "skies", "temp"],
                                                          a2: ["skyy", "sunsett", "todo"]}})
        f1 = self.submit("folder.create", {**lib, "name": "Trips"})["id"]
        f2 = self.submit("folder.create", {**lib, "name": "Studies"})["id"]
        c1 = self.submit("collection.create", {**lib, "name": "Favourites"})["id"]
        c2 = self.submit("collection.create", {**lib, "name": "Blues"})["id"]
        l1 = self.submit("linked-folder.create", {**lib, "path": str(home / "Old" / "art")})[
            "id"]
        t1 = self.submit("analysis.run", {**lib, "assetIds": [a1]})["task"]["id"]
        self.ids = {examples.LIB: library, examples.A1: a1, examples.A2: a2,
                    examples.F1: f1, examples.F2: f2, examples.C1: c1, examples.C2: c2,
                    examples.L1: l1, examples.T1: t1}

    def real(self, value: Any) -> Any:
        """`value` with every placeholder id and the example home folder made real."""
        if isinstance(value, dict):
            return {self.real(k): self.real(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.real(item) for item in value]
        if isinstance(value, str):
            if value in self.ids:
                return self.ids[value]
            if value.startswith(examples.HOME):
                return str(self.home) + value[len(examples.HOME):]
        return value


def in_order(specs: list[CommandSpec]) -> list[CommandSpec]:
    """By name, history.undo right before history.redo (which redoes it), and last what
    ends what the others use."""
    def key(spec: CommandSpec) -> tuple[int, str]:
        name = spec.name
        if name in LAST:
            return (1 + LAST.index(name), name)
        return (0, "history.r~" if name == "history.undo" else name)
    return sorted(specs, key=key)


def test_every_description_example_works(server: Server, tmp_path: Path) -> None:
    fixture = Fixture(server, tmp_path / "ana")
    fixture.build()
    library = fixture.ids[examples.LIB]
    specs = in_order([s for s in server.gateway.registry.commands.values()  # internal ones:
                      if not s.name.startswith("plugin.") and not s.internal])  # no tools
    outcomes: dict[str, str] = {}

    async def newest_step(client: Any) -> tuple[int, bool] | None:
        entries = (await ok(client, "serpent_history_list", {"libraryId": library,
                                                             "limit": 1}))["items"]
        return (entries[0]["id"], entries[0]["undone"]) if entries else None

    async def scenario() -> None:
        async with connect(server.url, server.token("Examples", "full-access"),
                           "legacy") as client:
            for spec in specs:
                before = await newest_step(client) if spec.journaled else None
                arguments = fixture.real(spec.example)
                envelope = await call(client, spec.tool_name, arguments)
                status = envelope["status"]
                outcomes[spec.name] = status
                assert status in ("ok", "confirmation_required"), (spec.name, arguments,
                                                                   envelope)
                if spec.dangerous:
                    assert status == "confirmation_required" or spec.name == "trash.empty", \
                        envelope
                if status != "ok" or not spec.journaled or spec.name.startswith("history."):
                    continue
                step = await newest_step(client)
                if step is not None and step != before and not step[1]:  # it made a step
                    await ok(client, "serpent_history_undo", {"libraryId": library})

    run(scenario(), timeout=600)
    assert set(outcomes) == {s.name for s in specs}, "every example ran"
