"""The command catalogue and the worker's dispatch table agree: one handler per entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.catalogue import CATALOGUE
from library.worker import commands
from library.worker.commands import handles, load


def test_every_catalogue_command_has_one_handler_and_every_handler_an_entry() -> None:
    handlers = load()
    assert set(handlers) == set(CATALOGUE), (
        f"no handler: {sorted(set(CATALOGUE) - set(handlers))}; "
        f"not in the catalogue: {sorted(set(handlers) - set(CATALOGUE))}")
    assert all(handlers[name].command is CATALOGUE[name] for name in CATALOGUE)


def test_a_second_handler_or_one_outside_the_catalogue_is_refused() -> None:
    load()
    with pytest.raises(RuntimeError, match="two handlers"):
        handles("asset.tag")(lambda tx, args: None)
    with pytest.raises(RuntimeError, match="not in library.catalogue"):
        handles("asset.paint")(lambda tx, args: None)
    assert "asset.paint" not in load()


def test_the_worker_finds_its_command_modules_without_a_list() -> None:
    """Every module of `library/worker/commands/` is loaded (each serves some commands)."""
    folder = Path(commands.__file__).parent
    files = {f"library.worker.commands.{p.stem}" for p in folder.glob("*.py")
             if p.name != "__init__.py"}
    serving = {handler.run.__module__ for handler in load().values()}
    assert serving == files
