"""Settings export and import: one portable JSON file that carries settings to another machine.

Thread-safe (file I/O under the settings and credential stores' own locks); works whether or
not the app is running. Library paths are home-relative (`~/...`); credentials (secret
tokens) travel only when asked and the file is then owner-only. An import checks the whole
file before it writes anything, backs up the settings it replaces, and lists libraries that
do not exist on this machine as missing (data the window shows with a "Locate…" button).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from library.disk import statejson
from library.disk.atomicfile import atomic_write_text, read_state_file
from library.errors import LibraryError
from library.pathrules import parse_user_path
from serpent_tk import __version__
from serpent_tk.credentials import (
    STORED_TOOLSET,
    CredentialError,
    CredentialStore,
    validate_mode,
    validate_name,
    validate_toolset,
)
from serpent_tk.logs import register_secret
from serpent_tk.paths import AppDirs, app_dirs, to_portable
from serpent_tk.settings import (
    MAX_RECENT_LIBRARIES,
    SETTINGS_VERSION,
    RememberedLibrary,
    Settings,
    SettingsStore,
)

log = logging.getLogger(__name__)

FORMAT_NAME = "serpent-settings"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 8 * 1024 * 1024
SECRET_FILE_MODE = 0o600


class PortableSettingsError(Exception):
    """An export or import that cannot be done. `message` is for people; `reason` is stable:
    `unreadable`, `not_settings`, `corrupt`, `newer`, `target`, `not_found`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class PortableCredential(BaseModel):
    """One AI client's access as carried in the file. `token` is a secret."""

    model_config = ConfigDict(extra="ignore")
    name: str
    mode: str
    toolset: str = STORED_TOOLSET  # a file from before toolsets: the client saw everything
    token: str = Field(min_length=16)
    created_at: datetime = Field(alias="createdAt")


class PortableFile(BaseModel):
    """The whole file. `settings` keeps the settings file's own shape and version."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    format: str
    version: int
    exported_at: datetime = Field(alias="exportedAt")
    app_version: str = Field(default="", alias="appVersion")
    platform: str = ""
    settings: dict[str, Any]
    credentials: list[PortableCredential] | None = None


@dataclass(frozen=True)
class MissingLibrary:
    """A library named in the settings that is not on this machine (yet)."""

    name: str
    path: str            # as written in the file ("~/Art/Refs.serpent", "D:\\Refs.serpent")
    expected_at: Path | None  # where it was looked for here; None for another OS's path
    kept: bool           # still in the recent list (False: a path this OS cannot hold)

    @property
    def label(self) -> str:
        return f"{self.name} — missing — locate…"


@dataclass(frozen=True)
class ExportReport:
    path: Path
    libraries: int
    credentials: int     # 0 unless asked for


@dataclass
class ImportReport:
    settings: Settings
    found: list[Path] = field(default_factory=list)
    missing: list[MissingLibrary] = field(default_factory=list)
    credentials_added: list[str] = field(default_factory=list)
    credentials_skipped: list[str] = field(default_factory=list)  # a same-named one is here
    backup: Path | None = None   # the settings file as it was before the import
    notices: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------

def export_settings(target: str | Path, *, include_credentials: bool = False,
                    dirs: AppDirs | None = None) -> ExportReport:
    """Write the portable settings file to `target`. Credentials only when asked."""
    dirs = dirs or app_dirs()
    destination = _export_target(target)
    loaded = SettingsStore(dirs.settings_file).load()
    for notice in loaded.notices:
        log.warning("settings: %s", notice)
    document: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exportedAt": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "appVersion": __version__,
        "platform": sys.platform,
        "settings": loaded.settings.model_dump(mode="json"),
    }
    count = 0
    if include_credentials:
        credentials = _export_credentials(dirs)
        document["credentials"] = credentials
        count = len(credentials)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:
        atomic_write_text(destination, text,
                          mode=SECRET_FILE_MODE if include_credentials else None)
    except OSError as error:
        raise PortableSettingsError(
            "target", f"Could not write {destination}: {error.strerror or error}.") from None
    log.info("settings exported (%d libraries, %d credentials)",
             len(loaded.settings.recent_libraries), count)
    return ExportReport(destination, len(loaded.settings.recent_libraries), count)


def _export_target(target: str | Path) -> Path:
    try:
        parsed = parse_user_path(str(target), require_absolute=False)
    except LibraryError as error:
        raise PortableSettingsError("target", error.message) from None
    destination = Path(os.path.abspath(Path(parsed).expanduser()))
    if destination.is_dir():
        raise PortableSettingsError("target", f"{destination} is a folder; give a file name.")
    if not destination.parent.is_dir():
        raise PortableSettingsError("target", f"The folder {destination.parent} does not exist.")
    return destination


def _export_credentials(dirs: AppDirs) -> list[dict[str, Any]]:
    store = CredentialStore(dirs.credentials_file)
    problem = store.problem()
    if problem is not None:
        raise PortableSettingsError("unreadable", problem)
    items = []
    for credential in store.list():
        items.append({
            "name": credential.name,
            "mode": credential.mode,
            "toolset": credential.toolset,
            "token": store.token_for(credential.name),
            "createdAt": credential.created_at.isoformat(),
        })
    return items


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------

def read_settings_file(source: str | Path) -> PortableFile:
    """Read and check a portable settings file; writes nothing (a preview for the window)."""
    path = Path(source).expanduser()
    try:
        raw = read_state_file(path, MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise PortableSettingsError("not_found", f"There is no file {path}.") from None
    except OSError as error:
        if error.errno == errno.EFBIG:
            raise PortableSettingsError("not_settings", f"{path.name} is too big to be a "
                                                        "Serpent settings file.") from None
        raise PortableSettingsError(
            "unreadable", f"Could not read {path}: {error.strerror or error}.") from None
    if len(raw) > MAX_FILE_BYTES:
        raise PortableSettingsError("not_settings", f"{path.name} is too big to be a Serpent "
                                                    "settings file.")
    try:
        data = statejson.loads(raw)
    except statejson.StateFileDamaged as error:
        raise PortableSettingsError("corrupt", f"{path.name} is damaged or not a Serpent "
                                               f"settings file ({error}).") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise PortableSettingsError("not_settings", f"{path.name} is not a Serpent settings "
                                                    "file (use Settings → Export).")
    version = data.get("version")
    settings = data.get("settings")
    settings_version = settings.get("version") if isinstance(settings, dict) else None
    if (isinstance(version, int) and version > FORMAT_VERSION) or \
            (isinstance(settings_version, int) and settings_version > SETTINGS_VERSION):
        raise PortableSettingsError(
            "newer", f"{path.name} was written by a newer Serpent; update Serpent on this "
                     "computer to import it. Nothing was changed.")
    try:
        document = PortableFile.model_validate(data)
        Settings.model_validate(document.settings)
        for credential in document.credentials or []:
            validate_name(credential.name)
            validate_mode(credential.mode)
            validate_toolset(credential.toolset)
    except (ValidationError, CredentialError) as error:
        raise PortableSettingsError(
            "corrupt", f"{path.name} is damaged: {_first_problem(error)}. "
                       "Nothing was changed.") from None
    for credential in document.credentials or []:
        register_secret(credential.token)
    return document


def import_settings(source: str | Path, *, include_credentials: bool = True,
                    dirs: AppDirs | None = None) -> ImportReport:
    """Replace this machine's settings with the file's; add its credentials if it has any.

    Recent libraries from the file come first, this machine's own follow. Credentials whose
    name already exists here are left alone (reported in `credentials_skipped`). The whole
    file is checked first: a bad or newer file raises `PortableSettingsError` and changes
    nothing. The replaced settings file is kept as `settings.json.before-import-<time>`.
    """
    dirs = (dirs or app_dirs()).ensure()
    document = read_settings_file(source)
    imported = Settings.model_validate(document.settings)
    missing = _classify(imported, document.settings)
    report = ImportReport(settings=imported)
    store = SettingsStore(dirs.settings_file)
    report.backup = _backup(dirs.settings_file)

    previous_port: list[int] = []

    def apply(current: Settings) -> None:
        previous_port.append(current.mcp.port)
        kept_imported = [r for r in imported.recent_libraries if _holdable(r.path)]
        mine = [r for r in current.recent_libraries
                if not any(_same_path(r.path, other.path) for other in kept_imported)]
        current.mcp = imported.mcp
        current.ui = imported.ui
        current.plugins = dict(imported.plugins)
        current.recent_libraries = [*kept_imported, *mine][:MAX_RECENT_LIBRARIES]
        last = imported.last_library
        current.last_library = last if last is not None and _holdable(last) else \
            current.last_library

    report.settings = store.update(apply)
    report.missing = missing
    if previous_port and previous_port[-1] != imported.mcp.port:
        report.notices.append(
            f"The MCP port is now {imported.mcp.port}: restart Serpent if it is running; "
            "AI clients configured on this computer need the new port too.")
    report.found = [Path(r.path) for r in report.settings.recent_libraries
                    if _is_library_here(Path(r.path))]
    if include_credentials and document.credentials:
        _import_credentials(document.credentials, dirs, report)
    elif document.credentials:
        report.notices.append("The file's credentials were not imported.")
    log.info("settings imported: %d libraries found, %d missing, %d credentials added",
             len(report.found), len(report.missing), len(report.credentials_added))
    return report


def missing_libraries(settings: Settings) -> list[MissingLibrary]:
    """The recent libraries of `settings` that are not on this machine (for the window)."""
    return [MissingLibrary(r.name, to_portable(r.path), Path(r.path), kept=True)
            for r in settings.recent_libraries if not _is_library_here(Path(r.path))]


def locate_library(missing: MissingLibrary, new_path: str | Path, *,
                   dirs: AppDirs | None = None) -> Settings:
    """Point a missing library at where it really is on this machine; returns the settings."""
    dirs = dirs or app_dirs()
    try:
        located = Path(parse_user_path(str(new_path))).absolute()
    except LibraryError as error:
        raise PortableSettingsError("not_found", error.message) from None
    if not _is_library_here(located):
        raise PortableSettingsError("not_found", f"{located} is not a Serpent library folder.")

    def change(settings: Settings) -> None:
        replaced = False
        entries = []
        for entry in settings.recent_libraries:
            if not replaced and _is_entry_of(entry, missing):
                entries.append(RememberedLibrary(path=located, name=entry.name,
                                             last_opened=entry.last_opened))
                replaced = True
            elif not _same_path(entry.path, located):
                entries.append(entry)
        if not replaced:
            entries.insert(0, RememberedLibrary(path=located, name=missing.name))
        settings.recent_libraries = entries[:MAX_RECENT_LIBRARIES]
        last = settings.last_library
        if last is None or (missing.expected_at is not None
                            and _same_path(last, missing.expected_at)):
            settings.last_library = located

    return SettingsStore(dirs.settings_file).update(change)


def _classify(imported: Settings, raw: dict[str, Any]) -> list[MissingLibrary]:
    written = [item.get("path", "") for item in raw.get("recent_libraries", [])
               if isinstance(item, dict)]
    missing = []
    for entry, text in zip(imported.recent_libraries, written, strict=False):
        text = str(text)
        if not _holdable(entry.path):
            missing.append(MissingLibrary(entry.name, text, None, kept=False))
        elif not _is_library_here(Path(entry.path)):
            missing.append(MissingLibrary(entry.name, text, Path(entry.path), kept=True))
    return missing


def _is_entry_of(entry: RememberedLibrary, missing: MissingLibrary) -> bool:
    if missing.expected_at is not None:
        return _same_path(entry.path, missing.expected_at)
    return _same_text(to_portable(entry.path), missing.path)


def _holdable(path: Path) -> bool:
    """A path this OS can hold: absolute here and valid syntax (not "D:\\x" on Linux)."""
    if not Path(path).is_absolute():
        return False
    try:
        parse_user_path(str(path))
    except LibraryError:
        return False
    return True


def _is_library_here(path: Path) -> bool:
    return _holdable(path) and path.is_dir()


def _same_path(a: Path | str, b: Path | str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _same_text(a: str | Path, b: str | Path) -> bool:
    return str(a).replace("\\", "/").rstrip("/") == str(b).replace("\\", "/").rstrip("/")


def _backup(settings_file: Path) -> Path | None:
    if not settings_file.exists():
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = settings_file.with_name(f"{settings_file.name}.before-import-{stamp}")
    counter = 1
    while backup.exists():
        backup = settings_file.with_name(f"{settings_file.name}.before-import-{stamp}-{counter}")
        counter += 1
    shutil.copy2(settings_file, backup)
    return backup


def _import_credentials(credentials: list[PortableCredential], dirs: AppDirs,
                        report: ImportReport) -> None:
    store = CredentialStore(dirs.credentials_file)
    present = {c.name.casefold() for c in store.list()}
    for item in credentials:
        if item.name.casefold() in present:
            report.credentials_skipped.append(item.name)
            continue
        _restore_credential(store, item)
        present.add(item.name.casefold())
        report.credentials_added.append(item.name)
    if report.credentials_skipped:
        report.notices.append(
            "Kept this computer's own credentials named "
            + ", ".join(report.credentials_skipped) + "; the file's were not imported.")


def _restore_credential(store: CredentialStore, item: PortableCredential) -> None:
    """Add a credential with its existing token, so pasted client configs keep working."""
    store.adopt(item.name, item.mode, item.token, created_at=item.created_at,
                toolset=item.toolset)


def _first_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg"))
    return str(error)


__all__ = [
    "ExportReport", "ImportReport", "MissingLibrary", "PortableSettingsError",
    "export_settings", "import_settings", "locate_library", "missing_libraries",
    "read_settings_file",
]
