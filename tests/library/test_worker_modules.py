"""How the library package's modules depend on each other."""

from __future__ import annotations

import ast
from pathlib import Path

import library

ROOT = Path(library.__file__).parent


def test_no_module_imports_another_modules_private_names() -> None:
    """A name two modules share is public in a module of its own (e.g. `folderrows`), so
    changing a module's private helpers never breaks another one."""
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                offenders += [f"{path.relative_to(ROOT.parent)}: {node.module}.{alias.name}"
                              for alias in node.names
                              if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert offenders == []
