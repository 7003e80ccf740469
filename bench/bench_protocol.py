"""Benchmark: the worker pipe's codec on its hot path — a 500-item `asset.search` answer and a
`library.changed` event with 500 ids — through the typed `library.protocol` models, as the
worker and `library.client` use them (build the model, encode it; decode and validate),
against plain `json.dumps` / `json.loads` of the same message measured in the same run: the
untyped fast path both sides took before the models were used there.

Run: `.venv/bin/python bench/bench_protocol.py [--items 500] [--rounds 200]`.
Target: a message's round trip (encode + decode) through the models no slower than through
plain json (ratio <= 1.0); pydantic's own JSON makes up for the validation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdata import record  # noqa: E402

from library.protocol import LibraryChanged, Response, decode_from_worker, encode  # noqa: E402
from library.schemas import Actor  # noqa: E402


def page(items: int) -> dict[str, Any]:
    return {"items": [{
        "id": f"ast_{i:012d}", "name": f"Picture number {i} é", "kind": "image",
        "ext": "png", "width": 1920, "height": 1080, "size": 123456 + i, "rating": i % 6,
        "tags": ["sky", "reference", f"t{i % 17}"], "folderIds": ["fld_0000000001"],
        "addedAt": "2026-01-01T00:00:00Z", "modifiedAt": "2026-01-02T00:00:00Z",
        "version": 3, "thumbnail": {"ready": True, "width": 256, "height": 144},
        "addedBy": {"source": "mcp", "credential": "claude", "label": "Claude via MCP"}}
        for i in range(items)], "total": 100_000, "nextCursor": "abc", "truncated": False}


def best(run: Callable[[], object], rounds: int) -> float:
    """Milliseconds per call, best of five batches."""
    fastest = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(rounds):
            run()
        fastest = min(fastest, (time.perf_counter() - started) / rounds)
    return fastest * 1000


def plain(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    result = page(args.items)
    ids = [f"ast_{i:012d}" for i in range(500)]
    actor = {"source": "mcp", "credential": "claude", "label": "Claude via MCP"}

    def answer() -> bytes:
        return encode(Response(id=7, ok=True, result=result, change_sequence=42))

    def change() -> bytes:
        return encode(LibraryChanged(library_id="lib_0123456789", change_sequence=42,
                                     kinds=["asset", "tag"], command="asset.tag",
                                     actor=Actor.model_validate(actor), entity_ids=ids))

    raw_answer = {"type": "response", "id": 7, "ok": True, "result": result, "error": None,
                  "change_sequence": 42}
    raw_change = {"type": "library.changed", "library_id": "lib_0123456789",
                  "change_sequence": 42, "kinds": ["asset", "tag"], "command": "asset.tag",
                  "actor": actor, "entity_ids": ids, "library_name": None}
    print(f"{'message':<24}{'bytes':>9}{'encode':>11}{'json':>10}{'ratio':>7}"
          f"{'decode':>11}{'json':>10}{'ratio':>7}{'round trip':>12}")
    for label, typed, raw in (("asset.search answer", answer, raw_answer),
                              ("library.changed event", change, raw_change)):
        wire = typed()
        encode_ms, encode_base = best(typed, args.rounds), best(lambda r=raw: plain(r),
                                                                args.rounds)
        decode_ms = best(lambda w=wire: decode_from_worker(w), args.rounds)
        decode_base = best(lambda w=wire: json.loads(w), args.rounds)
        print(f"{label:<24}{len(wire):>9,}{encode_ms:>9.3f}ms{encode_base:>8.3f}ms"
              f"{encode_ms / encode_base:>7.2f}{decode_ms:>9.3f}ms{decode_base:>8.3f}ms"
              f"{decode_ms / decode_base:>7.2f}"
              f"{(encode_ms + decode_ms) / (encode_base + decode_base):>12.2f}")
        record(f"worker pipe codec round trip, {label}", encode_ms + decode_ms, "ms",
               baseline=encode_base + decode_base, target="<= 1.0x json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
