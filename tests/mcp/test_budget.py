"""The output budget (docs/contracts.md §5): every response under the budget, pages cut at an item
boundary with truncated/nextCursor, nothing lost or repeated when following the cursors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp import Client

from serpent_tk.automation.caller import Caller
from serpent_tk.mcp.tools.budget import Budget, cut_key, encoded_size, fit_risk_report, too_large
from serpent_tk.mcp.tools.catalogue import CONTINUATION_ARGUMENT
from serpent_tk.mcp.tools.continuations import Continuations, Owner, is_continuation
from tests.mcp.conftest import Server, call, connect, create_library, make_images, ok, run
from tests.tool_results import validator_for

SMALL_BUDGET_KIB = 16
LONG_NAME = "a-rather-long-file-name-for-a-reference-picture"


def envelope_with(count: int, size: int = 300) -> dict[str, Any]:
    return {"status": "ok", "libraryId": "lib_x", "libraryChangeSequence": 3,
            "result": {"items": [{"id": f"ast_{i:08d}", "name": "n" * size}
                                 for i in range(count)],
                       "notFound": ["ast_gone0000"], "total": count, "nextCursor": "lib-cursor",
                       "truncated": False}}


def follow(kept: Continuations, first: dict[str, Any], owner: Owner,
           budget: Budget) -> list[dict[str, Any]]:
    """Every part of a cut answer, the first included."""
    pages = [first]
    while pages[-1]["status"] == "ok" and pages[-1]["result"]["truncated"] and is_continuation(
            pages[-1]["result"]["nextCursor"]):
        pages.append(kept.next_page(pages[-1]["result"]["nextCursor"], owner, budget))
    return pages


OWNER = Owner("Claude", "serpent_asset_get", "lib_x")


def test_a_fitting_answer_needs_no_cut() -> None:
    envelope = envelope_with(3)
    assert Budget.from_kib(128).fits(envelope)
    assert cut_key(envelope["result"]) == "items"  # the largest list


def test_a_cut_answer_comes_in_parts_that_add_up_to_the_whole() -> None:
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    envelope = envelope_with(100)
    kept = Continuations()
    first = kept.first_page(envelope, OWNER, budget)
    assert first is not None and first["result"]["truncated"] is True
    assert first["result"]["nextCursor"].startswith("cut:")
    pages = follow(kept, first, OWNER, budget)
    assert len(pages) > 2
    items = [item for page in pages for item in page["result"]["items"]]
    assert items == envelope["result"]["items"]  # whole items, in order, each once
    for page in pages:
        assert encoded_size(page) <= budget.envelope_bytes
        assert 2 * encoded_size(page) <= budget.total_bytes
        assert page["result"]["total"] == 100 and page["libraryId"] == "lib_x"
    assert pages[0]["result"]["notFound"] == ["ast_gone0000"]  # shown once, on the first part
    assert all(page["result"]["notFound"] == [] for page in pages[1:])
    # the last part gives the answer's own cursor back: a paged list goes on from there
    assert pages[-1]["result"]["nextCursor"] == "lib-cursor"
    assert pages[-1]["result"]["truncated"] is False
    assert envelope["result"]["truncated"] is False  # the kept answer is untouched
    # a retried cursor returns the same part again
    again = kept.next_page(pages[0]["result"]["nextCursor"], OWNER, budget)
    assert again == pages[1]


def test_a_mapping_of_results_is_cut_by_entries() -> None:
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    statuses = {f"ast_{i:026d}": "pending" for i in range(500)}
    envelope = {"status": "ok", "libraryId": "lib_x",
                "result": {"items": statuses, "notFound": []}}
    kept = Continuations()
    owner = Owner("Claude", "serpent_asset_preview_status", "lib_x")
    first = kept.first_page(envelope, owner, budget)
    assert first is not None
    pages = follow(kept, first, owner, budget)
    merged: dict[str, str] = {}
    for page in pages:
        assert not set(merged) & set(page["result"]["items"])
        merged.update(page["result"]["items"])
    assert merged == statuses and len(pages) > 1


def test_only_the_owner_may_continue_and_parts_expire() -> None:
    now = [0.0]
    kept = Continuations(keep_s=60, clock=lambda: now[0])
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    first = kept.first_page(envelope_with(100), OWNER, budget)
    assert first is not None
    cursor = first["result"]["nextCursor"]
    for stranger in (Owner("Other client", OWNER.tool, "lib_x"),
                     Owner(OWNER.credential, "serpent_file_import", "lib_x"),
                     Owner(OWNER.credential, OWNER.tool, "lib_other")):
        refused = kept.next_page(cursor, stranger, budget)
        assert refused["status"] == "error" and refused["error"]["field"] == "cursor"
    assert kept.next_page("cut:0123456789abcdef:1", OWNER, budget)["status"] == "error"
    assert kept.next_page(cursor, OWNER, budget)["status"] == "ok"
    now[0] = 61.0
    gone = kept.next_page(cursor, OWNER, budget)
    assert gone["error"]["code"] == "INVALID_ARGUMENT" and "no longer kept" in \
        gone["error"]["message"]
    assert len(kept) == 0


def test_the_oldest_kept_answers_make_room() -> None:
    kept = Continuations(max_answers=2)
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    cursors = []
    for _ in range(3):
        first = kept.first_page(envelope_with(100), OWNER, budget)
        assert first is not None
        cursors.append(first["result"]["nextCursor"])
    assert len(kept) == 2
    assert kept.next_page(cursors[0], OWNER, budget)["status"] == "error"
    assert kept.next_page(cursors[2], OWNER, budget)["status"] == "ok"


def test_a_risk_report_lists_the_targets_that_fit() -> None:
    envelope = {"status": "confirmation_required", "riskReport": {
        "summary": "x", "count": 400, "targets": [{"id": str(i), "pad": "p" * 200}
                                                  for i in range(400)]}}
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    trimmed = fit_risk_report(envelope, budget)
    targets = trimmed["riskReport"]["targets"]
    assert 0 < len(targets) < 400 and targets == envelope["riskReport"]["targets"][:len(targets)]
    assert trimmed["riskReport"]["targetsTruncated"] is True
    assert trimmed["riskReport"]["count"] == 400 and budget.fits(trimmed)


def test_an_answer_that_cannot_be_cut_becomes_a_clear_error() -> None:
    envelope = {"status": "ok", "libraryId": "lib_x", "result": {"notes": "x" * 200_000}}
    budget = Budget.from_kib(SMALL_BUDGET_KIB)
    assert Continuations().first_page(envelope, OWNER, budget) is None  # no list to cut
    answer = too_large(envelope, budget)
    assert answer["status"] == "error"
    assert answer["error"]["code"] == "INVALID_ARGUMENT"
    assert "16 KiB" in answer["error"]["message"]
    assert answer["error"]["libraryId"] == "lib_x"
    one_huge = {"status": "ok", "result": {"items": [{"notes": "x" * 200_000}]}}
    assert Continuations().first_page(one_huge, OWNER, budget) == too_large(one_huge, budget)


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


async def all_parts(client: Client, tool: str, args: dict[str, Any]
                    ) -> tuple[list[dict[str, Any]], list[int]]:
    """The result of every part of one answer, following nextCursor; and each response's
    size on the wire."""
    parts: list[dict[str, Any]] = []
    sizes: list[int] = []
    cursor = None
    while True:
        answer = await client.call_tool(tool, {**args, **({"cursor": cursor} if cursor else {})})
        sizes.append(len(answer.model_dump_json(by_alias=True, exclude_none=True)))
        assert answer.structured_content is not None and not answer.is_error, answer
        parts.append(answer.structured_content["result"])
        cursor = parts[-1].get("nextCursor")
        if not cursor:
            return parts, sizes


def whole(server: Server, name: str, args: dict[str, Any], credential: str = "Claude Desktop"
          ) -> dict[str, Any]:
    """The answer the gateway gave (or, for a write with an idempotencyKey, gives again),
    uncut: what the parts must add up to."""
    found = server.credentials.get(credential)
    assert found is not None
    answer = server.gateway.submit(name, args, Caller.mcp(found.name, found.mode)).result(60)
    assert answer["status"] == "ok", answer
    result: dict[str, Any] = answer["result"]
    return result


def test_a_cut_import_hands_back_every_new_asset(server: Server, era: str,
                                                tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 120, prefix=LONG_NAME)
    server.service.set_output_budget(SMALL_BUDGET_KIB)

    async def scenario() -> tuple[str, dict[str, Any], list[dict[str, Any]], list[int], int]:
        async with connect(server.url, server.token(), era) as client:
            library = await create_library(client, tmp_path / "libs")
            args = {"libraryId": library, "sourcePaths": [str(p) for p in pictures],
                    "idempotencyKey": "import-120"}
            parts, sizes = await all_parts(client, "serpent_file_import", args)
            total = (await ok(client, "serpent_asset_search", {"libraryId": library}))["total"]
            return library, args, parts, sizes, total

    library, args, parts, sizes, total = run(scenario())
    assert len(parts) > 2 and all(part["truncated"] for part in parts[:-1])
    assert parts[-1]["truncated"] is False and parts[-1]["nextCursor"] is None
    assert max(sizes) <= SMALL_BUDGET_KIB * 1024
    items = [item for part in parts for item in part["items"]]
    full = whole(server, "file.import", args)  # the same key: the first result, not a rerun
    assert items == full["items"] and full["imported"] == 120 and not full["truncated"]
    assert len({item["assetId"] for item in items}) == 120
    assert all(part["imported"] == 120 for part in parts)
    assert total == 120  # following the parts imported nothing again


def test_a_cut_batch_read_write_and_status_map_lose_nothing(server: Server, era: str,
                                                            tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 98, prefix=LONG_NAME)  # + 2 missing: 100
    missing = ["ast_0000000000000000000000zz", "ast_0000000000000000000001zz"]

    async def scenario() -> dict[str, list[dict[str, Any]]]:
        async with connect(server.url, server.token(), era) as client:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            ids = [item["assetId"] for item in imported["items"]]
            await ok(client, "serpent_asset_update", {
                "libraryId": library, "assetId": ids[0], "notes": "long notes " * 300})
            parts = {}
            targets = {"assetIds": [*ids, *missing]}
            for tool, extra, kib in (  # small enough to cut each (status entries are small)
                    ("serpent_asset_get", targets, SMALL_BUDGET_KIB),
                    ("serpent_asset_tag", {**targets, "tags": ["reference"]}, SMALL_BUDGET_KIB),
                    ("serpent_asset_preview_status", targets, 6)):
                server.service.set_output_budget(kib)
                parts[tool], sizes = await all_parts(client, tool, {"libraryId": library,
                                                                    **extra})
                assert len(parts[tool]) > 1 and max(sizes) <= kib * 1024, tool
                if tool == "serpent_asset_get":  # before the tags change them
                    parts["whole"] = [await asyncio.to_thread(
                        whole, server, "asset.get", {"libraryId": library, **targets})]
            parts["ids"] = [{"ids": ids}]
            return parts

    parts = run(scenario())
    ids = parts["ids"][0]["ids"]
    got = [item for part in parts["serpent_asset_get"] for item in part["items"]]
    assert got == parts["whole"][0]["items"] and len(got) == len(ids)
    assert [m for part in parts["serpent_asset_get"] for m in part["notFound"]] == missing
    tagged = [item for part in parts["serpent_asset_tag"] for item in part["items"]]
    assert [item["id"] for item in tagged] == [*ids, *missing]
    assert {item["status"] for item in tagged} == {"changed", "not_found"}
    statuses: dict[str, str] = {}
    for part in parts["serpent_asset_preview_status"]:
        statuses.update(part["items"])
    assert set(statuses) == set(ids)
    assert [m for part in parts["serpent_asset_preview_status"] for m in part["notFound"]] \
        == missing


def test_a_continuation_belongs_to_its_credential_and_tool(server: Server,
                                                           tmp_path: Path) -> None:
    pictures = make_images(tmp_path / "pictures", 60, prefix=LONG_NAME)

    async def scenario() -> list[dict[str, Any]]:
        async with connect(server.url, server.token(), "auto") as client, \
                connect(server.url, server.token("Cursor"), "auto") as other:
            library = await create_library(client, tmp_path / "libs")
            imported = await ok(client, "serpent_file_import", {
                "libraryId": library, "sourcePaths": [str(p) for p in pictures]})
            ids = [item["assetId"] for item in imported["items"]]
            server.service.set_output_budget(SMALL_BUDGET_KIB)
            args = {"libraryId": library, "assetIds": ids}
            first = await ok(client, "serpent_asset_get", args)
            cursor = first["nextCursor"]
            assert first["truncated"] and cursor.startswith("cut:")
            return [await call(other, "serpent_asset_get", {**args, "cursor": cursor}),
                    await call(client, "serpent_folder_list", {"libraryId": library,
                                                               "cursor": cursor}),
                    await call(client, "serpent_asset_get", {**args, "cursor": "garbage"}),
                    await call(client, "serpent_asset_get", {**args, "cursor": cursor})]

    stranger, other_tool, garbage, owner = run(scenario())
    for refused in (stranger, other_tool, garbage):
        assert refused["status"] == "error", refused
        assert refused["error"]["code"] == "INVALID_ARGUMENT"
        assert refused["error"]["field"] == "cursor"
    assert owner["status"] == "ok" and owner["result"]["items"]


def test_cut_answers_declare_their_continuation(server: Server) -> None:
    async def listing() -> dict[str, Any]:
        async with connect(server.url, server.token("Full", "full-access"), "legacy") as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = run(listing())
    for name in ("serpent_asset_get", "serpent_file_import", "serpent_asset_tag",
                 "serpent_asset_preview_status", "serpent_folder_list"):
        tool = tools[name]
        assert "cursor" in tool.input_schema["properties"], name
        # the envelope's schema lets a cut answer say so (clients validating it keep it)
        cut = {"status": "ok", "result": {"items": [], "nextCursor": "c1", "truncated": True}}
        assert validator_for(tool.output_schema or {}).is_valid(cut), name
    # a paged list keeps its own library cursor (a continuation cursor works there too)
    search = tools["serpent_asset_search"].input_schema["properties"]["cursor"]
    assert search != CONTINUATION_ARGUMENT
    assert "cursor" not in tools["serpent_library_info"].input_schema["properties"]
