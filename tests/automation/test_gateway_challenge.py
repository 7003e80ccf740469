"""Dangerous commands through the gateway: risk report, one-time challenge, exact second call.

docs/contracts.md §2: a changed credential, command, argument, library, target or version
between the two calls gets CHALLENGE_INVALID and changes nothing; Full Access and the person
at the window go through it too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serpent_tk.automation.caller import Caller
from serpent_tk.automation.challenge import ChallengeStore
from serpent_tk.automation.gateway import Gateway
from tests.automation.conftest import CLAUDE, FULL, READER, UI, call, code, import_images, ok


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def present(gateway: Gateway, library: str, asset_ids: list[str]) -> set[str]:
    found = ok(gateway, "asset.get", {"libraryId": library, "assetIds": asset_ids})
    return {item["id"] for item in found["items"]}


def first_call(gateway: Gateway, name: str, args: dict[str, Any],
               caller: Caller = CLAUDE) -> dict[str, Any]:
    answer = call(gateway, name, args, caller)
    assert answer["status"] == "confirmation_required", answer
    return answer


def test_delete_permanently_needs_the_exact_second_call(gateway: Gateway, library: str,
                                                        tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    before = ok(gateway, "library.change-sequence", {"libraryId": library})
    args = {"libraryId": library, "assetIds": assets[:2]}
    answer = first_call(gateway, "asset.delete-permanently", args)
    challenge, report = answer["challenge"], answer["riskReport"]
    assert challenge["id"].startswith("ch_") and challenge["command"] == \
        "asset.delete-permanently" and challenge["expiresAt"]
    assert answer["libraryId"] == library
    assert report["summary"].startswith("Permanently delete 2 assets")
    assert report["irreversible"] is True and report["count"] == 2
    assert sorted(t["id"] for t in report["targets"]) == sorted(assets[:2])
    assert "stateToken" not in report
    assert ok(gateway, "library.change-sequence", {"libraryId": library}) == before
    assert present(gateway, library, assets) == set(assets)

    done = call(gateway, "asset.delete-permanently",
                {**args, "confirmChallenge": challenge["id"]}, CLAUDE)
    assert done["status"] == "ok" and done["result"]["deleted"] == 2
    assert done["result"]["freedBytes"] > 0
    assert present(gateway, library, assets) == {assets[2]}

    replay = call(gateway, "asset.delete-permanently",
                  {**args, "confirmChallenge": challenge["id"]}, CLAUDE)
    assert code(replay) == "CHALLENGE_INVALID" and replay["error"]["libraryId"] == library


def test_full_access_and_the_person_still_get_a_challenge(gateway: Gateway, library: str,
                                                          tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 1)
    for caller in (FULL, UI):
        first_call(gateway, "asset.delete-permanently",
                   {"libraryId": library, "assetIds": assets}, caller)
    assert present(gateway, library, assets) == set(assets)


def test_read_only_gets_no_challenge(gateway: Gateway, library: str, tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 1)
    answer = call(gateway, "asset.delete-permanently", {"libraryId": library,
                                                        "assetIds": assets}, READER)
    assert code(answer) == "PERMISSION_DENIED"
    assert gateway.challenges.open_count() == 0


def test_an_expired_challenge_changes_nothing(tmp_path: Path) -> None:
    from serpent_tk.paths import app_dirs
    from serpent_tk.settings import SettingsStore
    from tests.automation.conftest import TIMEOUT
    clock = Clock()
    gateway = Gateway(SettingsStore(app_dirs().settings_file),
                      challenges=ChallengeStore(ttl_s=300, clock=clock), strict_outputs=True)
    try:
        parent = tmp_path / "libraries"
        parent.mkdir()
        library = ok(gateway, "library.create", {"selectedParentPath": str(parent),
                                                 "name": "Old"})["libraryId"]
        assets = import_images(gateway, library, tmp_path / "src", 1)
        ok(gateway, "asset.trash", {"libraryId": library, "assetIds": assets})
        answer = first_call(gateway, "trash.empty", {"libraryId": library})
        clock.now += 301
        late = gateway.submit("trash.empty", {"libraryId": library,
                                              "confirmChallenge": answer["challenge"]["id"]},
                              CLAUDE).result(TIMEOUT)
        assert code(late) == "CHALLENGE_INVALID"
        assert ok(gateway, "trash.list", {"libraryId": library})["total"] == 1
    finally:
        gateway.shutdown()


@pytest.fixture
def two_libraries(gateway: Gateway, library: str, tmp_path: Path) -> tuple[str, str]:
    other = ok(gateway, "library.create", {"selectedParentPath": str(tmp_path / "libraries"),
                                           "name": "Other"})["libraryId"]
    return library, other


@pytest.mark.parametrize("change", ["credential", "command", "arguments", "library",
                                    "version", "target-gone", "source"])
def test_a_change_between_the_calls_is_refused(gateway: Gateway, two_libraries: tuple[str, str],
                                               tmp_path: Path, change: str) -> None:
    library, other = two_libraries
    assets = import_images(gateway, library, tmp_path / "src", 3)
    import_images(gateway, other, tmp_path / "src2", 1, prefix="other")
    args = {"libraryId": library, "assetIds": assets[:2]}
    answer = first_call(gateway, "asset.delete-permanently", args)
    second: dict[str, Any] = {**args, "confirmChallenge": answer["challenge"]["id"]}
    name, caller = "asset.delete-permanently", CLAUDE
    if change == "credential":
        caller = Caller.mcp("cursor", "auto", "Cursor")
    elif change == "source":
        caller = UI
    elif change == "command":
        name = "trash.empty"
        second = {"libraryId": library, "confirmChallenge": answer["challenge"]["id"]}
    elif change == "arguments":
        second["assetIds"] = assets[:1]
    elif change == "library":
        second["libraryId"] = other
        second["assetIds"] = assets[:2]
    elif change == "version":
        ok(gateway, "asset.update", {"libraryId": library, "assetId": assets[0], "rating": 3})
    elif change == "target-gone":
        first = first_call(gateway, "asset.delete-permanently",
                           {"libraryId": library, "assetIds": [assets[1]]})
        ok(gateway, "asset.delete-permanently", {"libraryId": library, "assetIds": [assets[1]],
                                                 "confirmChallenge": first["challenge"]["id"]},
           CLAUDE)
    sequence = ok(gateway, "library.change-sequence", {"libraryId": library})
    other_sequence = ok(gateway, "library.change-sequence", {"libraryId": other})
    refused = call(gateway, name, second, caller)
    assert code(refused) == "CHALLENGE_INVALID", refused
    assert "Nothing was changed" in refused["error"]["message"]
    assert ok(gateway, "library.change-sequence", {"libraryId": library}) == sequence
    assert ok(gateway, "library.change-sequence", {"libraryId": other}) == other_sequence
    expected = set(assets) - ({assets[1]} if change == "target-gone" else set())
    assert present(gateway, library, assets) == expected


def test_trash_empty_binds_what_is_in_the_trash(gateway: Gateway, library: str,
                                                tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 3)
    ok(gateway, "asset.trash", {"libraryId": library, "assetIds": assets[:2]}, CLAUDE)
    answer = first_call(gateway, "trash.empty", {"libraryId": library})
    assert answer["riskReport"]["count"] == 2
    ok(gateway, "asset.trash", {"libraryId": library, "assetIds": assets[2:]}, CLAUDE)
    refused = call(gateway, "trash.empty", {"libraryId": library,
                                            "confirmChallenge": answer["challenge"]["id"]},
                   CLAUDE)
    assert code(refused) == "CHALLENGE_INVALID"
    assert ok(gateway, "trash.list", {"libraryId": library})["total"] == 3
    answer = first_call(gateway, "trash.empty", {"libraryId": library})
    emptied = ok(gateway, "trash.empty", {"libraryId": library,
                                          "confirmChallenge": answer["challenge"]["id"]},
                 CLAUDE)
    assert emptied["deleted"] == 3
    assert ok(gateway, "trash.list", {"libraryId": library})["items"] == []


def test_a_made_up_challenge_is_refused(gateway: Gateway, library: str,
                                        tmp_path: Path) -> None:
    assets = import_images(gateway, library, tmp_path / "src", 1)
    answer = call(gateway, "asset.delete-permanently", {
        "libraryId": library, "assetIds": assets, "confirmChallenge": "ch_guessed"}, FULL)
    assert code(answer) == "CHALLENGE_INVALID"
    assert present(gateway, library, assets) == set(assets)


def test_two_simultaneous_confirmations_run_once(gateway: Gateway, library: str,
                                                 tmp_path: Path) -> None:
    from tests.automation.conftest import TIMEOUT
    assets = import_images(gateway, library, tmp_path / "src", 2)
    answer = first_call(gateway, "asset.delete-permanently",
                        {"libraryId": library, "assetIds": assets})
    args = {"libraryId": library, "assetIds": assets,
            "confirmChallenge": answer["challenge"]["id"]}
    futures = [gateway.submit("asset.delete-permanently", args, CLAUDE) for _ in range(4)]
    outcomes = sorted(f.result(TIMEOUT)["status"] for f in futures)
    assert outcomes == ["error", "error", "error", "ok"]
    assert ok(gateway, "library.info", {"libraryId": library})["assetCount"] == 0
