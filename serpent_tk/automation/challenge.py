"""One-time challenges for dangerous commands (docs/contracts.md §2).

Thread-safe. A first call gets a challenge bound to the caller's credential, the command, the
normalized arguments, the libraryId, and the plan's target ids with their versions. Only the
exact second call redeems it, once. Replayed, expired or mismatched → `CHALLENGE_INVALID`.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from library.errors import CHALLENGE_INVALID, LibraryError

DEFAULT_TTL_S = 300.0
MAX_OPEN_CHALLENGES = 1000


def normalized(arguments: dict[str, Any]) -> str:
    """Canonical JSON of validated arguments: key order and spacing never matter."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def target_versions(targets: Iterable[dict[str, Any]]) -> tuple[tuple[str, int], ...]:
    """(id, version) of each plan target, in a stable order."""
    return tuple(sorted((str(t["id"]), int(t.get("version", 0))) for t in targets))


@dataclass(frozen=True)
class Binding:
    """Everything a challenge is bound to."""

    caller_key: str
    command: str
    arguments: str  # normalized()
    library_id: str | None
    targets: tuple[tuple[str, int], ...]
    state_token: str | None = None  # the plan's token over all targets (also unlisted ones)


@dataclass(frozen=True)
class Challenge:
    id: str
    expires_at: float  # time.time()
    binding: Binding

    @property
    def expires_at_iso(self) -> str:
        return datetime.fromtimestamp(self.expires_at, UTC).isoformat(timespec="seconds")


def invalid(reason: str) -> LibraryError:
    return LibraryError(CHALLENGE_INVALID, f"The confirmation is not valid: {reason}. Nothing "
                        "was changed; call again without confirmChallenge for a new one.")


class ChallengeStore:
    """Issues and redeems challenges. Thread-safe."""

    def __init__(self, ttl_s: float = DEFAULT_TTL_S,
                 clock: Callable[[], float] = time.time) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._open: dict[str, Challenge] = {}

    def issue(self, binding: Binding) -> Challenge:
        challenge = Challenge(id="ch_" + secrets.token_urlsafe(18),
                              expires_at=self._clock() + self.ttl_s, binding=binding)
        with self._lock:
            self._prune()
            if len(self._open) >= MAX_OPEN_CHALLENGES:  # the oldest go first
                for old in sorted(self._open.values(), key=lambda c: c.expires_at)[
                        :len(self._open) - MAX_OPEN_CHALLENGES + 1]:
                    del self._open[old.id]
            self._open[challenge.id] = challenge
        return challenge

    def redeem(self, challenge_id: str, binding: Binding) -> Challenge:
        """Check the call's binding (targets are checked later with `check_targets`).

        A match takes the challenge out of the store: it can never be used again. A call
        from another credential, or for another command, library or arguments, is refused
        and leaves the challenge for its rightful owner.
        """
        with self._lock:
            self._prune()
            challenge = self._open.get(challenge_id) if isinstance(challenge_id, str) else None
            if challenge is None:
                raise invalid("it is unknown, expired or already used")
            expected = challenge.binding
            if not hmac.compare_digest(expected.caller_key, binding.caller_key):
                raise invalid("it was issued to another client")
            if expected.command != binding.command:
                raise invalid(f"it was issued for {expected.command}")
            if expected.library_id != binding.library_id:
                raise invalid("it was issued for another library")
            if expected.arguments != binding.arguments:
                raise invalid("the arguments differ from the first call")
            del self._open[challenge_id]
            return challenge

    def give_back(self, challenge: Challenge) -> None:
        """Undo a redeem whose command never ran (the worker was restarting): retry works."""
        with self._lock:
            if challenge.expires_at > self._clock():
                self._open[challenge.id] = challenge

    @staticmethod
    def check_targets(challenge: Challenge, targets: tuple[tuple[str, int], ...],
                      state_token: str | None = None) -> None:
        """The plan now must name the same targets at the same versions as when issued."""
        bound = challenge.binding
        if bound.targets != targets or bound.state_token != state_token:
            raise invalid("what would be deleted has changed since the first call")

    def open_count(self) -> int:
        with self._lock:
            self._prune()
            return len(self._open)

    def _prune(self) -> None:
        now = self._clock()
        for key in [k for k, c in self._open.items() if c.expires_at <= now]:
            del self._open[key]
