"""What Serpent imports is what it declares, and what it declares goes into the packaged app.

Every top-level import in serpent_tk/, library/ and the launchers is the standard library,
our own, or a runtime dependency of pyproject.toml (a package that arrives only because
another one needs it today may leave tomorrow). No runtime dependency, nor any package one
of them needs, is in a PyInstaller spec's EXCLUDES (numpy was, and every analysis in the
packaged app failed quietly). The frozen smoke test then looks for each one inside the build.
"""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

OURS = {"serpent_tk", "library"}
SOURCES = [ROOT / "serpent_tk", ROOT / "library", ROOT / "installer" / "launchers"]
SPECS = sorted((ROOT / "installer").glob("*.spec"))


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def runtime_requirements() -> list[Requirement]:
    return [Requirement(line) for line in pyproject()["project"]["dependencies"]]


def runtime_names() -> set[str]:
    return {canonicalize_name(r.name) for r in runtime_requirements()}


def imported_modules(path: Path) -> Iterator[tuple[str, int]]:
    """(top-level module, line) of every absolute import in a Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno


@cache
def installed() -> dict[str, set[str]]:
    """Top-level module -> the (canonical) names of the distributions that install it."""
    return {module: {canonicalize_name(name) for name in names}
            for module, names in importlib.metadata.packages_distributions().items()}


def distributions_of(module: str) -> set[str]:
    return installed().get(module, set())


def test_every_third_party_import_is_a_declared_runtime_dependency() -> None:
    declared = runtime_names()
    undeclared = []
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            for module, line in imported_modules(path):
                if module in OURS or module in sys.stdlib_module_names or module == "__future__":
                    continue
                if not distributions_of(module) & declared:
                    where = path.relative_to(ROOT)
                    undeclared.append(f"{where}:{line} imports {module} "
                                      f"(from {sorted(distributions_of(module)) or '?'})")
    assert undeclared == [], "declare these in pyproject.toml's dependencies:\n" + "\n".join(
        undeclared)


def runtime_closure() -> set[str]:
    """The runtime dependencies and everything they need on this platform (installed)."""
    environment = default_environment()
    seen: set[str] = set()
    todo = list(runtime_requirements())
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        if requirement.marker and not requirement.marker.evaluate({**environment, "extra": ""}):
            continue
        seen.add(name)
        for line in importlib.metadata.requires(name) or []:
            todo.append(Requirement(line))
    return seen


def modules_of(distribution: str) -> set[str]:
    return {module for module, names in installed().items() if distribution in names}


def excludes_of(spec: Path) -> list[str]:
    """The literal list assigned to EXCLUDES in a PyInstaller spec."""
    tree = ast.parse(spec.read_text(encoding="utf-8"), str(spec))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "EXCLUDES"):
            excludes: list[str] = ast.literal_eval(node.value)
            return excludes
    raise AssertionError(f"{spec.name} has no EXCLUDES = [...] list")


def test_no_spec_excludes_a_runtime_dependency_or_what_one_needs() -> None:
    assert SPECS, "no PyInstaller spec in installer/"
    needed = {module: distribution for distribution in runtime_closure()
              for module in modules_of(distribution)}
    assert {"numpy", "PIL", "mcp", "pydantic_core", "anyio"} <= needed.keys()
    for spec in SPECS:
        excluded = excludes_of(spec)
        wrong = {m: needed[m] for m in excluded if m.split(".")[0] in needed}
        assert wrong == {}, f"{spec.name} excludes what Serpent needs at run time: {wrong}"
    assert {"scipy", "pywt"} <= set(excludes_of(ROOT / "installer" / "serpent.spec"))
    assert not {"scipy", "pywavelets", "imagehash"} & runtime_closure(), (
        "something now needs SciPy/PyWavelets: weigh its ~120 MB in the packaged app, then "
        "take them off EXCLUDES")


def locked(lock: Path) -> dict[str, list[tuple[str, str, set[str]]]]:
    """name -> [(version, marker, what it is there for)] from a lock file."""
    entries: dict[str, list[tuple[str, str, set[str]]]] = {}
    via: set[str] = set()
    for line in lock.read_text(encoding="utf-8").splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            requirement = line.rstrip(" \\")
            name, _, rest = requirement.partition("==")
            version, _, marker = rest.partition(";")
            via = set()
            entries.setdefault(canonicalize_name(name), []).append(
                (version.strip(), marker.strip(), via))
        elif line.strip().startswith("# via"):
            via.add(line.strip().removeprefix("# via").strip())
        elif line.strip().startswith("#   "):
            via.add(line.strip().removeprefix("#").strip())
    for entries_of in entries.values():
        for _, _, reasons in entries_of:
            reasons.discard("")
    return entries


REGENERATE = ("pyproject.toml and requirements/ disagree: run  python3 -m serpent_tk.bootstrap "
              "lock  and commit requirements/")


def declared(extras: tuple[str, ...]) -> list[Requirement]:
    project = pyproject()
    lines = list(project["project"]["dependencies"])
    for extra in extras:
        lines += project["project"]["optional-dependencies"][extra]
    return [Requirement(line) for line in lines] + [
        Requirement(line) for line in project["build-system"]["requires"]]


def test_the_lock_files_pin_what_pyproject_declares() -> None:
    from serpent_tk.bootstrap_pip import APP_LOCK, DEV_EXTRAS, DEV_LOCK

    for lock, extras in ((APP_LOCK, ()), (DEV_LOCK, DEV_EXTRAS)):
        pinned = locked(lock)
        wanted = declared(extras)
        for requirement in wanted:
            name = canonicalize_name(requirement.name)
            assert name in pinned, f"{lock.name} lacks {name}. {REGENERATE}"
            assert any(requirement.specifier.contains(version, prereleases=True)
                       for version, _, _ in pinned[name]), (
                f"{lock.name} pins {name} {pinned[name][0][0]}, outside {requirement}. "
                f"{REGENERATE}")
        direct = {name for name, entries in pinned.items()
                  if any("serpent-tk (pyproject.toml)" in via for _, _, via in entries)}
        names = {canonicalize_name(r.name) for r in wanted}
        assert direct <= names, f"{lock.name} still pins {direct - names} for us. {REGENERATE}"
        text = lock.read_text(encoding="utf-8")
        assert all(line.rstrip().endswith("\\") for line in text.splitlines()
                   if "==" in line and not line.startswith("#")), "every pin has hashes"
        assert "/work/" not in text and "/tmp/" not in text, "no machine's paths"

    app, dev = locked(APP_LOCK), locked(DEV_LOCK)
    different = {name: (app[name][0][0], dev[name][0][0]) for name in app
                 if name in dev and app[name][0][0] != dev[name][0][0]}
    assert different == {}, f"dev.txt must keep app.txt's versions. {REGENERATE}"
    assert not {"scipy", "pywavelets", "imagehash"} & app.keys()


def test_this_environment_has_what_the_lock_pins() -> None:
    """The suite runs on what requirements/dev.txt pins (the set-up installs it)."""
    from packaging.markers import Marker

    from serpent_tk.bootstrap_pip import DEV_LOCK

    environment = default_environment()
    wrong = {}
    for name, entries in locked(DEV_LOCK).items():
        for version, marker, _ in entries:
            if marker and not Marker(marker).evaluate(environment):
                continue
            try:
                installed_version = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                installed_version = None
            if installed_version != version:
                wrong[name] = (version, installed_version)
    assert wrong == {}, ("installed versions differ from requirements/dev.txt (pinned, "
                         "installed): run  python3 -m serpent_tk.bootstrap test --version")
