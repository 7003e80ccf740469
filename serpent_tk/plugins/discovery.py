"""Finding plugins: Serpent's own (`builtin/`), the person's (`<user data>/plugins/<id>/`) and
installed packages' (`serpent_tk.plugins` entry points). No plugin code runs here.

Thread-safe (reads the disk). Each plugin found is a `Found`: its manifest, where its code is,
and a `problem` when it cannot run (a bad manifest, another Serpent version, a missing
module, an id taken by an earlier plugin). A broken plugin is reported, never fatal: the
others are found all the same.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from serpent_tk import __version__
from serpent_tk.plugins.manifest import MANIFEST_NAME, Manifest, ManifestError, read_manifest
from serpent_tk.shipped_files import resource_root

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "serpent_tk.plugins"
Origin = Literal["built-in", "folder", "entry point"]


def builtin_folder() -> Path:
    """Where the plugins shipped with Serpent live (source checkout and frozen build)."""
    return resource_root() / "serpent_tk" / "plugins" / "builtin"


@dataclass(frozen=True)
class Found:
    id: str  # the manifest's id, or the folder / entry point name when it has none
    origin: Origin
    location: str  # the folder, or the entry point's value
    manifest: Manifest | None
    problem: str | None = None  # why it cannot run; None: it may be enabled
    incompatible: bool = False  # the problem is the Serpent version
    path_entry: str | None = None  # a folder plugin's folder, put first on sys.path

    @property
    def module(self) -> str:
        return self.manifest.module if self.manifest is not None else ""

    @property
    def name(self) -> str:
        return self.manifest.name if self.manifest is not None else self.id


def discover(user_plugins: Path | None, *, builtin: Path | None = None,
             entry_points: bool = True) -> list[Found]:
    """Every plugin, in this order: built-in, the person's folders, entry points. A later
    plugin with an id already found is reported, not run."""
    found: list[Found] = []
    for folder in _plugin_folders(builtin if builtin is not None else builtin_folder()):
        found.append(_from_builtin(folder))
    if user_plugins is not None:
        for folder in _plugin_folders(user_plugins):
            found.append(_from_folder(folder))
    if entry_points:
        found.extend(_from_entry_points())
    seen: set[str] = set()
    result: list[Found] = []
    for plugin in found:
        if plugin.id in seen:
            plugin = Found(plugin.id, plugin.origin, plugin.location, plugin.manifest,
                           problem=f"another plugin already has the id {plugin.id!r}")
            result.append(plugin)
            continue
        seen.add(plugin.id)
        result.append(plugin)
    return result


def _plugin_folders(root: Path) -> list[Path]:
    try:
        return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(
            (".", "_")))
    except OSError:
        return []


def _checked(plugin_id: str, origin: Origin, location: str, manifest_path: Path,
             path_entry: str | None = None) -> tuple[Found, Manifest | None]:
    try:
        manifest = read_manifest(manifest_path)
    except ManifestError as error:
        return Found(plugin_id, origin, location, None, problem=str(error)), None
    if not manifest.works_with():
        return Found(manifest.id, origin, location, manifest, incompatible=True,
                     problem=f"made for Serpent {manifest.serpent}; this is Serpent "
                             f"{__version__}"), manifest
    return Found(manifest.id, origin, location, manifest, path_entry=path_entry), manifest


def _from_builtin(folder: Path) -> Found:
    found, _manifest = _checked(folder.name, "built-in", str(folder), folder / MANIFEST_NAME)
    return found


def _from_folder(folder: Path) -> Found:
    manifest_path = folder / MANIFEST_NAME
    if not manifest_path.is_file():
        return Found(folder.name, "folder", str(folder), None,
                     problem=f"the folder has no {MANIFEST_NAME}")
    found, manifest = _checked(folder.name, "folder", str(folder), manifest_path,
                               path_entry=str(folder))
    if manifest is None or found.problem:
        return found
    if manifest.id != folder.name:
        return Found(manifest.id, "folder", str(folder), manifest,
                     problem=f"the folder must be named like the plugin's id ({manifest.id})")
    top = manifest.module.split(".")[0]
    if not ((folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file()):
        return Found(manifest.id, "folder", str(folder), manifest,
                     problem=f"the module {manifest.module} is not in the folder")
    return found


def _from_entry_points() -> list[Found]:
    try:
        points = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as error:  # a broken installed distribution must not stop discovery
        log.warning("could not read the %s entry points: %s", ENTRY_POINT_GROUP, error)
        return []
    found = []
    for point in sorted(points, key=lambda p: p.name):
        module = point.value.partition(":")[0].strip()
        folder = _module_folder(module)
        if folder is None:
            found.append(Found(point.name, "entry point", point.value, None,
                               problem=f"the module {module} is not installed"))
            continue
        plugin, manifest = _checked(point.name, "entry point", point.value,
                                    folder / MANIFEST_NAME)
        if manifest is not None and not plugin.problem and manifest.module != module:
            plugin = Found(manifest.id, "entry point", point.value, manifest,
                           problem=f"the entry point names {module}, the manifest "
                                   f"{manifest.module}")
        found.append(plugin)
    return found


def _module_folder(module: str) -> Path | None:
    """The folder of `module` (a package's own folder, a module file's folder), where its
    manifest sits; found without importing it (only the top-level package is looked up)."""
    top, _, rest = module.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    parts = rest.split(".") if rest else []
    if spec.submodule_search_locations:
        base = Path(next(iter(spec.submodule_search_locations)))
        if not parts:
            return base
        target = base.joinpath(*parts[:-1])
        if (target / parts[-1] / "__init__.py").is_file():
            return target / parts[-1]  # a package: the manifest is inside it
        return target if (target / f"{parts[-1]}.py").is_file() else None
    if parts or spec.origin is None:
        return None
    return Path(spec.origin).parent
