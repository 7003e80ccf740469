"""What the tool list costs: the part a client puts in front of the model on every turn, and
the whole `tools/list` answer on the wire. Held under limits by a test; printed by
`bench/bench_catalogue.py`.

Thread-safe (pure functions).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import mcp_types as types

CHARS_PER_TOKEN = 4  # the usual estimate for English text and JSON
MODEL_TOKEN_LIMITS = {"everything": 12_000, "essentials": 5_000}
WHOLE_ANSWER_LIMIT = 66 * 1024  # bytes of the full-access, everything tools/list answer: 64 KiB
# until library.repair (issue 25), 65 KiB until library.move-to-studio (issue 28); the lean
# definitions had no byte left to give. No client limits these bytes; the model-facing tokens
# (MODEL_TOKEN_LIMITS) are what clients feel, and they are unchanged.


def compact(value: object) -> str:
    """JSON as the 2026-07-28 wire writes it (`json.dumps`, compact, ASCII-escaped): the
    larger of the two eras' encodings."""
    return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class CatalogueSize:
    tools: int
    model_chars: int  # name + description + input schema of every tool, compact JSON
    whole_bytes: int  # the JSON-RPC answer to tools/list

    @property
    def model_tokens(self) -> int:
        return math.ceil(self.model_chars / CHARS_PER_TOKEN)


def model_facing(tool: types.Tool) -> str:
    """What a client shows the model of one tool."""
    return compact({"name": tool.name, "description": tool.description,
                    "inputSchema": tool.input_schema})


def measure(tools: list[types.Tool]) -> CatalogueSize:
    result = types.ListToolsResult(tools=tools).model_dump(by_alias=True, mode="json",
                                                           exclude_none=True)
    answer = compact({"jsonrpc": "2.0", "id": 1, "result": result})
    return CatalogueSize(tools=len(tools),
                         model_chars=sum(len(model_facing(tool)) for tool in tools),
                         whole_bytes=len(answer.encode("utf-8")))
