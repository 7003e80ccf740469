"""The credential store: tokens, modes, revocation seen across processes, owner-only file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from serpent_tk.credentials import CredentialError, CredentialStore
from serpent_tk.logs import redact


@pytest.fixture
def store(tmp_path: Path) -> CredentialStore:
    return CredentialStore(tmp_path / "config" / "credentials.json")


def test_a_new_credential_verifies_with_its_token_only(store: CredentialStore) -> None:
    cred, token = store.create("Claude Desktop")
    assert cred.mode == "auto"
    assert len(token) >= 40
    assert store.verify(token) == store.get("Claude Desktop")
    assert store.verify(token + "x") is None
    assert store.verify("") is None
    assert store.verify(token[:-1]) is None


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_the_file_is_readable_by_its_owner_only(store: CredentialStore) -> None:
    store.create("a")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    store.set_mode("a", "read-only")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_modes_persist_per_credential_and_stay_isolated(store: CredentialStore) -> None:
    _, ro = store.create("viewer", "read-only")
    _, auto = store.create("helper")
    _, full = store.create("admin", "full-access")
    store.set_mode("helper", "full-access")
    reopened = CredentialStore(store.path)
    assert reopened.verify(ro).mode == "read-only"  # type: ignore[union-attr]
    assert reopened.verify(auto).mode == "full-access"  # type: ignore[union-attr]
    assert reopened.verify(full).mode == "full-access"  # type: ignore[union-attr]
    assert [c.name for c in reopened.list()] == ["viewer", "helper", "admin"]
    assert reopened.verify(ro).name == "viewer"  # type: ignore[union-attr]


def test_toolsets_new_ones_get_the_essentials_stored_ones_keep_everything(
        store: CredentialStore) -> None:
    cred, token = store.create("Cursor")
    assert cred.toolset == "essentials"
    store.set_toolset("Cursor", "everything")
    assert CredentialStore(store.path).verify(token).toolset == "everything"  # type: ignore[union-attr]
    with pytest.raises(CredentialError, match="Unknown toolset"):
        store.set_toolset("Cursor", "all")
    with pytest.raises(CredentialError, match="No credential"):
        store.set_toolset("nobody", "essentials")
    # a credential stored before toolsets existed was made when every tool was listed: its
    # client keeps seeing everything
    data = json.loads(store.path.read_text())
    for item in data["credentials"]:
        del item["toolset"]
    store.path.write_text(json.dumps(data))
    assert CredentialStore(store.path).get("Cursor").toolset == "everything"  # type: ignore[union-attr]


def test_bad_requests_get_clear_errors_and_change_nothing(store: CredentialStore) -> None:
    store.create("one")
    before = store.path.read_text()
    with pytest.raises(CredentialError, match="already exists"):
        store.create("ONE")
    with pytest.raises(CredentialError, match="No credential"):
        store.revoke("two")
    with pytest.raises(CredentialError, match="Unknown mode"):
        store.set_mode("one", "admin")
    with pytest.raises(CredentialError, match="empty"):
        store.create("   ")
    with pytest.raises(CredentialError):
        store.create("a\nb")
    assert store.path.read_text() == before


def test_a_change_made_by_another_process_applies_at_the_next_verify(
        store: CredentialStore) -> None:
    _, token = store.create("cursor")
    _, other = store.create("zed", "read-only")
    assert store.verify(token) is not None
    script = ("import sys; from pathlib import Path; from serpent_tk.credentials import "
              "CredentialStore as S; s = S(Path(sys.argv[1])); s.revoke('cursor'); "
              "s.set_mode('zed', 'full-access')")
    subprocess.run([sys.executable, "-c", script, str(store.path)], check=True, timeout=60)
    assert store.verify(token) is None
    assert store.verify(other).mode == "full-access"  # type: ignore[union-attr]


def test_token_for_returns_the_token_for_config_snippets(store: CredentialStore) -> None:
    _, token = store.create("vscode")
    assert store.token_for("VSCode") == token
    with pytest.raises(CredentialError):
        store.token_for("nope")


def test_tokens_never_reach_logs(store: CredentialStore) -> None:
    _, token = store.create("codex")
    assert token not in redact(f"request with {token} failed")
    CredentialStore(store.path).list()  # a fresh process registers what it loads, too


def test_last_use_is_recorded(store: CredentialStore) -> None:
    cred, token = store.create("gemini")
    assert cred.last_used_at is None
    store.touch("gemini")
    assert store.get("gemini").last_used_at is not None  # type: ignore[union-attr]
    on_disk = json.loads(store.path.read_text())["credentials"][0]
    assert on_disk["lastUsedAt"] is not None
    assert store.verify(token) is not None


def test_concurrent_writers_lose_nothing(store: CredentialStore) -> None:
    def make(index: int) -> None:
        CredentialStore(store.path).create(f"client-{index}")

    threads = [threading.Thread(target=make, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.list()) == 12


def test_a_damaged_file_is_kept_and_never_overwritten(store: CredentialStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{not json")
    assert store.list() == []
    store.create("fresh")
    backups = list(store.path.parent.glob("credentials.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text() == "{not json"
    assert [c.name for c in store.list()] == ["fresh"]


def test_adopt_keeps_an_existing_token(store: CredentialStore) -> None:
    token = "imported-token-from-another-computer-0123456789"
    cred = store.adopt("Cursor", "read-only", token)
    assert store.verify(token) == cred
    with pytest.raises(CredentialError, match="already exists"):
        store.adopt("cursor", "auto", token + "x")
    with pytest.raises(CredentialError, match="another credential"):
        store.adopt("Other", "auto", token)
    with pytest.raises(CredentialError, match="16"):
        store.adopt("Short", "auto", "abc")
