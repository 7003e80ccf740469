"""Portable, versioned settings: the model, loading with recovery, and atomic saving.

Thread-safe: every save and read-modify-write holds a lock file beside it (`fcntl.flock`;
portalocker on Windows: `library.disk.locks`), so the window, `serve` and the CLI can share
one settings file. A file that cannot be read (bad JSON, bad values, a newer version) is
never lost and never crashes the app: it is backed up beside itself, defaults are used, and
`LoadResult.notices` says what happened so the UI can tell the person. A settings path that
is not a regular file (a folder, a named pipe...) is never opened, so it never hangs a
start: defaults are used, a notice says why, and saving fails with `NotARegularFile` (an
OSError) instead of replacing it. Paths under the home folder are stored as `~/...`.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    field_validator,
)

from library.disk import statejson
from library.disk.atomicfile import (
    NotARegularFile,
    atomic_write_text,
    check_regular_or_missing,
    read_state_file,
)
from library.disk.locks import locked
from serpent_tk.paths import from_portable, to_portable

log = logging.getLogger(__name__)

SETTINGS_VERSION = 2  # 2: `plugins` holds {enabled, exposed} per plugin id (was a bool)
DEFAULT_MCP_PORT = 47615
MAX_RECENT_LIBRARIES = 20
LOCK_TIMEOUT_S = 10.0
GEOMETRY = r"^\d{1,5}x\d{1,5}([+-]-?\d{1,5}[+-]-?\d{1,5})?$"  # what Tk takes back
MAX_VERSION = 10_000  # a bigger "version" is damage, not a newer Serpent


def _expand(value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise ValueError("a path cannot hold a NUL character")
    return from_portable(value) if isinstance(value, str) else value


PortablePath = Annotated[
    Path,
    BeforeValidator(_expand),
    PlainSerializer(to_portable, return_type=str, when_used="json"),
]


def _geometry_or_none(value: Any) -> Any:
    """A window geometry Tk would refuse (it stops the window) is forgotten, not kept."""
    return value if isinstance(value, str) and re.fullmatch(GEOMETRY, value) else None


Geometry = Annotated[str | None, BeforeValidator(_geometry_or_none)]
SLIDESHOW_SECONDS = 4


def _seconds_or_default(value: Any) -> Any:
    """A slideshow interval outside 1-60 s (a hand-edited file) gives the usual 4 s back; the
    rest of the settings stay."""
    whole = isinstance(value, int) and not isinstance(value, bool)
    return value if whole and 1 <= value <= 60 else SLIDESHOW_SECONDS


SlideSeconds = Annotated[int, BeforeValidator(_seconds_or_default)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class McpSettings(_Section):
    enabled: bool = True
    auto_start: bool = True
    port: int = Field(default=DEFAULT_MCP_PORT, ge=1024, le=65535)
    output_budget_kib: int = Field(default=128, ge=16, le=4096)


class UiSettings(_Section):
    theme: Literal["system", "light", "dark"] = "system"
    # the window's language: the system's, or one the window speaks (`ui/language`)
    language: Literal["system", "en", "zh_CN"] = "system"
    thumbnail_size: int = Field(default=160, ge=64, le=512)
    window_geometry: Geometry = None
    sidebar_width: int = Field(default=240, ge=120, le=800)
    inspector_width: int = Field(default=300, ge=160, le=900)
    show_empty_hint: bool = True
    # a parent folder's view shows its subfolders' assets too, and counts them (as Eagle)
    include_subfolders: bool = True
    sort: str = Field(default="added-desc", max_length=40)  # the grid's order, kept
    layout: Literal["grid", "justified", "list"] = "grid"   # square cells, justified, list
    slideshow_seconds: SlideSeconds = SLIDESHOW_SECONDS      # View → Slideshow interval
    # the window's size was saved at this many pixels per point (a screen of another scale
    # gets it scaled: a window saved at 96 dpi is twice as big on a 192-dpi screen)
    window_scale: float | None = Field(default=None, gt=0, le=20)
    # the person at this Serpent, as a studio library's history names them ("Anna's Claude
    # via MCP"); empty: the client alone
    person_name: str = Field(default="", max_length=60)


class PluginSettings(_Section):
    """One plugin's switches: run it at all, and offer its commands to full-access AI
    clients as MCP tools."""

    enabled: bool = False
    exposed: bool = False


def _plugin_switches(value: Any) -> Any:
    """Settings version 1 stored a plugin as one bool (enabled)."""
    return {"enabled": value} if isinstance(value, bool) else value


PluginSwitches = Annotated[PluginSettings, BeforeValidator(_plugin_switches)]


class RememberedLibrary(_Section):
    """A library the settings remember (the recent list): where it is, what it was called."""

    path: PortablePath
    name: str
    last_opened: datetime = Field(default_factory=lambda: datetime.now(UTC))


class Settings(_Section):
    version: int = SETTINGS_VERSION
    mcp: McpSettings = Field(default_factory=McpSettings)
    ui: UiSettings = Field(default_factory=UiSettings)
    recent_libraries: list[RememberedLibrary] = Field(default_factory=list)
    last_library: PortablePath | None = None
    plugins: dict[str, PluginSwitches] = Field(default_factory=dict)

    @field_validator("version", mode="after")
    @classmethod
    def _current(cls, version: int) -> int:
        """An older file is read as what it means now, and saved in today's version."""
        if version > MAX_VERSION:
            raise ValueError("not a settings version")
        return SETTINGS_VERSION

    def plugin(self, plugin_id: str) -> PluginSettings:
        """The switches of `plugin_id` (both off if the settings never named it)."""
        return self.plugins.get(plugin_id) or PluginSettings()

    def remember_library(self, path: Path, name: str) -> None:
        """Move `path` to the front of the recent list (most recent first, bounded)."""
        resolved = Path(path).expanduser().absolute()
        kept = [r for r in self.recent_libraries if Path(r.path).absolute() != resolved]
        self.recent_libraries = [RememberedLibrary(path=resolved, name=name), *kept][
            :MAX_RECENT_LIBRARIES
        ]
        self.last_library = resolved


@dataclass
class LoadResult:
    settings: Settings
    notices: list[str] = field(default_factory=list)


class SettingsStore:
    """Loads and saves one settings file. Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock_path = self.path.with_name(self.path.name + ".lock")
        self._warned = False

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        check_regular_or_missing(self._lock_path)  # opening a FIFO to append would block
        with locked(self._lock_path, LOCK_TIMEOUT_S):
            yield

    def load(self) -> LoadResult:
        try:
            with self._locked():
                return self._load_unlocked()
        except NotARegularFile as error:
            return LoadResult(Settings(), [_not_a_file(Path(str(error.filename)), error)])

    def save(self, settings: Settings) -> None:
        with self._locked():
            self._write_unlocked(settings)

    def update(self, change: Callable[[Settings], None]) -> Settings:
        """Read-modify-write under the lock, so concurrent writers never lose each other's edits."""
        with self._locked():
            settings = self._load_unlocked().settings
            change(settings)
            self._write_unlocked(settings)
            return settings

    def _load_unlocked(self) -> LoadResult:
        try:
            raw = read_state_file(self.path)
        except FileNotFoundError:
            return LoadResult(Settings())
        except NotARegularFile as error:
            if not self._warned:  # every load meets it: say it once
                self._warned = True
                log.warning("settings path is not a file: %s", error)
            return LoadResult(Settings(), [_not_a_file(self.path, error)])
        except OSError as error:
            if error.errno == errno.EFBIG:  # far bigger than any settings: damage, kept aside
                return self._damaged(error)
            log.warning("settings file unreadable: %s", error)
            return LoadResult(Settings(), [f"Settings could not be read ({error.strerror}); "
                                           "defaults are used for this session."])
        try:
            data = statejson.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("top level is not an object")
            version = data.get("version", SETTINGS_VERSION)
            if isinstance(version, int) and SETTINGS_VERSION < version <= MAX_VERSION:
                return self._kept_aside(f"newer-v{version}", lambda name: (
                    f"Your settings were written by a newer Serpent (settings version "
                    f"{version}). They were kept as {name} and defaults are used."))
            return LoadResult(Settings.model_validate(data))
        except (ValueError, ValidationError) as error:
            return self._damaged(error)

    def _damaged(self, error: Exception) -> LoadResult:
        """Any damage (bad JSON, nesting, size, types): the file is kept aside, never lost."""
        log.warning("settings file is corrupt: %s", _first_line(error))
        return self._kept_aside("corrupt", lambda name: (
            f"Your settings file could not be read and was kept as {name}; defaults are used."))

    def _kept_aside(self, reason: str, notice: Callable[[str], str]) -> LoadResult:
        try:
            backup = self._backup(reason)
        except OSError as cannot:  # a read-only folder: it cannot be overwritten either
            log.warning("the settings file could not be kept aside: %s", cannot)
            return LoadResult(Settings(), ["Your settings file could not be read; defaults "
                                           "are used for this session."])
        return LoadResult(Settings(), [notice(backup.name)])

    def _backup(self, reason: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.name}.{reason}-{stamp}")
        counter = 1
        while backup.exists():
            backup = self.path.with_name(f"{self.path.name}.{reason}-{stamp}-{counter}")
            counter += 1
        os.replace(self.path, backup)
        return backup

    def _write_unlocked(self, settings: Settings) -> None:
        text = settings.model_dump_json(indent=2)
        atomic_write_text(self.path, text + "\n")


def _not_a_file(path: Path, error: NotARegularFile) -> str:
    return (f"{path} is {error.kind}, not a settings file: defaults are used for this "
            "session and settings cannot be saved until it is moved away.")


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
