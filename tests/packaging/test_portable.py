"""Settings export/import: a round trip to a fresh machine, secrets only when asked, bad files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from serpent_tk.credentials import CredentialStore
from serpent_tk.paths import app_dirs
from serpent_tk.portable import (
    FORMAT_VERSION,
    PortableSettingsError,
    export_settings,
    import_settings,
    locate_library,
    missing_libraries,
    read_settings_file,
)
from serpent_tk.settings import SETTINGS_VERSION, PluginSettings, Settings, SettingsStore
from tests.conftest import ROOT, serpent_command


def make_library(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "library.sqlite").write_bytes(b"")
    return path


@pytest.fixture
def old_machine(tmp_path: Path) -> dict[str, object]:
    """The machine the person leaves: two libraries (one lives only there), a credential."""
    home = Path(os.environ["HOME"])
    refs = make_library(home / "Art" / "Refs.serpent")
    only_here = make_library(home / "Old Stuff.serpent")
    dirs = app_dirs().ensure()

    def change(settings: Settings) -> None:
        settings.mcp.port = 50123
        settings.ui.theme = "dark"
        settings.plugins["palette"] = PluginSettings(enabled=True, exposed=True)
        settings.remember_library(only_here, "Old Stuff")
        settings.remember_library(refs, "Refs")

    SettingsStore(dirs.settings_file).update(change)
    store = CredentialStore(dirs.credentials_file)
    _credential, token = store.create("claude", "full-access")
    store.set_toolset("claude", "everything")
    store.create("cursor", "auto")  # the essentials, as every new credential
    return {"refs": refs, "token": token}


def move_to_new_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    """Another user data dir and another home folder (another user name, another machine)."""
    home = tmp_path / f"home-{name}"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("SERPENT_USER_DATA_PATH", str(tmp_path / f"data-{name}"))
    return home


def test_round_trip_to_a_fresh_machine_without_credentials(
        old_machine: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = tmp_path / "serpent-settings.json"
    report = export_settings(exported, include_credentials=False)
    assert report.libraries == 2 and report.credentials == 0
    text = exported.read_text(encoding="utf-8")
    assert str(old_machine["token"]) not in text and "credentials" not in json.loads(text)
    assert str(tmp_path) not in text, "library paths under home are home-relative"
    assert "~/Art/Refs.serpent" in text

    new_home = move_to_new_machine(tmp_path, monkeypatch, "new")
    copied = make_library(new_home / "Art" / "Refs.serpent")
    imported = import_settings(exported)

    assert imported.found == [copied]
    assert [(m.name, m.path) for m in imported.missing] == [("Old Stuff", "~/Old Stuff.serpent")]
    assert imported.missing[0].expected_at == new_home / "Old Stuff.serpent"
    assert imported.missing[0].label == "Old Stuff — missing — locate…"
    assert imported.backup is None, "a fresh machine had no settings to keep"
    assert imported.credentials_added == []

    settings = SettingsStore(app_dirs().settings_file).load().settings
    assert settings.mcp.port == 50123 and settings.ui.theme == "dark"
    assert settings.plugins == {"palette": PluginSettings(enabled=True, exposed=True)}
    assert [r.name for r in settings.recent_libraries] == ["Refs", "Old Stuff"]
    assert settings.recent_libraries[0].path == copied
    assert settings.last_library == copied
    assert CredentialStore(app_dirs().credentials_file).list() == []
    assert [m.name for m in missing_libraries(settings)] == ["Old Stuff"]


def test_credentials_travel_only_when_asked_and_the_file_is_owner_only(
        old_machine: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = tmp_path / "with-secrets.json"
    report = export_settings(exported, include_credentials=True)
    assert report.credentials == 2
    if os.name == "posix":
        assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    assert str(old_machine["token"]) in exported.read_text(encoding="utf-8")

    move_to_new_machine(tmp_path, monkeypatch, "new")
    imported = import_settings(exported)
    assert imported.credentials_added == ["claude", "cursor"]
    store = CredentialStore(app_dirs().credentials_file)
    credential = store.verify(str(old_machine["token"]))
    assert credential is not None, "a pasted client config keeps working on the new machine"
    assert credential.name == "claude" and credential.mode == "full-access"
    assert credential.toolset == "everything"  # the toolset travels with the credential
    assert store.get("cursor").toolset == "essentials"  # type: ignore[union-attr]
    if os.name == "posix":
        assert stat.S_IMODE(app_dirs().credentials_file.stat().st_mode) == 0o600


def test_importing_can_leave_the_credentials_out(
        old_machine: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = tmp_path / "with-secrets.json"
    export_settings(exported, include_credentials=True)
    move_to_new_machine(tmp_path, monkeypatch, "new")
    imported = import_settings(exported, include_credentials=False)
    assert imported.credentials_added == []
    assert CredentialStore(app_dirs().credentials_file).list() == []


def test_a_credential_of_the_same_name_on_this_machine_is_kept(
        old_machine: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = tmp_path / "with-secrets.json"
    export_settings(exported, include_credentials=True)
    move_to_new_machine(tmp_path, monkeypatch, "new")
    store = CredentialStore(app_dirs().ensure().credentials_file)
    _mine, my_token = store.create("Claude", "read-only")
    imported = import_settings(exported)
    assert imported.credentials_skipped == ["claude"]
    assert any("Claude" in n or "claude" in n for n in imported.notices)
    assert store.verify(my_token) is not None
    assert store.verify(str(old_machine["token"])) is None


def test_import_keeps_this_machines_other_libraries_and_a_backup(
        old_machine: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = tmp_path / "settings.json"
    export_settings(exported)
    new_home = move_to_new_machine(tmp_path, monkeypatch, "new")
    local = make_library(new_home / "Local.serpent")
    store = SettingsStore(app_dirs().ensure().settings_file)
    store.update(lambda s: s.remember_library(local, "Local"))
    before = store.path.read_bytes()

    imported = import_settings(exported)
    assert imported.backup is not None and imported.backup.read_bytes() == before
    names = [r.name for r in store.load().settings.recent_libraries]
    assert names == ["Refs", "Old Stuff", "Local"]
    assert any("MCP port is now 50123" in n for n in imported.notices)


BAD_FILES = [
    (b"{not json", "corrupt"),
    (b"\xff\xfe\x00", "corrupt"),
    (b"", "corrupt"),
    (b"[1, 2]", "not_settings"),
    (json.dumps({"version": 1, "mcp": {"port": 1}}).encode(), "not_settings"),   # settings.json
    (json.dumps({"format": "serpent-settings", "version": FORMAT_VERSION + 1,
                 "exportedAt": "2030-01-01T00:00:00Z", "settings": {}}).encode(), "newer"),
    (json.dumps({"format": "serpent-settings", "version": 1, "exportedAt": "2030-01-01T00:00:00Z",
                 "settings": {"version": SETTINGS_VERSION + 1}}).encode(), "newer"),
    (json.dumps({"format": "serpent-settings", "version": 1, "exportedAt": "2030-01-01T00:00:00Z",
                 "settings": {"mcp": {"port": 80}}}).encode(), "corrupt"),
    (json.dumps({"format": "serpent-settings", "version": 1, "exportedAt": "2030-01-01T00:00:00Z",
                 "settings": {}, "credentials": [{"name": "x", "mode": "god",
                                                  "token": "t" * 32,
                                                  "createdAt": "2030-01-01T00:00:00Z"}]}
                ).encode(), "corrupt"),
    (json.dumps({"format": "serpent-settings", "version": 1, "settings": {}}).encode(),
     "corrupt"),                                                                  # no exportedAt
]


@pytest.mark.parametrize(("content", "reason"), BAD_FILES)
def test_a_bad_or_newer_file_changes_nothing(old_machine: dict[str, object], tmp_path: Path,
                                             content: bytes, reason: str) -> None:
    dirs = app_dirs()
    settings_before = dirs.settings_file.read_bytes()
    credentials_before = dirs.credentials_file.read_bytes()
    files_before = sorted(dirs.config.iterdir())
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises(PortableSettingsError) as caught:
        import_settings(bad)
    assert caught.value.reason == reason
    assert "Traceback" not in caught.value.message
    if reason == "newer":
        assert "newer Serpent" in caught.value.message
    assert dirs.settings_file.read_bytes() == settings_before
    assert dirs.credentials_file.read_bytes() == credentials_before
    assert sorted(dirs.config.iterdir()) == files_before, "no backup, no temp file"


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(PortableSettingsError) as caught:
        read_settings_file(tmp_path / "nope.json")
    assert caught.value.reason == "not_found"


def test_export_into_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PortableSettingsError) as caught:
        export_settings(tmp_path / "no-such-folder" / "s.json")
    assert caught.value.reason == "target"
    with pytest.raises(PortableSettingsError):
        export_settings(tmp_path)  # a folder, not a file


def foreign_file(tmp_path: Path) -> Path:
    """A file exported on Windows with a library on another drive (not under home)."""
    document = {
        "format": "serpent-settings", "version": 1, "exportedAt": "2026-05-01T10:00:00Z",
        "platform": "win32",
        "settings": {"version": 1, "mcp": {"port": 47615},
                     "recent_libraries": [
                         {"path": "D:\\Art\\Refs.serpent", "name": "Drive D Refs"},
                         {"path": "~\\Pictures\\Home.serpent", "name": "Home Refs"}],
                     "last_library": "D:\\Art\\Refs.serpent"},
    }
    path = tmp_path / "from-windows.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.skipif(os.name == "nt", reason="a Windows drive path is foreign only elsewhere")
def test_another_os_path_is_listed_missing_and_can_be_located(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    make_library(home / "Pictures" / "Home.serpent")
    imported = import_settings(foreign_file(tmp_path))
    assert [m.name for m in imported.missing] == ["Drive D Refs"]
    missing = imported.missing[0]
    assert missing.path == "D:\\Art\\Refs.serpent" and missing.expected_at is None
    assert missing.kept is False
    assert imported.found == [home / "Pictures" / "Home.serpent"]
    store = SettingsStore(app_dirs().settings_file)
    saved = store.load().settings
    assert [r.name for r in saved.recent_libraries] == ["Home Refs"]
    assert saved.last_library is None, "no last library this OS cannot hold"
    assert str(Path.cwd()) not in store.path.read_text(encoding="utf-8")

    real = make_library(tmp_path / "mnt" / "art" / "Refs.serpent")
    settings = locate_library(missing, real)
    assert [(r.name, r.path) for r in settings.recent_libraries][0] == ("Drive D Refs", real)
    assert missing_libraries(settings) == []


def test_locating_a_missing_library_replaces_it_in_place(
        old_machine: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exported = tmp_path / "s.json"
    export_settings(exported)
    move_to_new_machine(tmp_path, monkeypatch, "new")
    imported = import_settings(exported)
    (gone,) = [m for m in imported.missing if m.name == "Old Stuff"]
    with pytest.raises(PortableSettingsError):
        locate_library(gone, tmp_path / "not-a-library")
    found = make_library(tmp_path / "usb" / "Old Stuff.serpent")
    settings = locate_library(gone, found)
    assert [(r.name, r.path) for r in settings.recent_libraries][1] == ("Old Stuff", found)
    assert len(settings.recent_libraries) == 2


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(serpent_command(*args), cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def test_the_command_line_exports_and_imports(old_machine: dict[str, object],
                                              tmp_path: Path) -> None:
    exported = tmp_path / "cli.json"
    env = dict(os.environ)
    done = run_cli("settings", "export", str(exported), "--include-credentials", env=env)
    assert done.returncode == 0, done.stderr
    assert "2 credentials" in done.stdout and "keep it private" in done.stdout
    assert str(old_machine["token"]) not in done.stdout + done.stderr

    new_home = tmp_path / "home-cli"
    (new_home / "Art").mkdir(parents=True)
    make_library(new_home / "Art" / "Refs.serpent")
    env.update(HOME=str(new_home), USERPROFILE=str(new_home),
               SERPENT_USER_DATA_PATH=str(tmp_path / "data-cli"))
    done = run_cli("settings", "import", str(exported), env=env)
    assert done.returncode == 0, done.stderr
    assert "found" in done.stdout and "Refs.serpent" in done.stdout
    assert "missing  Old Stuff" in done.stdout
    assert "Credentials added: claude" in done.stdout

    garbage = tmp_path / "garbage.json"
    garbage.write_text("{", encoding="utf-8")
    done = run_cli("settings", "import", str(garbage), env=env)
    assert done.returncode == 1
    assert "damaged" in done.stderr and "Traceback" not in done.stderr
