"""Completeness: the registry, the worker and the tests agree.

- every command the worker serves is declared in the registry and available;
- every available worker-routed command is served by the worker;
- every available command is exercised by name in a test of its own (the matrix test and
  the registry's own tests do not count), so a newly exposed command without a test fails.
"""

from __future__ import annotations

import re
from pathlib import Path

from library.worker.commands import load
from serpent_tk.automation.registry import build_registry

HERE = Path(__file__).parent
GENERIC = {"test_registry.py", "test_completeness.py", "test_gateway_policy.py",
           "test_readme_tools.py"}
REGISTRY = build_registry()


def test_what_the_worker_serves_is_declared_and_available() -> None:
    served = set(load())
    declared = {n for n, s in REGISTRY.commands.items() if s.route == "worker"}
    assert served <= set(REGISTRY.commands), served - set(REGISTRY.commands)
    unavailable = {n for n in served if not REGISTRY.commands[n].available}
    assert not unavailable, f"served by the worker but not exposed: {sorted(unavailable)}"
    exposed = {n for n in declared if REGISTRY.commands[n].available}
    assert exposed <= served, f"exposed but not served: {sorted(exposed - served)}"


def test_every_available_command_has_a_test_of_its_own() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(HERE.glob("test_*.py"))
                     if p.name not in GENERIC)
    untested = sorted(n for n, s in REGISTRY.commands.items() if s.available and
                      not re.search(rf"[\"']({re.escape(n)}|{s.tool_name})[\"']", text))
    assert not untested, f"available commands without a test: {untested}"
