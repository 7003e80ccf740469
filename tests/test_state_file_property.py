"""Property: no state file stops Serpent. Hypothesis writes settings, credential, plugin-status,
endpoint, single-instance and import-key files of any nesting depth, size and type, and every
reader answers with what the file means or with the defaults and a sentence: it never raises,
and a damaged settings file is kept aside whole (`settings.json.corrupt-<time>`), never lost."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from library.import_replays import ImportReplays, Replay
from library.private_paths import secret_content
from serpent_tk.credentials import CredentialStore
from serpent_tk.mcp.endpoint import read_endpoint
from serpent_tk.plugins.state import read_status_file
from serpent_tk.portable import PortableSettingsError, read_settings_file
from serpent_tk.settings import Settings, SettingsStore
from serpent_tk.single_instance import read_instance_info

EXAMPLES = 60
HUGE = 17 * 1024 * 1024  # beyond the 16 MiB any state file may have
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow, HealthCheck.data_too_large])

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=10**30)
           | st.floats(allow_nan=False) | st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=16)


def deep(depth: int, opener: str, closer: str, middle: str) -> str:
    return opener * depth + middle + closer * depth


nested = st.builds(deep, st.integers(1, 250_000),
                   st.sampled_from(["[", '{"a":', '{"mcp":', '{"credentials":[']),
                   st.sampled_from(["]", "}", "]}"]), st.sampled_from(["", "1", "[]", "{}"]))


def shaped(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    """JSON objects with the file's own keys, each holding a value of any type."""
    return st.fixed_dictionaries({}, optional={k: v | values for k, v in fields.items()}).map(
        json.dumps)


settings_like = shaped(
    version=st.integers(), mcp=st.fixed_dictionaries({}, optional={
        "port": st.integers(), "enabled": values, "output_budget_kib": st.integers()}),
    ui=st.fixed_dictionaries({}, optional={
        "theme": st.text(max_size=8), "window_geometry": st.text(max_size=20),
        "thumbnail_size": st.integers()}),
    recent_libraries=st.lists(st.fixed_dictionaries({}, optional={
        "path": st.text(max_size=20), "name": values, "last_opened": values}), max_size=3),
    last_library=st.text(max_size=20),
    plugins=st.dictionaries(st.text(max_size=8), values, max_size=3))
credentials_like = shaped(version=st.integers(), credentials=st.lists(st.fixed_dictionaries(
    {}, optional={"id": values, "name": values, "mode": st.sampled_from(["auto", "x"]),
                  "token": st.text(min_size=10, max_size=40), "createdAt": st.text(max_size=30),
                  "lastUsedAt": values, "toolset": values}), max_size=3))
endpoint_like = shaped(url=values, port=st.integers(), pid=st.integers(),
                       secret=st.text(min_size=30, max_size=40))
status_like = shaped(pid=st.integers(), updatedAt=values, plugins=values)
keys_like = shaped(version=st.integers(), entries=st.dictionaries(
    st.just("mcp:x\nk"), st.fixed_dictionaries({}, optional={
        "digest": values, "path": values, "at": values}), max_size=2))


class Huge(bytes):
    """A file beyond any state file's size, shown short when an example fails."""

    def __repr__(self) -> str:
        return f"Huge({len(self)} bytes)"


class Deep(bytes):
    def __repr__(self) -> str:
        return f"Deep({bytes(self[:12])!r}...{len(self)} bytes)"


def contents(own: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    return st.one_of(own.map(str.encode), values.map(lambda v: json.dumps(v).encode()),
                     nested.map(lambda text: Deep(text.encode())), st.binary(max_size=64),
                     st.just(Huge(b"{" * 10 + b" " * HUGE)))


def fresh_folder() -> Path:
    """A folder of its own for one example (the test's user data folder holds them)."""
    root = Path(os.environ["SERPENT_USER_DATA_PATH"])
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="state-", dir=root))


@PROPERTY
@given(contents(settings_like))
def test_settings_are_read_or_kept_aside_whole(data: bytes) -> None:
    folder = fresh_folder()
    path = folder / "settings.json"
    path.write_bytes(data)
    loaded = SettingsStore(path).load()
    if loaded.notices:
        assert loaded.settings == Settings()
        assert not path.exists()
        kept = list(folder.glob("settings.json.*-*"))
        assert len(kept) == 1 and kept[0].read_bytes() == data
        assert kept[0].name in loaded.notices[0]
    else:
        assert path.read_bytes() == data  # read as it is, left as it is
    SettingsStore(path).save(loaded.settings)  # whatever was read can be written back
    assert not SettingsStore(path).load().notices


@PROPERTY
@given(contents(credentials_like))
def test_credentials_are_read_or_said_damaged(data: bytes) -> None:
    folder = fresh_folder()
    path = folder / "credentials.json"
    path.write_bytes(data)
    store = CredentialStore(path)
    problem = store.problem()
    assert problem is None or "is damaged" in problem, problem
    assert store.verify("not-a-token-at-all") is None
    store.list()
    store.create("A new client")  # always possible: a damaged file is kept aside first
    if problem is not None:
        assert [p.read_bytes() for p in folder.glob("credentials.json.corrupt-*")] == [data]
    assert CredentialStore(path).problem() is None


@PROPERTY
@given(contents(endpoint_like), contents(status_like), contents(keys_like))
def test_endpoint_status_instance_and_import_keys_never_raise(
        endpoint: bytes, status: bytes, keys: bytes) -> None:
    folder = fresh_folder()
    files = {name: folder / name for name in ("mcp-endpoint.json", "plugins-status.json",
                                              "instance.json", "import-keys.json")}
    for name, data in zip(files, (endpoint, status, endpoint, keys), strict=True):
        files[name].write_bytes(data)
        files[name].chmod(0o600)
    read_endpoint(files["mcp-endpoint.json"])
    answer = read_status_file(files["plugins-status.json"])
    assert answer is None or isinstance(answer.get("plugins"), dict)
    read_instance_info(files["instance.json"])
    replays = ImportReplays(files["import-keys.json"])
    replay = Replay("mcp:x", "k", "digest")
    try:
        replays.lookup(replay)
    except Exception as error:  # the key reused with other arguments: a stable refusal
        assert getattr(error, "code", None) == "INVALID_ARGUMENT", error
    replays.remember(replay, folder)
    assert secret_content(endpoint) in (True, False)


@PROPERTY
@given(contents(shaped(format=st.just("serpent-settings"), version=st.integers(),
                       settings=settings_like.map(json.loads))))
def test_a_settings_file_to_import_is_read_or_refused_in_words(data: bytes) -> None:
    path = fresh_folder() / "incoming.json"
    path.write_bytes(data)
    try:
        read_settings_file(path)
    except PortableSettingsError as error:
        assert error.args and "Traceback" not in str(error)
