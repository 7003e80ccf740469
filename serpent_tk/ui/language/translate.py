"""The window's words in the chosen language: `_`, `ngettext`, `pgettext` translate now,
`N_` marks a word for the catalogue and leaves it to be translated where it is shown.

Thread-safe: the catalogue in use is one object, swapped whole by `use()` and read on every
call. English is the source language (the msgids); 简体中文 comes from
`serpent_tk/locale/zh_CN/LC_MESSAGES/serpent.mo`, compiled from its `.po` by the install
and the packaged app's build (`catalogues compile`). A source checkout whose `.mo` is
missing or older than its `.po` compiles the `.po` in memory instead (Babel), and says so in
the log.
"""

from __future__ import annotations

import gettext
import io
import logging
import os
import subprocess
import sys
from pathlib import Path

from serpent_tk.shipped_files import resource_root

log = logging.getLogger(__name__)

DOMAIN = "serpent"
ENGLISH = "en"
CHINESE = "zh_CN"
# every language the window speaks, by code, named in its own words (Settings → General)
LANGUAGES = {ENGLISH: "English", CHINESE: "简体中文"}
SYSTEM = "system"


def locale_dir() -> Path:
    """Where the catalogues are: `serpent_tk/locale` (in a packaged app, unpacked there)."""
    return resource_root() / "serpent_tk" / "locale"


class _Active:
    """The catalogue in use and its language code (replaced as a pair)."""

    def __init__(self, code: str, catalogue: gettext.NullTranslations) -> None:
        self.code = code
        self.catalogue = catalogue


_active = _Active(ENGLISH, gettext.NullTranslations())


def _(message: str) -> str:
    """`message` in the window's language."""
    return _active.catalogue.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of `singular`/`plural` for `n` in the window's language (Chinese has one)."""
    return _active.catalogue.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the window's language, where `context` tells two meanings apart."""
    return _active.catalogue.pgettext(context, message)


def known(text: str) -> str:
    """Words that came from elsewhere (a shipped plugin's title), translated when the
    catalogue has them; anything else as it is ("" stays "": gettext's "" is its header)."""
    return _active.catalogue.gettext(text) if text else text


def N_(message: str) -> str:
    """Marks `message` for the catalogue; translated with `_()` where it is shown."""
    return message


def current() -> str:
    """The code of the language the window speaks now ("en", "zh_CN")."""
    return _active.code


def use(setting: str) -> str:
    """Speak the language of `setting` ("system", "en", "zh_CN") from now on; returns the
    code chosen. A catalogue that cannot be read leaves the window in English."""
    global _active
    code = resolve(setting)
    catalogue = load(code)
    if type(catalogue) is gettext.NullTranslations:
        code = ENGLISH
    _active = _Active(code, catalogue)
    return code


def resolve(setting: str) -> str:
    """The language code a setting stands for: "system" asks the operating system."""
    if setting == SYSTEM:
        return system_language()
    return setting if setting in LANGUAGES else ENGLISH


def load(code: str) -> gettext.NullTranslations:
    """The catalogue of `code`: its `.mo`, or its `.po` compiled now when the `.mo` is
    missing or older; English (no catalogue) when neither can be read."""
    if code == ENGLISH:
        return gettext.NullTranslations()
    folder = locale_dir() / code / "LC_MESSAGES"
    compiled, source = folder / f"{DOMAIN}.mo", folder / f"{DOMAIN}.po"
    try:
        if compiled.is_file() and (not source.is_file()
                                   or compiled.stat().st_mtime >= source.stat().st_mtime):
            with compiled.open("rb") as stream:
                return gettext.GNUTranslations(stream)
        if source.is_file():
            log.warning("catalogue %s is not compiled (or older than its .po): compiling it "
                        "in memory; `python -m serpent_tk.ui.language.catalogues compile` "
                        "makes the .mo", code)
            return gettext.GNUTranslations(io.BytesIO(compile_po(source)))
    except (OSError, ValueError) as error:
        log.warning("catalogue %s could not be read: %s", code, error)
        return gettext.NullTranslations()
    log.warning("no catalogue for %s in %s: the window stays in English", code, folder)
    return gettext.NullTranslations()


def compile_po(source: Path) -> bytes:
    """A `.po` file as `.mo` bytes (Babel, imported here: only a source checkout needs it)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with source.open("rb") as stream:
        catalogue = read_po(stream)
    buffer = io.BytesIO()
    write_mo(buffer, catalogue)
    return buffer.getvalue()


# -- which language the operating system speaks -------------------------------------------
def system_language() -> str:
    """"zh_CN" when the person's system speaks Chinese (Simplified, or Traditional, which
    reads Simplified better than English), else "en". Bounded; never raises."""
    for tag in _system_tags():
        primary = tag.replace("-", "_").split(".")[0].split("@")[0]
        if not primary or primary in ("C", "POSIX"):
            continue
        if primary.lower().startswith("zh"):
            return CHINESE
        return ENGLISH
    return ENGLISH


def _system_tags() -> list[str]:
    """The person's language preferences, most preferred first ("zh_CN.UTF-8", "en-US")."""
    tags: list[str] = []
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            tags.extend(part for part in value.split(":") if part)
            break
    try:
        if sys.platform == "win32":
            import ctypes
            import locale

            code = ctypes.windll.kernel32.GetUserDefaultUILanguage()  # type: ignore[attr-defined]
            name = locale.windows_locale.get(int(code))
            if name:
                tags.append(name)
        elif sys.platform == "darwin":
            result = subprocess.run(["defaults", "read", "-g", "AppleLanguages"],
                                    capture_output=True, text=True, timeout=1)
            tags.extend(part.strip(' "(),') for part in result.stdout.split()
                        if part.strip(' "(),'))
    except Exception as error:  # never stop the window over its language
        log.info("system language not read: %s", error)
    return tags
