"""The output budget (CONTRACTS.md §5): every response under the budget, pages cut at an item
boundary with truncated/nextCursor, nothing lost or repeated when following the cursors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from serpent_tk.mcp.budget import Budget, cut, encoded_size, fit_locally, items_that_fit
from tests.mcp.conftest import Server, connect, create_library, make_images, ok, run

SMALL_BUDGET_KIB = 16


def envelope_with(count: int, size: int = 300) -> dict[str, Any]:
    return {"status": "ok", "libraryId": "lib_x", "libraryChangeSequence": 3,
            "result": {"items": [{"id": f"ast_{i:08d}", "name": "n" * size}
                                 for i in range(count)],
                       "total": count, "nextCursor": "c", "truncated": False}}


def test_a_fitting_envelope_is_left_alone() -> None:
    envelope = envelope_with(3)
    assert fit_locally(envelope, Budget.from_kib(128)) is envelope


def test_an_overflowing_page_is_cut_at_an_item_boundary() -> None:
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    envelope = envelope_with(100)
    keep = items_that_fit(envelope, budget.envelope_bytes)
    assert keep is not None and 0 < keep < 100
    trimmed = fit_locally(envelope, budget)
    items = trimmed["result"]["items"]
    assert items == envelope["result"]["items"][:len(items)]  # whole items, in order
    assert trimmed["result"]["truncated"] is True
    assert trimmed["result"]["nextCursor"] is None  # a local cut cannot be continued exactly
    assert encoded_size(trimmed) <= budget.envelope_bytes
    assert 2 * encoded_size(trimmed) <= budget.total_bytes
    assert envelope["result"]["truncated"] is False  # the original is untouched


def test_the_largest_list_is_the_one_cut() -> None:
    envelope = {"status": "confirmation_required", "riskReport": {
        "summary": "x", "targets": [{"id": str(i), "pad": "p" * 200} for i in range(400)]}}
    trimmed = cut(envelope, 5)
    assert len(trimmed["riskReport"]["targets"]) == 5
    assert trimmed["riskReport"]["truncated"] is True


def test_an_answer_that_cannot_be_cut_becomes_a_clear_error() -> None:
    envelope = {"status": "ok", "libraryId": "lib_x", "result": {"notes": "x" * 200_000}}
    answer = fit_locally(envelope, Budget.from_kib(SMALL_BUDGET_KIB))
    assert answer["status"] == "error"
    assert answer["error"]["code"] == "INVALID_ARGUMENT"
    assert "16 KiB" in answer["error"]["message"]
    assert answer["error"]["libraryId"] == "lib_x"


def test_pages_over_http_stay_under_the_budget_and_lose_nothing(
        server: Server, era: str, tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 40,
                           prefix="a-rather-long-file-name-for-a-reference-picture")
    server.service.set_output_budget(SMALL_BUDGET_KIB)

    async def scenario() -> tuple[list[str], list[bool], list[int]]:
        async with connect(server.url, server.token(), era) as client:
            library = await create_library(client, tmp_path / "libs")
            await ok(client, "serpent_file_import",
                     {"libraryId": library, "sourcePaths": [str(p) for p in pictures],
                      "tags": ["reference", "long-tag-name-one", "long-tag-name-two"]})
            seen: list[str] = []
            cut_flags: list[bool] = []
            sizes: list[int] = []
            cursor = None
            while True:
                args: dict[str, Any] = {"libraryId": library, "limit": 40}
                if cursor:
                    args["cursor"] = cursor
                result = await client.call_tool("serpent_asset_search", args)
                sizes.append(len(result.model_dump_json(by_alias=True, exclude_none=True)))
                assert result.structured_content is not None
                page = result.structured_content["result"]
                seen.extend(item["id"] for item in page["items"])
                cut_flags.append(page["truncated"])
                cursor = page["nextCursor"]
                if not cursor:
                    return seen, cut_flags, sizes

    seen, cut_flags, sizes = run(scenario())
    assert len(seen) == 40 and len(set(seen)) == 40
    assert cut_flags[0] is True and len(cut_flags) > 1
    assert max(sizes) <= SMALL_BUDGET_KIB * 1024


def test_a_non_paged_answer_is_cut_and_marked(server: Server, tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 40, prefix="p" * 60)
    server.service.set_output_budget(SMALL_BUDGET_KIB)

    async def scenario() -> dict[str, Any]:
        async with connect(server.url, server.token(), "legacy") as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            ids = [item["assetId"] for item in imported["items"]]
            result = await client.call_tool("serpent_asset_get",
                                            {"libraryId": library, "assetIds": ids})
            assert len(result.model_dump_json()) <= SMALL_BUDGET_KIB * 1024
            assert result.structured_content is not None
            return result.structured_content

    envelope = run(scenario())
    assert envelope["status"] == "ok"
    assert envelope["result"]["truncated"] is True
    assert 0 < len(envelope["result"]["items"]) < 40
    json.dumps(envelope)  # still plain JSON
