"""Benchmark: what Serpent's tool list costs a client, per toolset — the model-facing part
(name + description + input schema, compact JSON, chars/4 as tokens) and the whole
`tools/list` answer — against the same registry's definitions as pydantic makes them, measured
in the same run (`$ref`s inlined, output schemas with every result field: how the catalogue
was built before it was made lean).

Run: `.venv/bin/python bench/bench_catalogue.py [--largest 10]`.
Targets (held by tests/mcp/catalogue/test_schemas.py): everything <= 12,000 tokens,
essentials <= 5,000 tokens, the whole full-access everything answer <= 64 KiB.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mcp_types as types  # noqa: E402
from benchdata import record  # noqa: E402

from serpent_tk.automation.commands import build_registry  # noqa: E402
from serpent_tk.automation.registry import CommandSpec  # noqa: E402
from serpent_tk.mcp.apps.search_app import tool_meta  # noqa: E402
from serpent_tk.mcp.tools import sizes  # noqa: E402
from serpent_tk.mcp.tools.catalogue import Catalogue, agent_text  # noqa: E402
from serpent_tk.mcp.tools.schemas import inline_refs  # noqa: E402


def unlean(spec: CommandSpec, known: dict[str, Any]) -> types.Tool:
    """The tool as pydantic's schemas give it, with nothing left out (the baseline)."""
    result = inline_refs(spec.output_model.model_json_schema(by_alias=True,
                                                             mode="serialization"))
    error = {"type": "object", "required": ["code", "message"], "properties": {
        "code": {"type": "string"}, "message": {"type": "string"},
        "retryable": {"type": "boolean"}, "currentVersion": {"type": "integer"},
        "libraryId": {"type": "string"}}}
    output = {"type": "object", "required": ["status"], "properties": {
        "status": {"enum": ["ok", "error"]}, "libraryId": {"type": "string"},
        "libraryChangeSequence": {"type": "integer"}, "result": result, "error": error},
        "anyOf": [{"properties": {"status": {"const": "ok"}}, "required": ["result"]},
                  {"properties": {"status": {"const": "error"}}, "required": ["error"]}]}
    hints = spec.annotations
    return types.Tool(name=spec.tool_name, title=spec.one_line,
                      description=agent_text(spec.description, known),
                      input_schema=inline_refs(spec.input_schema()), output_schema=output,
                      annotations=types.ToolAnnotations(
                          read_only_hint=hints.read_only, destructive_hint=hints.destructive,
                          idempotent_hint=hints.idempotent, open_world_hint=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--largest", type=int, default=10,
                        help="list this many of the largest tools (model-facing)")
    args = parser.parse_args()
    registry = build_registry()
    catalogue = Catalogue(registry, tool_meta())
    print(f"{'toolset':<11} {'tools':>5} {'model tokens':>13} {'limit':>7} {'baseline':>9} "
          f"{'ratio':>6} {'tools/list bytes':>17} {'baseline':>9} {'ratio':>6}")
    for toolset in ("everything", "essentials"):
        specs = catalogue.specs("full-access", toolset)
        lean = sizes.measure(catalogue.tools("full-access", toolset))
        base = sizes.measure([unlean(s, registry.commands) for s in specs])
        print(f"{toolset:<11} {lean.tools:>5} {lean.model_tokens:>13,} "
              f"{sizes.MODEL_TOKEN_LIMITS[toolset]:>7,} {base.model_tokens:>9,} "
              f"{lean.model_tokens / base.model_tokens:>6.2f} {lean.whole_bytes:>17,} "
              f"{base.whole_bytes:>9,} {lean.whole_bytes / base.whole_bytes:>6.2f}")
        record(f"tool list, {toolset}", lean.model_tokens, "tokens",
               baseline=base.model_tokens,
               target=f"<= {sizes.MODEL_TOKEN_LIMITS[toolset]:,} tokens")
        if toolset == "everything":
            record(f"tools/list answer, {toolset}", lean.whole_bytes / 1024, "KiB",
                   baseline=base.whole_bytes / 1024,
                   target=f"<= {sizes.WHOLE_ANSWER_LIMIT / 1024:.0f} KiB")
    print(f"whole answer limit: {sizes.WHOLE_ANSWER_LIMIT:,} bytes (full access, everything)")
    tools = catalogue.tools("full-access", "everything")
    print(f"\nlargest tools (model-facing chars / 4 = tokens), of {len(tools)}:")
    ranked = sorted(tools, key=lambda t: len(sizes.model_facing(t)), reverse=True)
    for tool in ranked[:args.largest]:
        chars = len(sizes.model_facing(tool))
        print(f"  {tool.name:<36} {chars:>6,} chars  {chars // 4:>5,} tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
