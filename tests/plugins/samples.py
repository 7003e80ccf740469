"""Plugins written for the tests into the user data dir's plugins folder: real folders, real
manifests, real modules, loaded by real host processes."""

from __future__ import annotations

import textwrap
from pathlib import Path

LIBRARY = "lib_01j9z3k4m5n6p7q8"
ASSET = "ast_01j9z3k4m5n6p7q8"


def write_plugin(plugins: Path, plugin_id: str, source: str, *, commands: tuple[str, ...] = (),
                 will_hooks: bool = False, did_hooks: bool = False,
                 analysers: tuple[str, ...] = (), serpent: str = ">=0.1",
                 name: str | None = None, module: str | None = None) -> Path:
    """A plugin folder `<plugins>/<id>/` with its plugin.toml and module."""
    module = module or plugin_id.replace("-", "_")
    folder = plugins / plugin_id
    folder.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f'"{c}"' for c in commands)
    found = ", ".join(f'"{a}"' for a in analysers)
    (folder / "plugin.toml").write_text(textwrap.dedent(f'''\
        id = "{plugin_id}"
        name = "{name or plugin_id.replace("-", " ").title()}"
        version = "0.3.1"
        serpent = "{serpent}"
        module = "{module}"
        description = "A plugin the tests wrote."

        [contributes]
        commands = [{listed}]
        will_hooks = {str(will_hooks).lower()}
        did_hooks = {str(did_hooks).lower()}
        analysers = [{found}]
        '''), encoding="utf-8")
    (folder / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return folder


HEADER = '''
    from pathlib import Path
    from pydantic import Field
    from serpent_tk.plugins.api import (Api, AssetId, HookEvent, Model, Plugin, PluginError,
                                        RiskReport, RiskTarget, Veto)

    plugin = Plugin()
    HERE = Path(__file__).parent

    class Targets(Model):
        asset_ids: list[AssetId] = Field(min_length=1)

    class Counted(Model):
        counted: int
'''

COUNTER = HEADER + '''
    @plugin.command("count", input=Targets, output=Counted,
                    summary="Count the given assets (a test plugin).", returns="counted.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def count(api: Api, args: Targets) -> Counted:
        found = api.call("asset.get", {"assetIds": args.asset_ids})
        return Counted(counted=len(found["items"]))
'''

RAISING = HEADER + '''
    @plugin.command("explode", input=Targets, output=Counted,
                    summary="Always raises (a test plugin).", returns="nothing.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def explode(api: Api, args: Targets) -> Counted:
        raise RuntimeError("the plugin's own bug")

    @plugin.command("refuse", input=Targets, output=Counted,
                    summary="Refuses on purpose (a test plugin).", returns="nothing.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def refuse(api: Api, args: Targets) -> Counted:
        raise PluginError("these assets are not mine to count", "NOT_FOUND")
'''

HANGING = HEADER + '''
    import time

    @plugin.command("hang", input=Targets, output=Counted, timeout_s=1.0,
                    summary="Never answers (a test plugin).", returns="nothing.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def hang(api: Api, args: Targets) -> Counted:
        while True:
            time.sleep(0.05)
'''

BROKEN_IMPORT = '''
    import no_such_module_anywhere  # noqa: F401
'''

DYING = HEADER + '''
    import os

    @plugin.command("die", input=Targets, output=Counted,
                    summary="Ends its own process (a test plugin).", returns="nothing.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def die(api: Api, args: Targets) -> Counted:
        os._exit(3)
'''

GUARD = HEADER + '''
    import json

    @plugin.will_hook(commands=["asset.tag", "asset.trash"])
    def guard(api: Api, event: HookEvent) -> None:
        with open(HERE / "will.jsonl", "a") as seen:
            seen.write(json.dumps([event.command, event.source, event.actor]) + "\\n")
        if "locked" in event.arguments.get("tags", []):
            raise Veto("the tag locked is reserved")
        if event.command == "asset.trash":
            raise Veto("nothing is trashed while the guard is on")

    @plugin.did_hook(commands=["asset.*", "folder.create"])
    def record(api: Api, event: HookEvent) -> None:
        with open(HERE / "did.jsonl", "a") as seen:
            seen.write(json.dumps([event.command, event.source, event.actor,
                                   event.change_sequence is not None]) + "\\n")

    @plugin.command("tag-through-api", input=Targets, output=Counted,
                    summary="Tags through the API (a test plugin).", returns="counted.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def tag_through_api(api: Api, args: Targets) -> Counted:
        answer = api.call("asset.tag", {"assetIds": args.asset_ids, "tags": ["by-plugin"]})
        return Counted(counted=answer["changed"])
'''

SLOW_GUARD = HEADER + '''
    import time

    @plugin.will_hook(commands=["asset.tag"])
    def slow(api: Api, event: HookEvent) -> None:
        time.sleep(30)
'''

ANALYSER = HEADER + '''
    from PIL import Image

    @plugin.analyser("orientation")
    def orientation(api: Api, asset_ids: list[str]) -> None:
        for item in api.call("asset.get", {"assetIds": asset_ids})["items"]:
            with Image.open(item["filePath"]) as image:
                wide = image.width >= image.height
            api.call("asset.tag", {"assetIds": [item["id"]],
                                   "tags": ["landscape" if wide else "portrait"]})
'''

PURGE = HEADER + '''
    @plugin.command("purge", input=Targets, output=Counted, risk="dangerous",
                    summary="Permanently deletes the given assets (a test plugin).",
                    returns="counted: how many were deleted.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"]})
    def purge(api: Api, args: Targets) -> Counted:
        api.call("asset.trash", {"assetIds": args.asset_ids})
        return Counted(counted=len(args.asset_ids))

    @plugin.plan("purge")
    def plan_purge(api: Api, args: Targets) -> RiskReport:
        found = api.call("asset.get", {"assetIds": args.asset_ids})["items"]
        return RiskReport(summary=f"Purge {len(found)} assets for good.",
                          targets=[RiskTarget(id=a["id"], version=a["version"], name=a["name"])
                                   for a in found])
'''

TAGGER = HEADER + '''
    class TagIn(Model):
        asset_ids: list[AssetId] = Field(min_length=1)
        tags: list[str] = Field(min_length=1)

    @plugin.command("tag", input=TagIn, output=Counted,
                    summary="Tags assets through the API (a test plugin).", returns="counted.",
                    example={"assetIds": ["ast_01j9z3k4m5n6p7q8"], "tags": ["sky"]})
    def tag(api: Api, args: TagIn) -> Counted:
        answer = api.call("asset.tag", {"assetIds": args.asset_ids, "tags": args.tags})
        return Counted(counted=answer["changed"])
'''
