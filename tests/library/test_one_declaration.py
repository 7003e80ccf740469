"""One declaration per command (issue 29): a command the worker serves is declared once, in
`library/catalogue/entries.py`, and nowhere says its risk, words or worker function again.
Beside `tests/test_architecture.py`, whose source walkers it uses."""

from __future__ import annotations

import ast
import sqlite3

import pytest

from library.catalogue import CATALOGUE, task_kinds
from library.worker.commands import load
from serpent_tk.automation.commands import build_registry
from tests.test_architecture import ROOT, all_sources, under


def test_a_worker_command_is_declared_once() -> None:
    """A worker-served command is one `library.catalogue` entry: its models, risk, words and
    worker function (issue 29). The registry adds what MCP and the window need by name and
    never says risk or words again; no worker function declares itself (`@handles`); every
    entry's function resolves; no main-process declaration shadows a catalogue entry."""
    offenders = []
    for path in all_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.FunctionDef) and any(
                    "handles" in ast.unparse(d) for d in node.decorator_list):
                offenders.append(f"{where}: @handles (name it in its catalogue entry)")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "command" \
                    and under(path, "serpent_tk/automation/commands"):
                said = [k.arg for k in node.keywords if k.arg in ("risk", "words")]
                if len(node.args) != 4 or said:
                    offenders.append(f"{where}: command() says the risk or words again "
                                     "(they are the catalogue's)")
    assert not offenders, "\n".join(offenders)
    assert set(load()) == set(CATALOGUE)
    registry = build_registry()
    for name, entry in CATALOGUE.items():
        spec = registry.commands[name]
        assert spec.route == "worker", f"{name} is in the catalogue, declared again elsewhere"
        assert (spec.risk, spec.words, spec.input_model, spec.output_model) == (
            entry.risk, entry.words, entry.input_model, entry.output_model)
    assert not [name for name, spec in registry.commands.items()
                if spec.route == "worker" and name not in CATALOGUE]


def test_a_task_kind_is_declared_once() -> None:
    """Task rows and the jobs that run them take their kinds from
    `library.catalogue.task_kinds`: an undeclared kind is refused before anything is written,
    and the window tells the previews task by that same declaration."""
    from library.worker.tasks import taskrows
    from library.worker.tasks.taskrunner import JOBS, job
    from serpent_tk.ui.activity import task_status

    load()  # the command modules register their jobs
    assert set(JOBS) <= task_kinds.TASK_KINDS and JOBS
    with pytest.raises(ValueError, match="not a task kind"):
        taskrows.create(sqlite3.connect(":memory:"), "thumbnailing", params={}, total=None,
                        actor_json="{}", now="2026-01-01T00:00:00Z")
    with pytest.raises(ValueError, match="not a task kind"):
        job("thumbnailing", "asset.thumbnail")
    assert task_status.PREVIEWS is task_kinds.PREVIEWS
