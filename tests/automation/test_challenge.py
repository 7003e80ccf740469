"""The challenge store alone: one use, expiry, and every bound field (docs/contracts.md §2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from library.errors import CHALLENGE_INVALID, LibraryError
from serpent_tk.automation.challenge import Binding, ChallengeStore, normalized, target_versions

BINDING = Binding(caller_key="credential:claude", command="asset.delete-permanently",
                  arguments=normalized({"assetIds": ["ast_1", "ast_2"]}),
                  library_id="lib_a", targets=(("ast_1", 3), ("ast_2", 1)))


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def invalid(store: ChallengeStore, challenge_id: str, binding: Binding) -> LibraryError:
    with pytest.raises(LibraryError) as caught:
        store.redeem(challenge_id, binding)
    assert caught.value.code == CHALLENGE_INVALID
    assert "Nothing was changed" in caught.value.message
    return caught.value


def test_the_exact_binding_redeems_once() -> None:
    store = ChallengeStore()
    challenge = store.issue(BINDING)
    assert challenge.id.startswith("ch_") and len(challenge.id) > 20
    check = replace(BINDING, targets=())
    redeemed = store.redeem(challenge.id, check)
    store.check_targets(redeemed, BINDING.targets)
    invalid(store, challenge.id, check)  # replay


def test_expiry() -> None:
    clock = Clock()
    store = ChallengeStore(ttl_s=300, clock=clock)
    challenge = store.issue(BINDING)
    assert challenge.expires_at_iso.endswith("+00:00")
    clock.now += 301
    invalid(store, challenge.id, BINDING)
    assert store.open_count() == 0


@pytest.mark.parametrize("field,value", [
    ("caller_key", "credential:cursor"),
    ("caller_key", "source:ui"),
    ("command", "trash.empty"),
    ("arguments", normalized({"assetIds": ["ast_1"]})),
    ("library_id", "lib_b"),
])
def test_a_mismatch_is_refused_and_leaves_the_challenge_to_its_owner(field: str,
                                                                     value: str) -> None:
    store = ChallengeStore()
    challenge = store.issue(BINDING)
    invalid(store, challenge.id, replace(BINDING, **{field: value}))
    store.redeem(challenge.id, BINDING)  # the rightful second call still works


@pytest.mark.parametrize("targets", [
    (("ast_1", 4), ("ast_2", 1)),  # a version moved on
    (("ast_1", 3),),  # a target is gone
    (("ast_1", 3), ("ast_2", 1), ("ast_3", 1)),  # a target more
])
def test_targets_and_versions_must_match(targets: tuple[tuple[str, int], ...]) -> None:
    store = ChallengeStore()
    challenge = store.redeem(store.issue(BINDING).id, BINDING)
    with pytest.raises(LibraryError) as caught:
        store.check_targets(challenge, targets)
    assert caught.value.code == CHALLENGE_INVALID


def test_unknown_ids_are_refused() -> None:
    store = ChallengeStore()
    invalid(store, "ch_made_up", BINDING)
    invalid(store, "", BINDING)


def test_normalization_ignores_key_order_and_targets_their_order() -> None:
    assert normalized({"b": 1, "a": [2, 1]}) == normalized({"a": [2, 1], "b": 1})
    assert normalized({"a": [1, 2]}) != normalized({"a": [2, 1]})
    assert target_versions([{"id": "b", "version": 2}, {"id": "a", "version": 1}]) == \
        (("a", 1), ("b", 2))


def test_the_plan_state_token_is_bound_too() -> None:
    """Targets beyond the listed ones are covered by the plan's token over all of them."""
    store = ChallengeStore()
    challenge = store.redeem(store.issue(replace(BINDING, state_token="st_1")).id, BINDING)
    store.check_targets(challenge, BINDING.targets, "st_1")
    with pytest.raises(LibraryError):
        store.check_targets(challenge, BINDING.targets, "st_2")


def test_a_challenge_given_back_works_once_more_unless_expired() -> None:
    clock = Clock()
    store = ChallengeStore(ttl_s=300, clock=clock)
    challenge = store.redeem(store.issue(BINDING).id, BINDING)
    store.give_back(challenge)
    store.redeem(challenge.id, BINDING)
    clock.now += 301
    store.give_back(challenge)
    invalid(store, challenge.id, BINDING)
