"""Where Serpent keeps its state: user data, config, log and cache directories.

Thread-safe (pure functions). `SERPENT_USER_DATA_PATH=DIR` moves every piece of state under
DIR (tests and end-to-end runs always set it), otherwise platformdirs picks the per-OS
locations. Nothing here creates a directory until `ensure()` is called (or `machine_name`,
which keeps its name in the data folder).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from library.library_folder import LIBRARY_SUFFIX
from serpent_tk import APP_NAME

USER_DATA_ENV = "SERPENT_USER_DATA_PATH"
DEFAULT_LIBRARY_NAME = "My Library"


@dataclass(frozen=True)
class AppDirs:
    data: Path
    config: Path
    log: Path
    cache: Path

    def ensure(self) -> AppDirs:
        for directory in (self.data, self.config, self.log, self.cache):
            directory.mkdir(parents=True, exist_ok=True)
        return self

    @property
    def settings_file(self) -> Path:
        return self.config / "settings.json"

    @property
    def credentials_file(self) -> Path:
        return self.config / "credentials.json"

    @property
    def instance_lock(self) -> Path:
        return self.data / "instance.lock"

    @property
    def instance_info(self) -> Path:
        return self.data / "instance.json"

    @property
    def private_roots(self) -> tuple[Path, ...]:
        """Serpent's own folders: never a source to import from (`library.private_paths`)."""
        return (self.config, self.log, self.data, self.cache)

    @property
    def import_keys_file(self) -> Path:
        """`library.import-exported`'s idempotency keys (`library.import_replays`)."""
        return self.data / "import-keys.json"

    @property
    def machine_file(self) -> Path:
        """This Serpent's name among those that share a studio library (`machine_name`)."""
        return self.data / "machine.txt"

    @property
    def plugins(self) -> Path:
        """The person's plugins, one folder each (`<id>/plugin.toml` and its module)."""
        return self.data / "plugins"

    @property
    def plugin_status(self) -> Path:
        """How a running Serpent's plugins are doing, for `serpent-tk plugin list`."""
        return self.data / "plugins-status.json"

    @property
    def libraries(self) -> Path:
        """The folder where the default library and new libraries go unless told otherwise."""
        return self.data / "Libraries"

    @property
    def default_library(self) -> Path:
        return self.libraries / f"{DEFAULT_LIBRARY_NAME}{LIBRARY_SUFFIX}"


def app_dirs() -> AppDirs:
    override = os.environ.get(USER_DATA_ENV, "").strip()
    if override:
        root = Path(override).expanduser().resolve()
        return AppDirs(data=root / "data", config=root / "config", log=root / "logs",
                       cache=root / "cache")
    return AppDirs(
        data=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        config=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        log=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
        cache=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
    )


def machine_name(dirs: AppDirs) -> str:
    """This Serpent's name in a studio library's folder (its own lock and staging there):
    the computer's name and a random part kept in the data folder, so two user data folders
    on one computer are two machines (as the tests' two `serve` processes are)."""
    try:
        name = dirs.machine_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        name = ""
    if re.fullmatch(r"[a-z0-9-]{1,60}", name):
        return name
    host = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().lower()).strip("-")[:40]
    name = f"{host or 'machine'}-{secrets.token_hex(3)}"
    with contextlib.suppress(OSError):  # a read-only data folder: this run's name only
        dirs.data.mkdir(parents=True, exist_ok=True)
        dirs.machine_file.write_text(name + "\n", encoding="utf-8")
    return name


def to_portable(path: Path | str) -> str:
    """A path as stored in settings: home-relative (`~/...`, forward slashes) when under home.

    A settings file copied to another machine (or another OS) keeps pointing at the same place
    relative to that person's home folder.
    """
    absolute = Path(path).expanduser().absolute()
    home = Path.home().absolute()
    try:
        relative = absolute.relative_to(home)
    except ValueError:
        return str(absolute)
    parts = relative.as_posix()
    return "~" if parts == "." else f"~/{parts}"


def from_portable(text: str) -> Path:
    """Inverse of `to_portable` on this machine: `~/...` is expanded against this home."""
    if text == "~" or text.startswith(("~/", "~\\")):
        rest = text[2:].replace("\\", "/")
        return Path.home() / Path(*rest.split("/")) if rest else Path.home()
    return Path(text)
