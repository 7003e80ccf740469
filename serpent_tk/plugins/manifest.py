"""A plugin's manifest (`plugin.toml`): who it is, which Serpent versions it works with, which
module holds its code and what it contributes.

Thread-safe (pure). Read in the main process and by the CLI before any plugin code runs, and
again in the plugin host, which checks that the module declares what the manifest promises.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from serpent_tk import __version__

MANIFEST_NAME = "plugin.toml"
PLUGIN_ID = r"^[a-z0-9][a-z0-9-]{0,30}$"  # as the registry's PLUGIN_ID
VERB = r"^[a-z0-9]+(-[a-z0-9]+)*$"
MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class ManifestError(ValueError):
    """The manifest cannot be read or breaks a rule; the message is for people."""


class _Strict(BaseModel):
    # built when first used: plugins start after the window's first page
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Contributes(_Strict):
    """What the plugin adds: command verbs (`plugin.<id>.<verb>`), hooks, analysers."""

    commands: list[str] = Field(default_factory=list, max_length=50)
    will_hooks: bool = False
    did_hooks: bool = False
    analysers: list[str] = Field(default_factory=list, max_length=20)

    @field_validator("commands", "analysers")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not re.match(VERB, name) or len(name) > 30:
                raise ValueError(f"{name!r} is not a lower-case, dash-separated name")
        if len(set(names)) != len(names):
            raise ValueError("a name is listed twice")
        return names


class Manifest(_Strict):
    id: str = Field(pattern=PLUGIN_ID)
    name: str = Field(min_length=1, max_length=80)
    version: str = Field(min_length=1, max_length=40)
    serpent: str = Field(min_length=1, max_length=100, description="The Serpent versions it "
                         "works with, as a version specifier: \">=0.1,<1\".")
    module: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=500)
    author: str = Field(default="", max_length=120)
    contributes: Contributes = Field(default_factory=Contributes)

    @field_validator("serpent")
    @classmethod
    def _specifier(cls, value: str) -> str:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet  # 70 ms: not at start

        try:
            SpecifierSet(value)
        except InvalidSpecifier:
            raise ValueError(f"{value!r} is not a version specifier like \">=0.1,<1\"") from None
        return value

    @field_validator("module")
    @classmethod
    def _module(cls, value: str) -> str:
        if not MODULE.match(value):
            raise ValueError(f"{value!r} is not a Python module name")
        return value

    def works_with(self, serpent_version: str = __version__) -> bool:
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            return Version(serpent_version) in SpecifierSet(self.serpent)
        except InvalidVersion:
            return False


def read_manifest(path: Path) -> Manifest:
    """The manifest in `path` (a `plugin.toml`). `ManifestError` says what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ManifestError(f"{path.name} cannot be read ({error.strerror})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{path.name} is not valid TOML: {error}") from None
    try:
        return Manifest.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "manifest"
        message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        if first.get("type") == "extra_forbidden":
            message = "not a manifest field"
        elif first.get("type") == "missing":
            message = "required"
        raise ManifestError(f"{path.name}: {where}: {message}") from None
