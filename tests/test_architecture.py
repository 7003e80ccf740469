"""The import rules of ARCHITECTURE.md, checked on the source of every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MCP_STACK = {"mcp", "mcp_types", "starlette", "uvicorn", "sse_starlette", "httpx2"}


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def top(name: str) -> str:
    return name.split(".")[0]


def under(path: Path, package: str) -> bool:
    return path.is_relative_to(ROOT / package)


def all_sources() -> list[Path]:
    return modules("serpent_tk") + modules("library")


def test_there_is_something_to_check() -> None:
    assert len(all_sources()) > 5


@pytest.mark.parametrize("path", modules("library"), ids=lambda p: str(p.relative_to(ROOT)))
def test_library_never_imports_the_app_tk_or_mcp(path: Path) -> None:
    bad = {n for n in imported_names(path)
           if top(n) in {"serpent_tk", "tkinter", "_tkinter", *MCP_STACK}}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", all_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_ui_imports_tkinter(path: Path) -> None:
    if under(path, "serpent_tk/ui"):
        return
    bad = {n for n in imported_names(path) if top(n) in {"tkinter", "_tkinter", "tkinterdnd2",
                                                          "sv_ttk"}}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", all_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_mcp_imports_the_mcp_stack(path: Path) -> None:
    if under(path, "serpent_tk/mcp"):
        return
    bad = {n for n in imported_names(path) if top(n) in MCP_STACK}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", modules("serpent_tk/ui") + modules("serpent_tk/mcp"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_ui_and_mcp_never_import_each_other(path: Path) -> None:
    other = "serpent_tk.mcp" if under(path, "serpent_tk/ui") else "serpent_tk.ui"
    bad = {n for n in imported_names(path) if n == other or n.startswith(other + ".")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", modules("serpent_tk/ui"), ids=lambda p: str(p.relative_to(ROOT)))
def test_ui_never_opens_sqlite_or_the_worker(path: Path) -> None:
    bad = {n for n in imported_names(path)
           if top(n) == "sqlite3" or n.startswith("library.worker")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_nothing_imports_the_composition_root() -> None:
    offenders = [p for p in all_sources()
                 if p.name != "app.py" and "serpent_tk.app" in imported_names(p)]
    assert not offenders


def test_bootstrap_and_package_init_use_only_the_standard_library() -> None:
    import sys
    for relative in ("serpent_tk/bootstrap.py", "serpent_tk/__init__.py",
                     "serpent_tk/__main__.py"):
        names = {top(n) for n in imported_names(ROOT / relative)}
        third_party = {n for n in names
                       if n not in sys.stdlib_module_names and n not in {"serpent_tk"}}
        assert not third_party, f"{relative} imports {sorted(third_party)}"
