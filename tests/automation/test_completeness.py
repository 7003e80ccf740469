"""Completeness: the registry, the worker and the tests agree.

- every command the worker serves is declared in the registry, routed to the worker;
- every worker-routed command is served by the worker, with the catalogue's models;
- every command is exercised by name in a test of its own (the matrix test and the
  registry's own tests do not count; sub-folders of tests/automation count too), so a
  newly exposed command without a test fails.
"""

from __future__ import annotations

import re
from pathlib import Path

from library.catalogue import CATALOGUE
from library.worker.commands import load
from serpent_tk.automation.commands import build_registry

HERE = Path(__file__).parent
GENERIC = {"test_registry.py", "test_completeness.py", "test_gateway_policy.py",
           "test_tool_table.py"}
REGISTRY = build_registry()


def test_what_the_worker_serves_is_declared() -> None:
    served = set(load())
    declared = {n for n, s in REGISTRY.commands.items() if s.route == "worker"}
    assert served <= set(REGISTRY.commands), served - set(REGISTRY.commands)
    assert served <= declared, f"served by the worker, routed elsewhere: {served - declared}"
    assert declared <= served, f"exposed but not served: {sorted(declared - served)}"


def test_the_registry_takes_worker_commands_models_from_the_catalogue() -> None:
    """One catalogue for both processes: what the gateway validates is what the worker
    validates, and the registry declares no worker command the catalogue lacks."""
    worker_routed = {n: s for n, s in REGISTRY.commands.items() if s.route == "worker"}
    assert set(worker_routed) == set(CATALOGUE)
    for name, spec in worker_routed.items():
        assert spec.input_model is CATALOGUE[name].input_model, name
        assert spec.output_model is CATALOGUE[name].output_model, name


def test_every_command_has_a_test_of_its_own() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(HERE.rglob("test_*.py"))
                     if p.name not in GENERIC)
    untested = sorted(n for n, s in REGISTRY.commands.items()
                      if not re.search(rf"[\"']({re.escape(n)}|{s.tool_name})[\"']", text))
    assert not untested, f"commands without a test: {untested}"
