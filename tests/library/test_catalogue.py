"""The command catalogue and the worker's dispatch table agree: each entry names one worker
function, every handler function is named by exactly one entry, and a name that leads
nowhere stops the worker before it serves."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from library.catalogue import CATALOGUE, index
from library.worker import commands
from library.worker.commands import load

FOLDER = Path(commands.__file__).parent
CONTEXTS = {"ReadContext", "WriteTx", "TaskContext"}


def test_every_catalogue_command_has_one_handler_and_every_handler_an_entry() -> None:
    handlers = load()
    assert set(handlers) == set(CATALOGUE)
    assert all(handlers[name].command is CATALOGUE[name] for name in CATALOGUE)
    assert all((handlers[name].plan is not None) == bool(CATALOGUE[name].plan)
               for name in CATALOGUE)


def handler_functions() -> set[str]:
    """`"<module>:<function>"` of every public function of the command modules shaped like a
    handler or a plan: `(ctx: ReadContext | WriteTx | TaskContext, args: <a catalogue model>)`."""
    models = {entry.input_model.__name__ for entry in CATALOGUE.values()}
    found = set()
    for path in FOLDER.glob("*.py"):
        if path.name == "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            params = [ast.unparse(a.annotation) if a.annotation else ""
                      for a in node.args.args]
            if len(params) == 2 and params[0] in CONTEXTS and params[1] in models:
                found.add(f"{path.stem}:{node.name}")
    return found


def test_every_handler_function_is_named_by_exactly_one_entry() -> None:
    named = [ref for entry in CATALOGUE.values() for ref in (entry.handler, entry.plan) if ref]
    twice = sorted({ref for ref in named if named.count(ref) > 1})
    assert not twice, f"named by more than one entry: {twice}"
    functions = handler_functions()
    assert len(functions) > 50  # the scan sees the handlers at all
    assert functions == set(named), (
        f"handler functions no entry names: {sorted(functions - set(named))}; "
        f"entries naming no handler function: {sorted(set(named) - functions)}")


def test_a_missing_function_stops_the_worker_loudly_at_start() -> None:
    """`load()` is what a worker runs before it serves (`WorkerServer`, `import_ahead`): an
    entry naming a function or module that is not there raises, naming every such entry."""
    broken = index([replace(CATALOGUE["tag.list"], handler="tags:list_tag"),
                    replace(CATALOGUE["trash.empty"], plan="trash:plan_nothing"),
                    replace(CATALOGUE["asset.get"], handler="gone:get"),
                    CATALOGUE["asset.search"]])
    with pytest.raises(RuntimeError) as raised:
        load(broken)
    message = str(raised.value)
    assert "tag.list → tags:list_tag" in message
    assert "trash.empty → trash:plan_nothing" in message
    assert "asset.get → gone:get (no module library.worker.commands.gone)" in message
    assert "asset.search" not in message


def test_a_declaration_without_a_handler_or_plan_is_refused() -> None:
    with pytest.raises(ValueError, match="handler"):
        index([replace(CATALOGUE["tag.list"], handler="")])
    with pytest.raises(ValueError, match="plan"):
        index([replace(CATALOGUE["trash.empty"], plan="")])
    with pytest.raises(ValueError, match="risk"):
        index([replace(CATALOGUE["asset.tag"], risk="read")])


def test_the_worker_finds_its_command_modules_without_a_list() -> None:
    """Every module of `library/worker/commands/` is loaded (each serves some commands)."""
    files = {f"library.worker.commands.{p.stem}" for p in FOLDER.glob("*.py")
             if p.name != "__init__.py"}
    serving = {handler.run.__module__ for handler in load().values()}
    assert serving == files
