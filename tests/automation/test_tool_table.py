"""The tool table of docs/mcp.md ("Tools") is the registry's, row for row."""

from __future__ import annotations

from pathlib import Path

from serpent_tk.automation.commands import build_registry
from serpent_tk.automation.tooltable import current_section, section

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def test_the_docs_table_matches_the_registry() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert "## Tools" in text
    found = current_section(text)
    assert found is not None, "docs/mcp.md lost its commands table markers"
    assert found == section(build_registry()), (
        "docs/mcp.md and the registry disagree: run "
        "`.venv/bin/python -m serpent_tk.automation.tooltable docs/mcp.md`")


def test_every_command_has_a_row() -> None:
    found = current_section(PAGE.read_text(encoding="utf-8")) or ""
    for name, spec in build_registry().commands.items():
        row = f"| `{name}` | `{spec.tool_name}` |"
        assert (row not in found) if spec.internal else (row in found), name
