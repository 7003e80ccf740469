"""Toolsets and what is said to a credential agree: no tool description, schema, prompt,
server instruction or fixed hint text of an answer names a tool outside the credential's
toolset (an essentials agent told to "run analysis.run" gets "Unknown tool"); the
review-duplicates prompt speaks the duplicates tool's own distance scale and default."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from library.catalogue import CATALOGUE as WORKER_CATALOGUE
from serpent_tk.automation import policy
from serpent_tk.automation.commands import build_registry
from serpent_tk.automation.registry import tool_name_for
from serpent_tk.credentials import TOOLSETS
from serpent_tk.mcp.apps.search_app import tool_meta
from serpent_tk.mcp.server import INSTRUCTIONS
from serpent_tk.mcp.tools import analysis_wait, arguments, continuations
from serpent_tk.mcp.tools.catalogue import Catalogue, agent_text
from serpent_tk.mcp.tools.prompts import (
    PROMPTS,
    SAMPLE,
    Job,
    Prompts,
    distance_scale,
    review_duplicates,
)
from tests.conftest import ROOT

REGISTRY = build_registry()
CATALOGUE = Catalogue(REGISTRY, tool_meta())
TOOL_NAME = re.compile(r"\bserpent_[a-z0-9_]+\b")
DOTTED = re.compile(r"\b[a-z]+(?:-[a-z]+)*\.[a-z]+(?:-[a-z]+)*\b")
# where the fixed texts of answers are written: the worker's commands and the main
# process's command handlers, and what the MCP layer itself answers (the declarations in
# serpent_tk/automation/commands are the tools' descriptions: the catalogue test walks them)
ANSWER_SOURCES = [ROOT / "library" / "worker", ROOT / "serpent_tk" / "automation"]
WORKER_COMMANDS = ROOT / "library" / "worker" / "commands"
MCP_ANSWERS = [analysis_wait, arguments, continuations]


def mentioned(text: str) -> set[str]:
    """The tools `text` names, as tool names (`serpent_…`) or as commands (`asset.trash`)."""
    tools = {tool_name_for(name) for name in REGISTRY.commands}
    named = {name for name in TOOL_NAME.findall(text) if name in tools}
    return named | {tool_name_for(m) for m in DOTTED.findall(text) if m in REGISTRY.commands}


def handled_by(path: Path) -> set[str]:
    """The commands whose worker function is in `path` (as their catalogue entries say)."""
    if path.parent != WORKER_COMMANDS:
        return set()
    return {name for name, entry in WORKER_CATALOGUE.items()
            if entry.handler.partition(":")[0] == path.stem}


def listed(toolset: str) -> set[str]:
    return {tool.name for tool in CATALOGUE.tools("full-access", toolset)}


def texts(tree: ast.AST) -> Iterator[str]:
    """The string constants of a module that are not docstrings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            yield node.value


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_tool_descriptions_and_schemas_name_only_tools_of_the_toolset(toolset: str) -> None:
    seen = listed(toolset)
    wrong = {tool.name: sorted(mentioned(json.dumps([tool.description, tool.input_schema]))
                               - seen)
             for tool in CATALOGUE.tools("full-access", toolset)}
    assert not {name: names for name, names in wrong.items() if names}


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_prompts_and_instructions_name_only_tools_of_the_toolset(toolset: str) -> None:
    seen = listed(toolset)
    prompts = Prompts(REGISTRY)
    offered = prompts.offered(seen)
    assert {p.name for p in offered} == {p.name for p in PROMPTS}  # essentials has them all
    for prompt in offered:
        for arguments_given in ({}, {"maxDistance": "3", "vocabulary": "sky", "since":
                                     "2026-01-01T00:00:00Z", "theme": "skies"}):
            job = Job(SAMPLE.library_id, "Sample", arguments_given, distance_scale(REGISTRY))
            said = " ".join([agent_text(prompt.text(job), REGISTRY.commands), prompt.title,
                             prompt.description,
                             *(prompts.described(a) for a in prompt.arguments)])
            assert not mentioned(said) - seen, (prompt.name, mentioned(said) - seen)
    assert not mentioned(INSTRUCTIONS) - seen


def test_fixed_answer_texts_name_only_tools_every_caller_of_them_has() -> None:
    """A text in the code of a command the essentials hold (an error, a note, a hint) names
    only essential tools; the MCP layer's own answers too."""
    essentials = {name for name, spec in REGISTRY.commands.items()
                  if policy.holds("essentials", spec)}
    wrong: list[str] = []
    modules = [p for root in ANSWER_SOURCES for p in sorted(root.rglob("*.py"))
               if p.parent.name != "commands" or p.parent.parent.name != "automation"]
    modules += [Path(str(m.__file__)) for m in MCP_ANSWERS]
    for path in modules:
        source = path.read_text(encoding="utf-8")
        handled = handled_by(path)
        if handled and not handled & essentials:
            continue  # only answers of commands outside the essentials
        for text in texts(ast.parse(source)):
            if " " not in text.strip():
                continue  # a name, not a sentence
            outside = {m for m in mentioned(text)
                       if REGISTRY.get(m) is not None and not policy.holds(
                           "essentials", REGISTRY.get(m))}  # type: ignore[arg-type]
            if outside:
                wrong.append(f"{path.relative_to(ROOT)}: {sorted(outside)} in {text[:80]!r}")
    assert not wrong, "\n".join(wrong)


def test_the_review_duplicates_prompt_uses_the_tools_own_scale_and_default() -> None:
    spec = REGISTRY.get("asset.find-duplicates")
    assert spec is not None
    field = spec.input_model.model_fields["max_distance"]
    default, most, scale = distance_scale(REGISTRY)
    assert (default, scale) == (field.default, field.description)
    prompts = Prompts(REGISTRY)
    review = next(p for p in PROMPTS if p.name == "review-duplicates")
    argument = next(a for a in review.arguments if a.name == "maxDistance")
    told = prompts.described(argument)
    assert scale in told and f"Default {default}." in told
    for given, expected in (({}, default), ({"maxDistance": "3"}, 3),
                            ({"maxDistance": "99"}, most), ({"maxDistance": "x"}, default)):
        text = review_duplicates(Job("lib_sample0001", "Sample", given, (default, most, scale)))
        assert f'"maxDistance": {expected}}}' in text, (given, text[:300])
    tool = next(t for t in CATALOGUE.tools("full-access", "essentials")
                if t.name == "serpent_asset_find_duplicates")
    assert tool.input_schema["properties"]["maxDistance"]["default"] == default
