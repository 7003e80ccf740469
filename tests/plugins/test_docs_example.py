"""What docs/plugins.md's “Writing a plugin” shows works as written: its plugin.toml and module,
copied into a plugins folder, run in a real Serpent."""

from __future__ import annotations

import re
from pathlib import Path

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.gateway import Gateway
from serpent_tk.plugins.manager import PluginManager
from tests.automation.conftest import call, import_images, ok
from tests.conftest import ROOT


def docs_example() -> tuple[str, str]:
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = page[page.index("## Writing a plugin"):]
    manifest = re.search(r"```toml\n(.*?)```", section, re.S)
    module = re.search(r"```python\n(.*?)```", section, re.S)
    assert manifest and module
    return manifest.group(1), module.group(1)


def test_the_docs_plugin_runs_as_written(gateway: Gateway, plugins_dir: Path,
                                          manager: PluginManager, tmp_path: Path) -> None:
    manifest, module = docs_example()
    folder = plugins_dir / "keep-guard"
    folder.mkdir()
    (folder / "plugin.toml").write_text(manifest)
    (folder / "keep_guard.py").write_text(module)
    manager.shutdown()  # one manager per gateway, as in the app: the old one's settings
    # watcher would re-apply its own view of the switches (and unexpose these plugins)
    fresh = PluginManager(gateway, manager._settings, plugins_dir, limits=manager.limits,
                          entry_points=False)
    try:
        fresh.start().result(60)
        assert fresh.set_enabled("keep-guard", True).status == "running"
        parent = tmp_path / "libraries"
        parent.mkdir()
        library = ok(gateway, "library.create", {"selectedParentPath": str(parent),
                                                 "name": "Refs"})["libraryId"]
        assets = import_images(gateway, library, tmp_path / "src", 2)
        ok(gateway, "asset.tag", {"libraryId": library, "assetIds": assets[:1],
                                  "tags": ["keep"]})
        counted = ok(gateway, "plugin.keep-guard.count", {"libraryId": library,
                                                          "assetIds": assets})
        assert counted == {"kept": 1}
        # get_assets asks asset.get (100 ids at most) in batches, and names what is missing
        unknown = [f"ast_{number:014d}" for number in range(150)]
        missing = call(gateway, "plugin.keep-guard.count", {"libraryId": library,
                                                            "assetIds": assets + unknown})
        assert missing["error"]["code"] == "NOT_FOUND", missing
        assert missing["error"]["message"] == "150 of the assets do not exist"
        assert missing["error"]["notFound"] == unknown[:100]  # the first 100 of them
        refused = call(gateway, "asset.trash", {"libraryId": library, "assetIds": assets},
                       Caller.mcp("claude", "auto", "Claude"))
        assert refused["error"]["message"] == ("The plugin “Keep guard” refused asset.trash: "
                                               "assets tagged keep stay")
        ok(gateway, "asset.trash", {"libraryId": library, "assetIds": assets[1:]})
    finally:
        fresh.shutdown()
