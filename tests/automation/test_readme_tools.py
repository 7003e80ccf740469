"""The README's "Commands and MCP tools" table is the registry's, row for row."""

from __future__ import annotations

from pathlib import Path

from serpent_tk.automation.registry import build_registry
from serpent_tk.automation.tooltable import current_section, section

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_table_matches_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    assert "## Commands and MCP tools" in text
    found = current_section(text)
    assert found is not None, "the README lost its commands table markers"
    assert found == section(build_registry()), (
        "README.md and the registry disagree: run "
        "`.venv/bin/python -m serpent_tk.automation.tooltable README.md`")


def test_every_command_has_a_row() -> None:
    found = current_section(README.read_text(encoding="utf-8")) or ""
    for name, spec in build_registry().commands.items():
        assert f"| `{name}` | `{spec.tool_name}` |" in found, name
